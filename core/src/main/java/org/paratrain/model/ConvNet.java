package org.paratrain.model;

import java.util.List;
import org.paratrain.data.Dataset;

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
 * count. With a {@link BatchNorm} layer a block's gradient depends on the whole step's batch
 * statistics: training then runs stage by stage over the rank's blocks and sums the statistics
 * across ranks block by block ({@code ConvNormSteps}, {@link BatchStatistics}), which keeps the
 * same property.
 *
 * <p>The layout and initialisation live in {@code ConvLayout}, the passes and their scratch
 * in {@code ConvDoublePasses} and {@code ConvFloatPasses}; this class holds the layer types,
 * the API and inference.
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
     * {@code dropout:R}: in training, each value of the layer before (or of the image, first)
     * is zeroed with probability R and the others scaled by {@code 1 / (1 - R)}; the identity
     * in inference. The masks depend on the run's seed, the step and the sample's row alone
     * ({@link DropoutMasks}), so they are the same at any node count.
     *
     * @param rate R, in [0, 1)
     */
    public record Dropout(double rate) implements Layer {
        /** Checks the rate. */
        public Dropout {
            if (!(rate >= 0.0 && rate < 1.0)) {
                throw new IllegalArgumentException("--layers: dropout needs a rate in [0, 1), got " + rate);
            }
        }

        @Override
        public String label() {
            return "dropout:" + rate;
        }
    }

    /**
     * {@code batchnorm}: batch normalisation of the convolution or dense layer before it, per
     * channel, then that layer's ReLU (so {@code conv:32:3,batchnorm} is convolution, batch
     * normalisation, ReLU, as Ioffe and Szegedy place it). In training each channel is
     * normalised by the mean and (biased) variance over every value of the step's batch on
     * every rank, scaled by a learned {@code gamma} and shifted by a learned {@code beta}; in
     * inference by the running mean and variance, updated each step with momentum
     * {@value #MOMENTUM} (the variance unbiased), as PyTorch's {@code BatchNorm2d} does,
     * {@code eps} {@value #EPSILON}.
     *
     * <p>The batch's statistics are sums over the step's blocks, each block's partial sum taken
     * in a fixed order and the blocks' added in block order whichever ranks hold them
     * ({@link BatchStatistics}): so they, and the run, are the same bits at any node count.
     * Parameters: {@code gamma, beta, running mean, running variance}, C of each; the running
     * statistics are not trained (their gradient is 0) but set after each step.
     */
    public record BatchNorm() implements Layer {
        /** The running statistics' momentum: {@code running = (1 - m) running + m batch}. */
        public static final double MOMENTUM = 0.1;
        /** Added to the variance before its square root. */
        public static final double EPSILON = 1e-5;
        /** The most samples a rank's training step may hold: every activation of each stays until its backward pass. */
        public static final int MAX_STEP_SAMPLES = 8192;

        @Override
        public String label() {
            return "batchnorm";
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
    private final int classes;
    private final ConvLayout layout;
    private final MultilayerPerceptron.Precision precision;
    /** The float64 passes, and the forward run inference goes through in either precision. */
    private final ConvDoublePasses doubles;
    /** The float32 passes of training, or null in float64. */
    private final ConvFloatPasses floats;
    /** The staged training step of a network with batchnorm, or null. */
    private ConvNormSteps steps;

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
        layout = new ConvLayout(image, this.layers, classes);
        doubles = new ConvDoublePasses(image, layout.stages, layout.relu, classes);
        floats = precision == MultilayerPerceptron.Precision.FLOAT32
            ? new ConvFloatPasses(this, layout.stages, layout.relu) : null;
        steps = layout.normalises ? normSteps() : null;
    }

    /** The staged step of a network with batchnorm, its chunks in this network's precision and objective. */
    private ConvNormSteps normSteps() {
        boolean f = precision == MultilayerPerceptron.Precision.FLOAT32;
        return new ConvNormSteps(layout.stages, () -> {
            if (f) {
                return new ConvFloatPasses(this, layout.stages, layout.relu);
            }
            ConvDoublePasses d = new ConvDoublePasses(image, layout.stages, layout.relu, classes);
            d.objective = doubles.objective;
            return d;
        });
    }

    /** {@return the arithmetic of training} */
    public MultilayerPerceptron.Precision precision() {
        return precision;
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
        return layout.parameters;
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
        layout.initialize(params, seed);
    }

    @Override
    public void objective(Objective o) {
        doubles.objective = o.forClasses(classes, name());
        if (steps != null) {
            BatchStatistics across = steps.across;
            steps = normSteps();
            steps.across = across;
        }
    }

    /** {@return whether a layer is batchnorm}: then a step's blocks depend on each other's statistics. */
    @Override
    public boolean sumsStatistics() {
        return steps != null;
    }

    @Override
    public void statistics(BatchStatistics across) {
        if (steps != null) {
            steps.across = across;
        }
    }

    @Override
    public void afterStep(double[] params) {
        if (steps != null) {
            steps.afterStep(params);
        }
    }

    /**
     * {@inheritDoc} With batchnorm, every chunk of the blocks goes through each stage before the
     * next and the batch statistics are summed over the step's blocks on every rank
     * ({@link #statistics}); the running statistics move at {@link #afterStep}.
     */
    @Override
    public void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                       int lossStride, double[] grad, int gradAt, int gradStride) {
        if (steps == null) {
            Classifier.super.blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
            return;
        }
        steps.blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
    }

    /**
     * {@inheritDoc} In float32 without batchnorm, the last block goes stage by stage and tells
     * each layer's range as its backward is done ({@link ConvFloatPasses}); the other blocks,
     * float64 and batchnorm are computed as without {@code ready}.
     */
    @Override
    public void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                       int lossStride, double[] grad, int gradAt, int gradStride, GradientReady ready) {
        if (steps != null || floats == null || ready == null) {
            blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
            return;
        }
        LastBlockTells.blocks(parameterCount(), from, to, size, losses, lossAt, lossStride, grad, gradAt, gradStride,
            ready, (s, e, at, tell) -> tell == null ? floats.lossAndGradient(data, s, e, params, grad, at)
                : floats.lossAndGradient(data, s, e, params, grad, at, tell));
    }

    /** {@inheritDoc} Convolutions and dense layers; pooling and activations are left out. */
    @Override
    public double[] backwardShares() {
        return backwardRanges() == null ? null : layout.backwardShares();
    }

    /** {@inheritDoc} Float32 networks without batchnorm only: the others tell nothing before the end. */
    @Override
    public int[] backwardRanges() {
        return steps != null || floats == null ? null : layout.backwardRanges();
    }

    /** {@return the head's training loss (see {@link Model#objective})} */
    Objective objective() {
        return doubles.objective;
    }

    @Override
    public void trainingStep(long seed, long step, long firstRow) {
        if (steps != null) {
            steps.trainingStep(seed, step, firstRow);
        }
        doubles.trainingStep(seed, step, firstRow);
        if (floats != null) {
            floats.trainingStep(seed, step, firstRow);
        }
    }

    /**
     * {@inheritDoc} A range longer than {@value #CHUNK} samples runs a chunk at a time, each
     * chunk's gradient added in turn, so the scratch stays that of one chunk (a convolution's
     * patches take {@code k x k x c} values per output pixel).
     */
    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        if (steps != null) {
            // The range is one batch: its own statistics, as one block of one rank.
            double[] row = new double[parameterCount()];
            double[] loss = new double[1];
            BatchStatistics across = steps.across;
            steps.across = BatchStatistics.ALONE;
            try {
                steps.blocks(data, from, to, Math.max(1, to - from), params, loss, 0, 1, row, 0, row.length);
            } finally {
                steps.across = across;
            }
            for (int j = 0; j < row.length; j++) {
                grad[offset + j] += row[j];
            }
            return loss[0];
        }
        if (floats != null) {
            return floats.lossAndGradient(data, from, to, params, grad, offset);
        }
        return doubles.lossAndGradient(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        if (floats != null) {
            return floats.loss(data, from, to, params);
        }
        return doubles.loss(data, from, to, params);
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
            doubles.run(data, from + at, m, params);
            Softmax.classify(doubles.logits(), m, classes, classesOut, at, probabilities);
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
}
