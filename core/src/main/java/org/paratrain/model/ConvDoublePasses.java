package org.paratrain.model;

import org.paratrain.data.Dataset;
import org.paratrain.model.ConvNet.Conv;
import org.paratrain.model.ConvNet.Dense;
import org.paratrain.model.ConvNet.Dropout;
import org.paratrain.model.ConvNet.Pool;
import org.paratrain.model.ConvNet.Shape;
import org.paratrain.model.ConvNet.Stage;

/**
 * The forward and backward passes of a {@link ConvNet} in float64, a chunk of
 * {@value ConvNet#CHUNK} samples at a time, and the forward run inference goes through in
 * either precision.
 *
 * <p>Apart from the network so that the chunk's scratch (activations, deltas, patches and
 * pooling choices) lives beside the loops that use it, as {@link ConvFloatPasses} does for
 * float32, and the two pass classes can be read side by side. One instance a network (a network
 * belongs to one rank): the scratch is grown to the largest chunk and then reused, so a training
 * step allocates nothing.
 */
final class ConvDoublePasses implements ChunkPasses {
    private final Shape image;
    private final Stage[] stages;
    private final boolean[] relu;
    /** A batchnorm stage's inference coefficients from its running statistics ({@link BatchNormArithmetic#running}). */
    private final double[][] runningA;
    private final double[][] runningB;
    private final int classes;
    private double[][] acts = new double[0][];
    private double[][] deltas = new double[0][];
    private double[][] cols = new double[0][];
    private int[][] choices = new int[0][];
    private double[][] factors = new double[0][];   // a dropout stage's mask factors of the chunk
    private final DropoutMasks[] dropouts;          // by stage; null but for dropout stages
    private long seed;
    private long step;
    private long firstRow;
    private int capacity;
    /** The head's training loss: see {@link Model#objective}. */
    Objective objective = Objective.PLAIN;

    ConvDoublePasses(Shape image, Stage[] stages, boolean[] relu, int classes) {
        this.image = image;
        this.stages = stages;
        this.relu = relu;
        this.runningA = new double[stages.length][];
        this.runningB = new double[stages.length][];
        for (int s = 0; s < stages.length; s++) {
            if (stages[s].layer() instanceof ConvNet.BatchNorm) {
                runningA[s] = new double[stages[s].units()];
                runningB[s] = new double[stages[s].units()];
            }
        }
        this.classes = classes;
        this.dropouts = dropouts(stages);
    }

    /** The masks of each dropout stage (null for the other stages). */
    static DropoutMasks[] dropouts(Stage[] stages) {
        DropoutMasks[] d = new DropoutMasks[stages.length];
        for (int s = 0; s < stages.length; s++) {
            if (stages[s].layer() instanceof Dropout r) {
                d[s] = new DropoutMasks(r.rate(), s);
            }
        }
        return d;
    }

    /** The step the next training passes belong to: see {@link Model#trainingStep}. */
    @Override
    public void trainingStep(long seed, long step, long firstRow) {
        this.seed = seed;
        this.step = step;
        this.firstRow = firstRow;
    }

    /** The loss of samples {@code [from, to)}, each chunk's gradient added into {@code grad} in turn. */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        double loss = 0.0;
        for (int at = from; at < to; at += ConvNet.CHUNK) {
            loss += chunkLossAndGradient(data, at, Math.min(to, at + ConvNet.CHUNK), params, grad, offset);
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

    /** The summed loss of samples {@code [from, to)}, a chunk at a time. */
    double loss(Dataset data, int from, int to, double[] params) {
        double loss = 0.0;
        for (int at = from; at < to; at += ConvNet.CHUNK) {
            loss += forward(data, at, Math.min(to - at, ConvNet.CHUNK), params, false);
        }
        return loss;
    }

    /**
     * Runs a chunk forward, keeping every stage's output; returns the summed cross-entropy, and
     * writes the head's deltas (from the same log-sum-exp) if asked.
     */
    private double forward(Dataset data, int from, int n, double[] params, boolean deltasToo) {
        pass(data, from, n, params, deltasToo);
        return head(data, from, n, deltasToo);
    }

    @Override
    public double head(Dataset data, int from, int n) {
        return head(data, from, n, true);
    }

    /** The chunk's summed cross-entropy from its logits; the head's deltas too if asked. */
    private double head(Dataset data, int from, int n, boolean deltasToo) {
        double loss = 0.0;
        double[] z = acts[stages.length - 1];
        double[] d = deltas[stages.length - 1];
        for (int i = 0; i < n; i++) {
            int label = (int) data.y()[from + i];
            double lse = Softmax.logSumExp(z, i * classes, classes);
            double s = data.weight(from + i);       // 1 without sample weights: the same bits
            loss += s * objective.crossEntropy(lse, z, i * classes, classes, label);
            if (deltasToo) {        // the head's deltas from the same log-sum-exp: softmax minus the target
                for (int c = 0; c < classes; c++) {
                    d[i * classes + c] = s * objective.delta(Math.exp(z[i * classes + c] - lse), c, label, classes);
                }
            }
        }
        return loss;
    }

    /** Runs the block through every stage as inference does, leaving the logits in {@link #logits()}. */
    void run(Dataset data, int from, int n, double[] params) {
        pass(data, from, n, params, false);
    }

    /** Runs the block through every stage; in training, the dropout stages drop. */
    private void pass(Dataset data, int from, int n, double[] params, boolean training) {
        for (int s = 0; s < stages.length; s++) {
            forwardStage(s, data, from, n, params, training);
        }
    }

    @Override
    public void forwardStage(int s, Dataset data, int from, int n, double[] params, boolean training) {
        ensure(n);
        Stage st = stages[s];
        double[] in = s == 0 ? data.x() : acts[s - 1];
        int inBase = s == 0 ? from * image.size() : 0;
        double[] out = acts[s];
        switch (st.layer()) {
            case Pool q -> ConvKernels.pool(st, q.size(), n, in, inBase, out, choices[s]);
            case Conv c -> {
                ConvKernels.im2col(st, c.kernel(), n, in, inBase, cols[s]);
                convolve(st, n * st.pixels(), cols[s], params, out, relu[s]);
            }
            case Dense d -> affine(st, n, in, inBase, params, out, relu[s]);
            case Dropout r -> drop(s, data, from, n, in, inBase, out, training);
            case ConvNet.BatchNorm b -> {
                // Inference: the running statistics. Training normalises through normalize().
                BatchNormArithmetic.running(params, st.offset(), st.units(), runningA[s], runningB[s]);
                normalize(s, n, runningA[s], runningB[s]);
            }
        }
    }

    @Override
    public void normSums(int s, int n, double[] shift, double[] s1, double[] s2) {
        BatchNormArithmetic.sums(acts[s - 1], n * stages[s].pixels(), stages[s].units(), shift, s1, s2);
    }

    @Override
    public void normalize(int s, int n, double[] a, double[] b) {
        BatchNormArithmetic.affine(acts[s - 1], acts[s], n * stages[s].pixels(), stages[s].units(), a, b);
    }

    @Override
    public void normGradients(int s, int n, double[] mean, double[] scale, double[] s1, double[] s2) {
        BatchNormArithmetic.gradientSums(acts[s - 1], acts[s], deltas[s], n * stages[s].pixels(), stages[s].units(),
            mean, scale, s1, s2);
    }

    @Override
    public void normBackward(int s, int n, double[] k1, double[] k2, double[] k3) {
        BatchNormArithmetic.backward(acts[s - 1], deltas[s], deltas[s - 1], n * stages[s].pixels(), stages[s].units(),
            k1, k2, k3);
    }

    @Override
    public void backwardStage(int s, Dataset data, int from, int n, double[] params, double[] grad, int offset) {
        backward(data, from, n, s, params, grad, offset);
    }

    /** A dropout stage: {@code out = in x factors} in training, a copy in inference. */
    private void drop(int s, Dataset data, int from, int n, double[] in, int inBase, double[] out, boolean training) {
        int size = stages[s].out().size();
        if (!training) {
            System.arraycopy(in, inBase, out, 0, n * size);
            return;
        }
        double[] f = factors[s];
        for (int i = 0; i < n; i++) {
            dropouts[s].factors(seed, step, firstRow + from + i, size, f, i * size);
        }
        for (int j = 0; j < n * size; j++) {
            out[j] = in[inBase + j] * f[j];
        }
    }

    /** {@return the logits of the last block {@link #run}, n x classes} */
    double[] logits() {
        return acts[stages.length - 1];
    }

    /**
     * A convolution's output, {@code relu(cols W')}: each patch row ends in a 1 and the biases
     * follow the weights in the parameters, so {@code W'} is the weights and biases as they lie
     * and the product adds the biases (and, backward, sums their gradient) itself.
     */
    private static void convolve(Stage st, int rows, double[] cols, double[] params, double[] out, boolean relu) {
        int units = st.units();
        Gemm.dgemm(false, false, rows, units, st.patch() + 1, 1.0, cols, 0, params, st.offset(), 0.0, out, 0);
        if (relu) {
            for (int j = 0; j < rows * units; j++) {
                out[j] = Math.max(out[j], 0.0);
            }
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
        if (st.layer() instanceof ConvNet.BatchNorm) {
            throw new IllegalStateException("batch normalisation's backward pass needs the step's sums: ConvNormSteps");
        }
        double[] d = deltas[s];
        double[] prev = s == 0 ? null : deltas[s - 1];
        if (st.layer() instanceof Dropout) {
            if (s > 0) {        // the same factors the forward pass applied
                double[] f = factors[s];
                for (int j = 0; j < n * st.out().size(); j++) {
                    prev[j] = d[j] * f[j];
                }
            }
            return;
        }
        if (st.layer() instanceof Pool) {
            if (s == 0) {
                return;         // no parameters, and nothing before it to pass deltas to
            }
            ConvKernels.unpool(st, n, choices[s], d, prev);
            return;
        }
        int rows = n * st.pixels();
        int units = st.units();
        if (relu[s]) {
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

    /** Room for chunks of {@code n} samples. */
    private void ensure(int n) {
        if (n <= capacity) {
            return;
        }
        acts = new double[stages.length][];
        deltas = new double[stages.length][];
        cols = new double[stages.length][];
        choices = new int[stages.length][];
        factors = new double[stages.length][];
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            acts[s] = new double[n * st.out().size()];
            deltas[s] = new double[n * st.out().size()];
            if (st.layer() instanceof Conv) {
                cols[s] = new double[n * st.pixels() * (st.patch() + 1)];
            } else if (st.layer() instanceof Pool) {
                choices[s] = new int[n * st.out().size()];
            } else if (st.layer() instanceof Dropout) {
                factors[s] = new double[n * st.out().size()];
            }
        }
        capacity = n;
    }
}
