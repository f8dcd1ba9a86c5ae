package org.paratrain.model;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.paratrain.data.Dataset;

/**
 * A multilayer perceptron: hidden layers with ReLU, tanh or sigmoid, and either a softmax
 * cross-entropy head over K classes (labels 0..K-1) or one output with a squared-error head
 * (regression).
 *
 * <p>Layout of the flat parameters, layer by layer: the weights as an {@code in x out} matrix
 * (row k holds input k's weights to every output), then the {@code out} biases. A block of
 * samples goes through the network as matrices: {@code Z = A W + b} forward,
 * {@code dW = A^T dZ} and {@code dA = dZ W^T} backward, each one matrix product ({@link Gemm}:
 * OpenBLAS through FFM when installed, Java loops otherwise).
 *
 * <p>Numerics: the loss is {@code logsumexp(z) - z_y} with the maximum logit subtracted
 * before exponentiating, and the softmax of the gradient reuses those exponentials.
 * Initialisation is seeded: He (normal, sd sqrt(2/in)) for ReLU, Xavier (uniform,
 * sqrt(6/(in+out))) for tanh and sigmoid; biases start at 0.
 *
 * <p>One instance per rank: it keeps the activations of the current block as scratch, grown
 * to the largest block and then reused, so a training step allocates nothing. The passes and
 * their scratch live in {@code DoublePasses} and {@code FloatPasses}, the softmax arithmetic
 * shared with {@link ConvNet} in {@code Softmax}; this class holds the layout, the
 * initialisation and inference.
 */
public final class MultilayerPerceptron implements Classifier {
    /** Hidden-layer nonlinearity. */
    public enum Activation {
        /** {@code max(0, z)}, with He initialisation. */
        RELU,
        /** {@code tanh(z)}, with Xavier initialisation. */
        TANH,
        /** {@code 1 / (1 + exp(-z))}, with Xavier initialisation. */
        SIGMOID
    }

    /** The output layer and its loss. */
    public enum Head {
        /** K logits, softmax cross-entropy, labels 0..K-1: a classifier. */
        SOFTMAX,
        /** One output, squared error against the target: regression. */
        SQUARED
    }

    /**
     * The arithmetic of training: the forward and backward passes and their matrix products.
     * The parameters, their gradient as the exchange sums it, the optimizer's state and
     * inference stay in double precision either way.
     */
    public enum Precision {
        /** Doubles throughout ({@code cblas_dgemm}). */
        FLOAT64,
        /**
         * Floats for activations, deltas and the block's gradient ({@code cblas_sgemm}): the
         * parameters are rounded to floats at each block, the block's gradient widened back to
         * doubles, so the sum across ranks (any {@code --sum}) and the update are those of the
         * double path and keep their guarantees.
         */
        FLOAT32
    }

    final int[] widths;          // inputs, hidden..., classes
    final int[] offsets;         // where layer l's weights start
    /** Layer l's dropout after its activation, or null (never for the input and the output). */
    final DropoutMasks[] dropouts;
    private final Activation activation;
    private final Head head;
    private final int parameters;
    private final Precision precision;
    /** The float64 passes, and the scratch inference runs through in either precision. */
    private final DoublePasses doubles;
    /** The float32 passes, or null in float64. */
    private final FloatPasses floats;
    /** The softmax head's training loss: plain cross-entropy unless {@link #objective} set weights or smoothing. */
    Objective objective = Objective.PLAIN;

    /**
     * A classifier with a softmax cross-entropy head.
     *
     * @param inputs     features, at least 1
     * @param hidden     widths of the hidden layers, each at least 1 (none: softmax regression)
     * @param classes    K, at least 2
     * @param activation the hidden layers' nonlinearity
     */
    public MultilayerPerceptron(int inputs, int[] hidden, int classes, Activation activation) {
        this(inputs, hidden, classes, activation, Head.SOFTMAX);
    }

    /**
     * A network with either head.
     *
     * @param inputs     features, at least 1
     * @param hidden     widths of the hidden layers, each at least 1
     * @param outputs    K classes for the softmax head, 1 for the squared-error head
     * @param activation the hidden layers' nonlinearity
     * @param head       the output layer and its loss
     */
    public MultilayerPerceptron(int inputs, int[] hidden, int outputs, Activation activation, Head head) {
        this(inputs, hidden, outputs, activation, head, Precision.FLOAT64);
    }

    /**
     * A network with either head, trained in the given precision.
     *
     * @param inputs     features, at least 1
     * @param hidden     widths of the hidden layers, each at least 1
     * @param outputs    K classes for the softmax head, 1 for the squared-error head
     * @param activation the hidden layers' nonlinearity
     * @param head       the output layer and its loss
     * @param precision  the arithmetic of the forward and backward passes
     */
    public MultilayerPerceptron(int inputs, int[] hidden, int outputs, Activation activation, Head head,
                                Precision precision) {
        this(inputs, hidden, outputs, activation, head, precision, new double[hidden.length]);
    }

    /**
     * A network with dropout after its hidden layers: in training, each output of hidden layer
     * l is zeroed with probability {@code dropout[l]} and the others scaled by
     * {@code 1 / (1 - dropout[l])}, with masks that depend on the run's seed, the step and the
     * sample's row alone ({@link Model#trainingStep}), the same at any node count; inference
     * does not drop.
     *
     * @param inputs     features, at least 1
     * @param hidden     widths of the hidden layers, each at least 1
     * @param outputs    K classes for the softmax head, 1 for the squared-error head
     * @param activation the hidden layers' nonlinearity
     * @param head       the output layer and its loss
     * @param precision  the arithmetic of the forward and backward passes
     * @param dropout    the rate after each hidden layer, in [0, 1) (0: none), as many as {@code hidden}
     */
    public MultilayerPerceptron(int inputs, int[] hidden, int outputs, Activation activation, Head head,
                                Precision precision, double[] dropout) {
        this.precision = precision;
        if (dropout.length != hidden.length) {
            throw new IllegalArgumentException("an MLP needs a dropout rate for each of its " + hidden.length
                + " hidden layers, got " + dropout.length);
        }
        dropouts = new DropoutMasks[hidden.length + 2];
        for (int l = 0; l < hidden.length; l++) {
            dropouts[l + 1] = dropout[l] == 0.0 ? null : new DropoutMasks(dropout[l], l + 1);
        }
        int classes = outputs;
        if (inputs < 1 || (head == Head.SOFTMAX ? classes < 2 : classes != 1)) {
            throw new IllegalArgumentException("an MLP needs at least 1 input, and 2 classes (softmax) or 1 output "
                + "(squared error)");
        }
        this.head = head;
        widths = new int[hidden.length + 2];
        widths[0] = inputs;
        for (int l = 0; l < hidden.length; l++) {
            if (hidden[l] < 1) {
                throw new IllegalArgumentException("--layers must be positive widths, got " + hidden[l]);
            }
            widths[l + 1] = hidden[l];
        }
        widths[widths.length - 1] = classes;
        offsets = new int[widths.length];
        int p = 0;
        for (int l = 1; l < widths.length; l++) {
            offsets[l] = p;
            p += widths[l - 1] * widths[l] + widths[l];
        }
        parameters = p;
        this.activation = activation;
        this.doubles = new DoublePasses(this, head);
        this.floats = precision == Precision.FLOAT32 ? new FloatPasses(this, doubles) : null;
    }

    @Override
    public int parameterCount() {
        return parameters;
    }

    @Override
    public String name() {
        return head == Head.SOFTMAX ? "mlp" : "mlp-regression";
    }

    @Override
    public boolean classifies() {
        return head == Head.SOFTMAX;
    }

    @Override
    public double output(Dataset data, int i, double[] params) {
        doubles.forward(data, i, 1, params);
        return doubles.outputs()[0];
    }

    @Override
    public void initialize(double[] params, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Arrays.fill(params, 0.0);
        for (int l = 1; l < widths.length; l++) {
            int in = widths[l - 1];
            int out = widths[l];
            boolean he = activation == Activation.RELU && l < widths.length - 1;
            double sd = Math.sqrt(2.0 / in);
            double limit = Math.sqrt(6.0 / (in + out));
            for (int k = 0; k < in * out; k++) {
                params[offsets[l] + k] = he ? sd * gaussian(rnd) : limit * (2 * rnd.nextDouble() - 1);
            }
        }
    }

    /** Weighs the softmax head's training loss by class and smooths its labels; refused for the squared-error head. */
    @Override
    public void objective(Objective o) {
        if (head != Head.SOFTMAX && !o.plain()) {
            throw new IllegalArgumentException("class weights and label smoothing are for classifiers, not " + name());
        }
        objective = o.forClasses(classes(), name());
    }

    @Override
    public void trainingStep(long seed, long step, long firstRow) {
        doubles.trainingStep(seed, step, firstRow);
        if (floats != null) {
            floats.trainingStep(seed, step, firstRow);
        }
    }

    static double gaussian(SplittableRandom r) {
        double u = r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v);
    }

    /**
     * {@inheritDoc} The last block's backward pass tells each layer's range as it is done, the
     * output layer's first; the other blocks are computed as without {@code ready}.
     */
    @Override
    public void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                       int lossStride, double[] grad, int gradAt, int gradStride, GradientReady ready) {
        LastBlockTells.blocks(parameterCount(), from, to, size, losses, lossAt, lossStride, grad, gradAt, gradStride,
            ready, (s, e, at, tell) -> floats != null ? floats.lossAndGradient(data, s, e, params, grad, at, tell)
                : doubles.lossAndGradient(data, s, e, params, grad, at, tell));
    }

    @Override
    public int[] backwardRanges() {
        int last = widths.length - 1;
        int[] r = new int[2 * last];
        for (int l = last; l >= 1; l--) {
            r[2 * (last - l)] = offsets[l];
            r[2 * (last - l) + 1] = offsets[l] + (widths[l - 1] + 1) * widths[l];
        }
        return r;
    }

    @Override
    public double[] backwardShares() {
        int last = widths.length - 1;
        double[] macs = new double[last + 1];
        double total = 0;
        for (int l = 1; l <= last; l++) {
            macs[l] = (double) widths[l - 1] * widths[l];
            total += macs[l] + (l == 1 ? 1 : 2) * macs[l];        // forward, then backward
        }
        double[] shares = new double[last];
        for (int l = last; l >= 1; l--) {
            shares[last - l] = (l == 1 ? 1 : 2) * macs[l] / total;
        }
        return shares;
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        if (floats != null) {
            return floats.lossAndGradient(data, from, to, params, grad, offset);
        }
        return doubles.lossAndGradient(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return floats != null ? floats.forward(data, from, to - from, params)
            : doubles.forward(data, from, to - from, params);
    }

    /** {@return the arithmetic of training} */
    public Precision precision() {
        return precision;
    }

    @Override
    public int predict(Dataset data, int i, double[] params) {
        doubles.forward(data, i, 1, params);
        double[] z = doubles.outputs();
        int best = 0;
        for (int c = 1; c < widths[widths.length - 1]; c++) {
            if (z[c] > z[best]) {
                best = c;
            }
        }
        return best;
    }

    /**
     * The fraction of samples classified right, computed a chunk of samples at a time: one
     * matrix product per layer per chunk instead of per sample (a sample at a time, 10,000
     * Fashion-MNIST images took seconds; validation after every epoch needs it fast).
     */
    @Override
    public double accuracy(Dataset data, double[] params) {
        int k = widths[widths.length - 1];
        int right = 0;
        for (int from = 0; from < data.samples(); from += CHUNK) {
            int n = Math.min(CHUNK, data.samples() - from);
            doubles.forward(data, from, n, params);
            double[] z = doubles.outputs();
            for (int i = 0; i < n; i++) {
                int best = 0;
                for (int c = 1; c < k; c++) {
                    best = z[i * k + c] > z[i * k + best] ? c : best;
                }
                right += best == (int) data.y()[from + i] ? 1 : 0;
            }
        }
        return (double) right / data.samples();
    }

    /**
     * Runs the samples forward a chunk at a time; each class is the largest logit (as
     * {@link #predict(Dataset, int, double[])}), each probability the softmax by the log-sum-exp
     * (as {@link #probabilities(Dataset, int, double[], double[])}).
     */
    @Override
    public void predict(Dataset data, int from, int n, double[] params, int[] classes, double[] probabilities) {
        for (int at = 0; at < n; at += CHUNK) {
            int m = Math.min(CHUNK, n - at);
            doubles.forward(data, from + at, m, params);
            Softmax.classify(doubles.outputs(), m, widths[widths.length - 1], classes, at, probabilities);
        }
    }

    /** {@return the OpenBLAS kernel the matrix products run (e.g. {@code SkylakeX}), or a note that they run in Java} */
    public static String blasKernel() {
        return Gemm.coreName();
    }

    /** Samples a batched evaluation runs forward at once: large enough for dgemm, small enough for the cache. */
    private static final int CHUNK = 256;

    @Override
    public int classes() {
        return widths[widths.length - 1];
    }

    /** The softmax of the output layer, by the log-sum-exp of the loss. */
    @Override
    public void probabilities(Dataset data, int i, double[] params, double[] out) {
        doubles.forward(data, i, 1, params);
        int k = widths[widths.length - 1];
        double[] z = doubles.outputs();
        double lse = Softmax.logSumExp(z, 0, k);
        for (int c = 0; c < k; c++) {
            out[c] = Math.exp(z[c] - lse);
        }
    }

    double activate(double v) {
        return switch (activation) {
            case RELU -> v > 0 ? v : 0.0;
            case TANH -> Math.tanh(v);
            case SIGMOID -> v >= 0 ? 1 / (1 + Math.exp(-v)) : Math.exp(v) / (1 + Math.exp(v));
        };
    }

    /** The activation's derivative, from its output a. */
    double derivative(double a) {
        return switch (activation) {
            case RELU -> a > 0 ? 1.0 : 0.0;
            case TANH -> 1 - a * a;
            case SIGMOID -> a * (1 - a);
        };
    }
}
