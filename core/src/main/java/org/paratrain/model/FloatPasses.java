package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * The forward and backward passes of a {@link MultilayerPerceptron} trained in float32: the
 * parameters and a block's inputs rounded to floats, the products by {@code cblas_sgemm}, the
 * block's gradient widened back into the doubles the exchange sums. The output layer's loss
 * and deltas stay those of the network's {@link DoublePasses}, computed in doubles from the
 * float outputs, so the two precisions share one head.
 *
 * <p>One instance a network (a network belongs to one rank): its buffers are reused.
 */
final class FloatPasses {
    private final MultilayerPerceptron net;
    private final DoublePasses doubles;     // the head, and the double outputs and deltas it reads and writes
    private final float[] paramsF;
    private final float[] gradF;
    private float[] inputsF = new float[0];
    private float[][] actsF = new float[0][];
    private float[][] deltasF = new float[0][];
    private float[][] droppedF = new float[0][];
    private float[][] factorsF = new float[0][];
    private boolean dropping;
    private long seed;
    private long step;
    private long firstRow;
    private int capacityF;

    FloatPasses(MultilayerPerceptron net, DoublePasses doubles) {
        this.net = net;
        this.doubles = doubles;
        this.paramsF = new float[net.parameterCount()];
        this.gradF = new float[net.parameterCount()];
    }

    /** The step the next training passes belong to: see {@link Model#trainingStep}. */
    void trainingStep(long seed, long step, long firstRow) {
        this.seed = seed;
        this.step = step;
        this.firstRow = firstRow;
    }

    /** As the double path, in floats: the loss summed in doubles from the float logits. */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return lossAndGradient(data, from, to, params, grad, offset, null);
    }

    /**
     * As above; with {@code ready}, each layer's gradient is widened into {@code grad} as soon as
     * its backward is done and its range told (the same values, added once each, as the one
     * widening at the end without it).
     */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset,
                           GradientReady ready) {
        int n = to - from;
        double loss = pass(data, from, n, params, true);
        int last = net.widths.length - 1;
        doubles.headDeltas(data, from, n);      // in doubles, from the float outputs forward left there
        double[] d = doubles.outputDeltas();
        float[] dF = deltasF[last];
        for (int j = 0; j < n * net.widths[last]; j++) {
            dF[j] = (float) d[j];
        }
        for (int l = last; l >= 1; l--) {
            backward(n, l);
            if (ready != null) {
                int w = net.offsets[l];
                int end = w + (net.widths[l - 1] + 1) * net.widths[l];
                for (int j = w; j < end; j++) {
                    grad[offset + j] += gradF[j];
                }
                ready.ready(w, end);
            }
        }
        if (ready == null) {
            for (int j = 0; j < gradF.length; j++) {
                grad[offset + j] += gradF[j];
            }
        }
        return loss;
    }

    /** Layer l's gradient into {@link #gradF} (written, not added); then the deltas of layer l-1. */
    private void backward(int n, int l) {
        int in = net.widths[l - 1];
        int out = net.widths[l];
        float[] a = l == 1 ? inputsF : input(l - 1);
        float[] d = deltasF[l];
        int w = net.offsets[l];
        int b = w + in * out;
        Gemm.sgemm(true, false, in, out, n, 1f, a, 0, d, 0, 0f, gradF, w);        // dW = A^T dZ
        java.util.Arrays.fill(gradF, b, b + out, 0f);
        for (int i = 0; i < n; i++) {
            for (int o = 0; o < out; o++) {
                gradF[b + o] += d[i * out + o];
            }
        }
        if (l == 1) {
            return;
        }
        float[] prev = deltasF[l - 1];
        Gemm.sgemm(false, true, n, in, out, 1f, d, 0, paramsF, w, 0f, prev, 0);  // dA = dZ W^T
        if (dropping && net.dropouts[l - 1] != null) {
            float[] f = factorsF[l - 1];
            for (int j = 0; j < n * in; j++) {
                prev[j] *= f[j];
            }
        }
        float[] act = actsF[l - 1];
        for (int j = 0; j < n * in; j++) {
            prev[j] *= (float) net.derivative(act[j]);
        }
    }

    /** The forward pass in floats as inference does, from the parameters and the inputs rounded to floats. */
    double forward(Dataset data, int from, int n, double[] params) {
        return pass(data, from, n, params, false);
    }

    private float[] input(int l) {
        return dropping && net.dropouts[l] != null ? droppedF[l] : actsF[l];
    }

    /** The forward pass in floats, dropping in training. */
    private double pass(Dataset data, int from, int n, double[] params, boolean training) {
        doubles.ensure(n);      // the double buffers hold the outputs and the output deltas
        ensure(n);
        dropping = training;
        for (int j = 0; j < paramsF.length; j++) {
            paramsF[j] = (float) params[j];
        }
        int inputs = net.widths[0];
        double[] x = data.x();
        for (int j = 0; j < n * inputs; j++) {
            inputsF[j] = (float) x[from * inputs + j];
        }
        int last = net.widths.length - 1;
        for (int l = 1; l <= last; l++) {
            int in = net.widths[l - 1];
            int out = net.widths[l];
            float[] a = l == 1 ? inputsF : input(l - 1);
            float[] z = actsF[l];
            int b = net.offsets[l] + in * out;
            for (int i = 0; i < n; i++) {
                System.arraycopy(paramsF, b, z, i * out, out);
            }
            Gemm.sgemm(false, false, n, out, in, 1f, a, 0, paramsF, net.offsets[l], 1f, z, 0);   // Z = A W + b
            if (l < last) {
                for (int j = 0; j < n * out; j++) {
                    z[j] = (float) net.activate(z[j]);
                }
                if (training && net.dropouts[l] != null) {
                    float[] f = factorsF[l];
                    for (int i = 0; i < n; i++) {
                        net.dropouts[l].factors(seed, step, firstRow + from + i, out, f, i * out);
                    }
                    float[] o = droppedF[l];
                    for (int j = 0; j < n * out; j++) {
                        o[j] = z[j] * f[j];
                    }
                }
            }
        }
        // The outputs, widened to doubles: the loss and the output deltas are the double path's.
        float[] z = actsF[last];
        double[] out = doubles.outputs();
        for (int j = 0; j < n * net.widths[last]; j++) {
            out[j] = z[j];
        }
        return doubles.headLoss(data, from, n);
    }

    /** Room for blocks of {@code n} samples. */
    private void ensure(int n) {
        if (n <= capacityF) {
            return;
        }
        inputsF = new float[n * net.widths[0]];
        actsF = new float[net.widths.length][];
        deltasF = new float[net.widths.length][];
        droppedF = new float[net.widths.length][];
        factorsF = new float[net.widths.length][];
        for (int l = 1; l < net.widths.length; l++) {
            actsF[l] = new float[n * net.widths[l]];
            deltasF[l] = new float[n * net.widths[l]];
            if (net.dropouts[l] != null) {
                droppedF[l] = new float[n * net.widths[l]];
                factorsF[l] = new float[n * net.widths[l]];
            }
        }
        capacityF = n;
    }
}
