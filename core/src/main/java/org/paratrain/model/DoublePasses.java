package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * The forward and backward passes of a {@link MultilayerPerceptron} in float64, and the output
 * layer's loss and deltas, which both precisions share: {@link FloatPasses} widens its outputs
 * into {@link #outputs()} and runs {@link #headLoss} and {@link #headDeltas} on them.
 *
 * <p>Apart from the network so that the network keeps its API, its layout and its inference,
 * and the block's scratch lives beside the loops that use it, as {@link FloatPasses} does for
 * float32. One instance a network (a network belongs to one rank): the activations and deltas
 * are grown to the largest block and then reused, so a training step allocates nothing.
 */
final class DoublePasses {
    private final MultilayerPerceptron net;
    private final int[] widths;          // inputs, hidden..., classes
    private final int[] offsets;         // where layer l's weights start
    private final MultilayerPerceptron.Head head;
    private double[][] acts = new double[0][];   // acts[l]: block x widths[l] (acts[0] unused: x itself)
    private double[][] deltas = new double[0][];
    private double[][] dropped = new double[0][];   // a layer with dropout: its outputs times the factors
    private double[][] factors = new double[0][];
    /** Whether the last forward pass dropped (training), so the next layer read {@link #dropped}. */
    private boolean dropping;
    private long seed;
    private long step;
    private long firstRow;
    private int capacity;

    DoublePasses(MultilayerPerceptron net, MultilayerPerceptron.Head head) {
        this.net = net;
        this.widths = net.widths;
        this.offsets = net.offsets;
        this.head = head;
    }

    /** The step the next training passes belong to: see {@link Model#trainingStep}. */
    void trainingStep(long seed, long step, long firstRow) {
        this.seed = seed;
        this.step = step;
        this.firstRow = firstRow;
    }

    /** The block's loss, its gradient added into {@code grad} from {@code offset}. */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return lossAndGradient(data, from, to, params, grad, offset, null);
    }

    /** As above, telling {@code ready} (when not null) each layer's range once its gradient is in {@code grad}. */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset,
                           GradientReady ready) {
        int n = to - from;
        double loss = pass(data, from, n, params, true);
        headDeltas(data, from, n);
        for (int l = widths.length - 1; l >= 1; l--) {
            backward(data, from, n, l, params, grad, offset);
            if (ready != null) {
                ready.ready(net.offsets[l], net.offsets[l] + (widths[l - 1] + 1) * widths[l]);
            }
        }
        return loss;
    }

    /** The output layer's deltas, {@code deltas[last]}, from its outputs {@code acts[last]} and the labels. */
    void headDeltas(Dataset data, int from, int n) {
        int last = widths.length - 1;
        int k = widths[last];
        double[] z = acts[last];
        double[] d = deltas[last];
        for (int i = 0; i < n; i++) {
            double s = data.weight(from + i);       // 1 without sample weights: the same bits
            if (head == MultilayerPerceptron.Head.SQUARED) {
                d[i] = s * (2.0 * (z[i] - data.y()[from + i]));
                continue;
            }
            int label = (int) data.y()[from + i];
            double lse = Softmax.logSumExp(z, i * k, k);
            for (int c = 0; c < k; c++) {
                d[i * k + c] = s * net.objective.delta(Math.exp(z[i * k + c] - lse), c, label, k);
            }
        }
    }

    /** The summed loss of the block from the output layer's {@code acts[last]}. */
    double headLoss(Dataset data, int from, int n) {
        int last = widths.length - 1;
        double loss = 0.0;
        int k = widths[last];
        double[] z = acts[last];
        for (int i = 0; i < n; i++) {
            double s = data.weight(from + i);
            if (head == MultilayerPerceptron.Head.SQUARED) {
                double r = z[i] - data.y()[from + i];
                loss += s * (r * r);
            } else {
                loss += s * net.objective.crossEntropy(Softmax.logSumExp(z, i * k, k), z, i * k, k,
                    (int) data.y()[from + i]);
            }
        }
        return loss;
    }

    /** Gradient of layer l's parameters from deltas[l]; then deltas[l-1] through the activation. */
    private void backward(Dataset data, int from, int n, int l, double[] params, double[] grad, int offset) {
        int in = widths[l - 1];
        int out = widths[l];
        double[] a = l == 1 ? data.x() : input(l - 1);
        int aBase = l == 1 ? from * in : 0;
        double[] d = deltas[l];
        int w = offset + offsets[l];
        int b = w + in * out;
        Gemm.dgemm(true, false, in, out, n, 1.0, a, aBase, d, 0, 1.0, grad, w);        // dW += A^T dZ
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < out; o++) {
                grad[b + o] += d[i * out + o];
            }
        }
        if (l == 1) {
            return;
        }
        double[] prev = deltas[l - 1];
        Gemm.dgemm(false, true, n, in, out, 1.0, d, 0, params, offsets[l], 0.0, prev, 0);  // dA = dZ W^T
        if (dropping && net.dropouts[l - 1] != null) {      // through the factors the forward pass applied
            double[] f = factors[l - 1];
            for (int j = 0; j < n * in; j++) {
                prev[j] *= f[j];
            }
        }
        double[] act = acts[l - 1];
        for (int j = 0; j < n * in; j++) {
            prev[j] *= net.derivative(act[j]);
        }
    }

    /** Runs the block forward as inference does, keeping every layer's output; returns the summed loss. */
    double forward(Dataset data, int from, int n, double[] params) {
        return pass(data, from, n, params, false);
    }

    /** {@return what layer l passes on: its outputs, or in training with dropout those times the factors} */
    private double[] input(int l) {
        return dropping && net.dropouts[l] != null ? dropped[l] : acts[l];
    }

    /** Runs the block forward, dropping in training; returns the summed loss. */
    private double pass(Dataset data, int from, int n, double[] params, boolean training) {
        ensure(n);
        dropping = training;
        int last = widths.length - 1;
        for (int l = 1; l <= last; l++) {
            int in = widths[l - 1];
            int out = widths[l];
            double[] a = l == 1 ? data.x() : input(l - 1);
            int aBase = l == 1 ? from * in : 0;
            double[] z = acts[l];
            int w = offsets[l];
            int b = w + in * out;
            for (int i = 0; i < n; i++) {
                System.arraycopy(params, b, z, i * out, out);
            }
            Gemm.dgemm(false, false, n, out, in, 1.0, a, aBase, params, w, 1.0, z, 0);   // Z = A W + b
            if (l < last) {
                for (int j = 0; j < n * out; j++) {
                    z[j] = net.activate(z[j]);
                }
                if (training && net.dropouts[l] != null) {
                    drop(l, from, n, out);
                }
            }
        }
        return headLoss(data, from, n);
    }

    /** Layer l's outputs times its dropout factors, into {@code dropped[l]}. */
    private void drop(int l, int from, int n, int out) {
        double[] f = factors[l];
        for (int i = 0; i < n; i++) {
            net.dropouts[l].factors(seed, step, firstRow + from + i, out, f, i * out);
        }
        double[] z = acts[l];
        double[] o = dropped[l];
        for (int j = 0; j < n * out; j++) {
            o[j] = z[j] * f[j];
        }
    }

    /** {@return the output layer's values of the last block run forward (n x outputs)} */
    double[] outputs() {
        return acts[widths.length - 1];
    }

    /** {@return the output layer's deltas that {@link #headDeltas} wrote} */
    double[] outputDeltas() {
        return deltas[widths.length - 1];
    }

    /** Room for blocks of {@code n} samples. */
    void ensure(int n) {
        if (n <= capacity) {
            return;
        }
        acts = new double[widths.length][];
        deltas = new double[widths.length][];
        dropped = new double[widths.length][];
        factors = new double[widths.length][];
        for (int l = 1; l < widths.length; l++) {
            acts[l] = new double[n * widths[l]];
            deltas[l] = new double[n * widths[l]];
            if (net.dropouts[l] != null) {
                dropped[l] = new double[n * widths[l]];
                factors[l] = new double[n * widths[l]];
            }
        }
        capacity = n;
    }
}
