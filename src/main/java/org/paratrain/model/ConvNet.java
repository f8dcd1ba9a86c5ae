package org.paratrain.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.data.Dataset;
import org.paratrain.data.HeapBudget;

/**
 * A convolutional network for images: convolutions and dense layers with ReLU, max pooling,
 * and a dense softmax cross-entropy head over K classes (labels 0..K-1).
 *
 * <p>Images are stored height x width x channels, one sample per row of the data set (an IDX
 * image of 28 x 28 bytes is 28 x 28 x 1). A convolution has stride 1 and no padding, so a
 * {@code k x k} kernel turns {@code h x w} into {@code (h-k+1) x (w-k+1)}; a pool of {@code p}
 * takes the largest of each {@code p x p} square, stride {@code p}, dropping a ragged edge.
 *
 * <p>Convolution is im2col and one matrix product ({@link Gemm}) for a whole block: each
 * output pixel of each sample becomes a row of its {@code k x k x c} input patch, so
 * {@code Z = cols W + b} is the block's output in the same height x width x channels layout,
 * and the backward pass is {@code dW = cols^T dZ} and {@code dcols = dZ W^T}, which col2im adds
 * back into the input's deltas. A patch row is {@code k} runs of {@code k x c} contiguous
 * values, so im2col is {@code k} array copies per output pixel.
 *
 * <p>Layout of the flat parameters, layer by layer as in {@link MultilayerPerceptron}: the
 * weights as an {@code in x out} matrix (a convolution's {@code in} is {@code k x k x c}, rows
 * in patch order, one column per filter), then the {@code out} biases. Initialisation is
 * seeded: He (normal, sd sqrt(2/in)) for the convolutions and hidden dense layers, Xavier
 * (uniform) for the head, biases 0.
 *
 * <p>One instance per rank: the block's activations, patches and pooling choices are scratch
 * grown to the largest block and reused, so a training step allocates nothing. Each block's
 * gradient depends on its samples alone, so the sum across ranks keeps the bits of any node
 * count.
 */
public final class ConvNet implements Classifier {

    /** One layer of the network as {@code --layers} names it. */
    public sealed interface Layer {
        /** {@return the layer as {@code --layers} writes it ({@code conv:32:3})} */
        String label();
    }

    /**
     * {@code conv:F:K}: F filters of K x K over every input channel, stride 1, no padding, then ReLU.
     *
     * @param filters F, at least 1
     * @param kernel  K, at least 1
     */
    public record Conv(int filters, int kernel) implements Layer {
        /** Checks the sizes. */
        public Conv {
            if (filters < 1 || kernel < 1) {
                throw new IllegalArgumentException("--layers: conv needs at least 1 filter of at least 1x1, got "
                    + filters + " of " + kernel + "x" + kernel);
            }
        }

        @Override
        public String label() {
            return "conv:" + filters + ":" + kernel;
        }
    }

    /**
     * {@code pool:P}: the largest value of each P x P square of each channel, stride P.
     *
     * @param size P, at least 2
     */
    public record Pool(int size) implements Layer {
        /** Checks the size. */
        public Pool {
            if (size < 2) {
                throw new IllegalArgumentException("--layers: pool needs a size of at least 2, got " + size);
            }
        }

        @Override
        public String label() {
            return "pool:" + size;
        }
    }

    /**
     * {@code dense:N}: a fully connected layer of N units with ReLU (the image is flattened first).
     *
     * @param width N, at least 1
     */
    public record Dense(int width) implements Layer {
        /** Checks the width. */
        public Dense {
            if (width < 1) {
                throw new IllegalArgumentException("--layers: dense needs a width of at least 1, got " + width);
            }
        }

        @Override
        public String label() {
            return "dense:" + width;
        }
    }

    /**
     * The shape of an image or of a layer's output.
     *
     * @param height   rows, at least 1
     * @param width    columns, at least 1
     * @param channels values per pixel, at least 1
     */
    public record Shape(int height, int width, int channels) {
        /** Checks that the sizes are positive and a sample fits in an array. */
        public Shape {
            if (height < 1 || width < 1 || channels < 1 || (long) height * width * channels > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("an image shape needs positive sizes whose product fits an array, "
                    + "got " + height + "x" + width + "x" + channels);
            }
        }

        /** {@return the values of one sample of this shape} */
        public int size() {
            return height * width * channels;
        }

        /** {@return the shape as {@code --image-shape} writes it ({@code 28x28x1})} */
        @Override
        public String toString() {
            return height + "x" + width + "x" + channels;
        }
    }

    /** A layer placed in the network: its input and output shapes and its parameters' offset. */
    record Stage(Layer layer, Shape in, Shape out, int offset, int patch) {
        /** {@return the weights' rows: a convolution's patch size, a dense layer's inputs} */
        int fanIn() {
            return layer instanceof Conv ? patch : in.size();
        }

        int units() {
            return out.channels();
        }

        /** {@return output pixels per sample (1 for a dense layer)} */
        int pixels() {
            return out.height() * out.width();
        }
    }

    private final Shape image;
    private final List<Layer> layers;
    private final Stage[] stages;       // the given layers, then the head: dense to the classes, no ReLU
    private final int classes;
    private final int parameters;
    private double[][] acts = new double[0][];
    private double[][] deltas = new double[0][];
    private double[][] cols = new double[0][];
    private int[][] choices = new int[0][];
    private int capacity;
    private final MultilayerPerceptron.Precision precision;
    /** The float32 passes of training, or null in float64. */
    private final ConvFloatPasses floats;

    /**
     * A network of these layers over images of this shape, trained in float64.
     *
     * @param image   the input shape; its size must be the data's features
     * @param layers  the layers, input side first; at least one
     * @param classes K, at least 2
     * @throws IllegalArgumentException naming the layer a shape does not fit (a kernel or pool
     *     larger than its input, or a convolution or pool after a dense layer)
     */
    public ConvNet(Shape image, List<Layer> layers, int classes) {
        this(image, layers, classes, MultilayerPerceptron.Precision.FLOAT64);
    }

    /**
     * A network of these layers over images of this shape, trained in the given precision.
     *
     * @param image     the input shape; its size must be the data's features
     * @param layers    the layers, input side first; at least one
     * @param classes   K, at least 2
     * @param precision the arithmetic of the training passes (inference is in float64 either way)
     * @throws IllegalArgumentException naming the layer a shape does not fit
     */
    public ConvNet(Shape image, List<Layer> layers, int classes, MultilayerPerceptron.Precision precision) {
        this.precision = precision;
        if (classes < 2) {
            throw new IllegalArgumentException("a convolutional network needs at least 2 classes, got " + classes);
        }
        this.image = image;
        this.layers = List.copyOf(layers);
        this.classes = classes;
        List<Stage> s = new ArrayList<>();
        Shape shape = image;
        long p = 0;
        long scratch = 0;       // the largest chunk buffer: an output, or a convolution's patches
        boolean flat = false;
        for (Layer layer : this.layers) {
            Shape out;
            int patch = 0;
            switch (layer) {
                case Conv c -> {
                    check(!flat, layer, "comes after a dense layer");
                    check(c.kernel() <= Math.min(shape.height(), shape.width()), layer, "needs an input of at least "
                        + c.kernel() + "x" + c.kernel() + ", got " + shape);
                    long cells = (long) c.kernel() * c.kernel() * shape.channels();
                    long pixels = (long) (shape.height() - c.kernel() + 1) * (shape.width() - c.kernel() + 1);
                    check(cells < HeapBudget.MAX_ARRAY && pixels * c.filters() <= HeapBudget.MAX_ARRAY, layer,
                        "makes outputs larger than an array holds");
                    scratch = Math.max(scratch, pixels * (cells + 1));
                    patch = (int) cells;
                    out = new Shape(shape.height() - c.kernel() + 1, shape.width() - c.kernel() + 1, c.filters());
                }
                case Pool q -> {
                    check(!flat, layer, "comes after a dense layer");
                    check(q.size() <= Math.min(shape.height(), shape.width()), layer, "needs an input of at least "
                        + q.size() + "x" + q.size() + ", got " + shape);
                    out = new Shape(shape.height() / q.size(), shape.width() / q.size(), shape.channels());
                }
                case Dense d -> {
                    flat = true;
                    out = new Shape(1, 1, d.width());
                }
            }
            Stage st = new Stage(layer, shape, out, (int) Math.min(p, Integer.MAX_VALUE), patch);
            p += layer instanceof Pool ? 0 : ((long) st.fanIn() + 1) * st.units();
            scratch = Math.max(scratch, out.size());
            s.add(st);
            shape = out;
        }
        p += ((long) shape.size() + 1) * classes;
        if (p > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--layers: these layers make " + p + " parameters, more than an array "
                + "holds (" + HeapBudget.MAX_ARRAY + ")");
        }
        if (scratch * CHUNK > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--layers: these layers need " + scratch + " values of scratch a "
                + "sample, more than an array holds for " + CHUNK + " samples");
        }
        Stage head = new Stage(new Dense(classes), shape, new Shape(1, 1, classes),
            (int) (p - ((long) shape.size() + 1) * classes), 0);
        s.add(head);
        stages = s.toArray(new Stage[0]);
        parameters = (int) p;
        floats = precision == MultilayerPerceptron.Precision.FLOAT32 ? new ConvFloatPasses(this, stages) : null;
    }

    /** {@return the arithmetic of training} */
    public MultilayerPerceptron.Precision precision() {
        return precision;
    }

    private static void check(boolean ok, Layer layer, String what) {
        if (!ok) {
            throw new IllegalArgumentException("--layers: " + layer.label() + " " + what);
        }
    }

    /** {@return the input shape} */
    public Shape image() {
        return image;
    }

    /** {@return the layers as given, without the head} */
    public List<Layer> layers() {
        return layers;
    }

    @Override
    public int parameterCount() {
        return parameters;
    }

    @Override
    public String name() {
        return "cnn";
    }

    @Override
    public int classes() {
        return classes;
    }

    @Override
    public void initialize(double[] params, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Arrays.fill(params, 0.0);
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            if (st.layer() instanceof Pool) {
                continue;
            }
            int in = st.fanIn();
            int out = st.units();
            boolean head = s == stages.length - 1;
            double sd = Math.sqrt(2.0 / in);
            double limit = Math.sqrt(6.0 / (in + out));
            for (int k = 0; k < in * out; k++) {
                params[st.offset() + k] = head ? limit * (2 * rnd.nextDouble() - 1)
                    : sd * MultilayerPerceptron.gaussian(rnd);
            }
        }
    }

    /**
     * {@inheritDoc} A range longer than {@value #CHUNK} samples runs a chunk at a time, each
     * chunk's gradient added in turn, so the scratch stays that of one chunk (a convolution's
     * patches take {@code k x k x c} values per output pixel).
     */
    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        if (floats != null) {
            return floats.lossAndGradient(data, from, to, params, grad, offset);
        }
        double loss = 0.0;
        for (int at = from; at < to; at += CHUNK) {
            loss += chunkLossAndGradient(data, at, Math.min(to, at + CHUNK), params, grad, offset);
        }
        return loss;
    }

    private double chunkLossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        int n = to - from;
        double loss = forward(data, from, n, params, true);
        for (int s = stages.length - 1; s >= 0; s--) {
            backward(data, from, n, s, params, grad, offset);
        }
        return loss;
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        if (floats != null) {
            return floats.loss(data, from, to, params);
        }
        double loss = 0.0;
        for (int at = from; at < to; at += CHUNK) {
            loss += forward(data, at, Math.min(to - at, CHUNK), params, false);
        }
        return loss;
    }

    /**
     * Runs a chunk forward, keeping every stage's output; returns the summed cross-entropy, and
     * writes the head's deltas (from the same log-sum-exp) if asked.
     */
    private double forward(Dataset data, int from, int n, double[] params, boolean deltasToo) {
        run(data, from, n, params);
        double loss = 0.0;
        double[] z = acts[stages.length - 1];
        double[] d = deltas[stages.length - 1];
        for (int i = 0; i < n; i++) {
            int label = (int) data.y()[from + i];
            double lse = Softmax.logSumExp(z, i * classes, classes);
            loss += lse - z[i * classes + label];
            if (deltasToo) {        // the head's deltas from the same log-sum-exp: softmax minus one-hot
                for (int c = 0; c < classes; c++) {
                    d[i * classes + c] = Math.exp(z[i * classes + c] - lse) - (c == label ? 1.0 : 0.0);
                }
            }
        }
        return loss;
    }

    /** Runs the block through every stage, leaving the logits in the last stage's activations. */
    private void run(Dataset data, int from, int n, double[] params) {
        ensure(n);
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            double[] in = s == 0 ? data.x() : acts[s - 1];
            int inBase = s == 0 ? from * image.size() : 0;
            double[] out = acts[s];
            switch (st.layer()) {
                case Pool q -> ConvKernels.pool(st, q.size(), n, in, inBase, out, choices[s]);
                case Conv c -> {
                    ConvKernels.im2col(st, c.kernel(), n, in, inBase, cols[s]);
                    convolve(st, n * st.pixels(), cols[s], params, out);
                }
                case Dense d -> affine(st, n, in, inBase, params, out, s < stages.length - 1);
            }
        }
    }

    /**
     * A convolution's output, {@code relu(cols W')}: each patch row ends in a 1 and the biases
     * follow the weights in the parameters, so {@code W'} is the weights and biases as they lie
     * and the product adds the biases (and, backward, sums their gradient) itself.
     */
    private static void convolve(Stage st, int rows, double[] cols, double[] params, double[] out) {
        int units = st.units();
        Gemm.dgemm(false, false, rows, units, st.patch() + 1, 1.0, cols, 0, params, st.offset(), 0.0, out, 0);
        for (int j = 0; j < rows * units; j++) {
            out[j] = Math.max(out[j], 0.0);
        }
    }

    /** {@code out = a W + b} for {@code rows} rows of the stage's fan-in, then the ReLU if asked: one pass after the product. */
    private static void affine(Stage st, int rows, double[] a, int aBase, double[] params, double[] out, boolean relu) {
        int units = st.units();
        int b = st.offset() + st.fanIn() * units;
        Gemm.dgemm(false, false, rows, units, st.fanIn(), 1.0, a, aBase, params, st.offset(), 0.0, out, 0);
        for (int r = 0; r < rows; r++) {
            int at = r * units;
            if (relu) {
                for (int o = 0; o < units; o++) {
                    out[at + o] = Math.max(out[at + o] + params[b + o], 0.0);
                }
            } else {
                for (int o = 0; o < units; o++) {
                    out[at + o] += params[b + o];
                }
            }
        }
    }

    /**
     * Stage s's parameter gradient from {@code deltas[s]} (the loss's gradient by the stage's
     * output), then the deltas of stage s-1's output.
     */
    private void backward(Dataset data, int from, int n, int s, double[] params, double[] grad, int offset) {
        Stage st = stages[s];
        double[] d = deltas[s];
        double[] prev = s == 0 ? null : deltas[s - 1];
        if (st.layer() instanceof Pool) {
            if (s == 0) {
                return;         // no parameters, and nothing before it to pass deltas to
            }
            ConvKernels.unpool(st, n, choices[s], d, prev);
            return;
        }
        int rows = n * st.pixels();
        int units = st.units();
        if (s < stages.length - 1) {
            double[] a = acts[s];
            for (int j = 0; j < rows * units; j++) {
                d[j] *= Math.signum(a[j]);      // through the ReLU: a >= 0, so 1 or 0, and vectorised (a select is not)
            }
        }
        double[] a = st.layer() instanceof Conv ? cols[s] : s == 0 ? data.x() : acts[s - 1];
        int aBase = st.layer() instanceof Conv || s > 0 ? 0 : from * image.size();
        int w = offset + st.offset();
        int b = w + st.fanIn() * units;
        if (st.layer() instanceof Conv c) {
            // dW' += cols^T dZ: the weights' and the biases' gradient in one product (see convolve).
            Gemm.dgemm(true, false, st.patch() + 1, units, rows, 1.0, a, 0, d, 0, 1.0, grad, w);
            if (s > 0) {
                // The patches are no longer needed: their deltas take their place, then go back to pixels.
                Gemm.dgemm(false, true, rows, st.patch() + 1, units, 1.0, d, 0, params, st.offset(), 0.0, cols[s], 0);
                ConvKernels.col2im(st, c.kernel(), n, cols[s], prev);
            }
            return;
        }
        Gemm.dgemm(true, false, st.fanIn(), units, rows, 1.0, a, aBase, d, 0, 1.0, grad, w);   // dW += A^T dZ
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < units; o++) {
                grad[b + o] += d[r * units + o];
            }
        }
        if (s == 0) {
            return;
        }
        Gemm.dgemm(false, true, n, st.fanIn(), units, 1.0, d, 0, params, st.offset(), 0.0, prev, 0);
    }

    @Override
    public int predict(Dataset data, int i, double[] params) {
        int[] c = new int[1];
        predict(data, i, 1, params, c, null);
        return c[0];
    }

    @Override
    public void probabilities(Dataset data, int i, double[] params, double[] out) {
        predict(data, i, 1, params, new int[1], out);
    }

    /** Runs the samples forward a chunk at a time: the class with the largest logit, and the softmax. */
    @Override
    public void predict(Dataset data, int from, int n, double[] params, int[] classesOut, double[] probabilities) {
        for (int at = 0; at < n; at += CHUNK) {
            int m = Math.min(CHUNK, n - at);
            run(data, from + at, m, params);
            Softmax.classify(acts[stages.length - 1], m, classes, classesOut, at, probabilities);
        }
    }

    @Override
    public double accuracy(Dataset data, double[] params) {
        int[] predicted = new int[CHUNK];
        int right = 0;
        for (int from = 0; from < data.samples(); from += CHUNK) {
            int m = Math.min(CHUNK, data.samples() - from);
            predict(data, from, m, params, predicted, null);
            for (int i = 0; i < m; i++) {
                right += predicted[i] == (int) data.y()[from + i] ? 1 : 0;
            }
        }
        return (double) right / data.samples();
    }

    /**
     * Samples run through the layers at once: few enough that a chunk's activations and patches
     * stay in the cache (of 16, 32, 64 and 256, 16 trained fastest: 1.5k samples/s in float64
     * against 1.0k with 256).
     */
    static final int CHUNK = 16;

    private void ensure(int n) {
        if (n <= capacity) {
            return;
        }
        acts = new double[stages.length][];
        deltas = new double[stages.length][];
        cols = new double[stages.length][];
        choices = new int[stages.length][];
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            acts[s] = new double[n * st.out().size()];
            deltas[s] = new double[n * st.out().size()];
            if (st.layer() instanceof Conv) {
                cols[s] = new double[n * st.pixels() * (st.patch() + 1)];
            } else if (st.layer() instanceof Pool) {
                choices[s] = new int[n * st.out().size()];
            }
        }
        capacity = n;
    }
}
