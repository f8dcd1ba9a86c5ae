package org.paratrain.model;

import java.util.Arrays;
import org.paratrain.data.Dataset;
import org.paratrain.model.ConvNet.Conv;
import org.paratrain.model.ConvNet.Dense;
import org.paratrain.model.ConvNet.Dropout;
import org.paratrain.model.ConvNet.Pool;
import org.paratrain.model.ConvNet.Stage;

/**
 * The forward and backward passes of a {@link ConvNet} trained in float32: the parameters
 * and a chunk's images rounded to floats, im2col, pooling and the products
 * ({@code cblas_sgemm}) in floats, the block's gradient widened back into the doubles the
 * exchange sums. The head's loss and deltas are computed in doubles from the float logits,
 * as {@link FloatPasses} does for the MLP. Inference stays in doubles.
 *
 * <p>The passes mirror {@link ConvDoublePasses} line for line: a float kernel in Java
 * has to be written for floats for the JIT to vectorise it over eight or sixteen lanes.
 *
 * <p>One instance a network (a network belongs to one rank): its buffers are reused.
 */
final class ConvFloatPasses implements ChunkPasses {
    private final ConvNet net;
    private final Stage[] stages;
    private final boolean[] relu;
    /** A batchnorm stage's inference coefficients from its running statistics ({@link BatchNormArithmetic#running}). */
    private final double[][] runningA;
    private final double[][] runningB;
    /** The parameters last rounded: inference's batchnorm reads its running statistics in double from them. */
    private double[] lastParams;
    private float[] paramsF = new float[0];     // made at the first pass: counting parameters builds a network too
    private float[] gradF = new float[0];
    private float[] inputsF = new float[0];
    private float[][] acts = new float[0][];
    private float[][] deltas = new float[0][];
    private float[][] cols = new float[0][];
    private int[][] choices = new int[0][];
    private float[][] factors = new float[0][];
    private int capacity;
    /**
     * The scratch of each chunk of a block passed stage by stage ({@link #lossAndGradient(Dataset,
     * int, int, double[], double[], int, GradientReady)}); the fields above are the one in use.
     */
    private Scratch[] sets = new Scratch[0];
    private int current;
    private final DropoutMasks[] dropouts;
    private long seed;
    private long step;
    private long firstRow;

    /** One chunk's activations, deltas, patches, pooling choices and dropout factors. */
    private static final class Scratch {
        float[] inputsF = new float[0];
        float[][] acts = new float[0][];
        float[][] deltas = new float[0][];
        float[][] cols = new float[0][];
        int[][] choices = new int[0][];
        float[][] factors = new float[0][];
        int capacity;
    }

    ConvFloatPasses(ConvNet net, Stage[] stages, boolean[] relu) {
        this.net = net;
        this.stages = stages;
        this.relu = relu;
        this.dropouts = ConvDoublePasses.dropouts(stages);
        runningA = new double[stages.length][];
        runningB = new double[stages.length][];
        for (int s = 0; s < stages.length; s++) {
            if (stages[s].layer() instanceof ConvNet.BatchNorm) {
                runningA[s] = new double[stages[s].units()];
                runningB[s] = new double[stages[s].units()];
            }
        }
    }

    /** The step the next training passes belong to: see {@link Model#trainingStep}. */
    @Override
    public void trainingStep(long seed, long step, long firstRow) {
        this.seed = seed;
        this.step = step;
        this.firstRow = firstRow;
    }

    /** As the double path, a chunk at a time, in floats: the block's gradient added to {@code grad} once. */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        round(params);
        Arrays.fill(gradF, 0f);
        double loss = 0.0;
        for (int at = from; at < to; at += ConvNet.CHUNK) {
            loss += wholeChunk(data, at, Math.min(to - at, ConvNet.CHUNK));
        }
        for (int j = 0; j < gradF.length; j++) {
            grad[offset + j] += gradF[j];
        }
        return loss;
    }

    /**
     * As {@link #lossAndGradient(Dataset, int, int, double[], double[], int)}, its last chunks
     * stage by stage: the first chunks each forward and back as without {@code ready}; then the
     * last {@link GradientReady#stagedChunks} chunks forward, then each stage's backward over those
     * chunks in turn, the stage's gradient widened into {@code grad} and its range told to
     * {@code ready} before the next stage. Each stage adds its chunks' products into
     * {@link #gradF} in chunk order, as the chunk-by-chunk pass does, and stages own disjoint
     * ranges: the same bits, however many chunks are staged. The price: one scratch a staged
     * chunk, where the chunk-by-chunk pass keeps one, and every staged chunk's data read again at
     * each stage; what it buys: the backward left after a layer is told (the staged chunks' lower
     * stages), which hides that layer's exchange. Once {@code ready} waits for nothing more
     * ({@link GradientReady#waiting}), the stages left go chunk by chunk.
     */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset,
                           GradientReady ready) {
        round(params);
        Arrays.fill(gradF, 0f);
        int m = (to - from + ConvNet.CHUNK - 1) / ConvNet.CHUNK;
        if (sets.length < m) {
            Scratch[] more = Arrays.copyOf(sets, m);
            for (int c = sets.length; c < m; c++) {
                more[c] = new Scratch();
            }
            if (sets.length == 0) {
                save(more[0]);          // the scratch in use becomes chunk 0's
                current = 0;
            }
            sets = more;
        }
        // The first chunks go whole, each forward and back while in cache; the last k are staged.
        int k = Math.clamp(ready.stagedChunks(m), 1, m);
        double loss = 0.0;
        use(0);
        for (int c = 0; c < m - k; c++) {
            int at = from + c * ConvNet.CHUNK;
            loss += wholeChunk(data, at, Math.min(to - at, ConvNet.CHUNK));
        }
        for (int c = m - k; c < m; c++) {
            use(c);
            int at = from + c * ConvNet.CHUNK;
            loss += forward(data, at, Math.min(to - at, ConvNet.CHUNK), true);
        }
        int s = stages.length - 1;
        int untold = gradF.length;          // parameters [0, untold) not yet widened and told
        for (; s >= 0 && ready.waiting(); s--) {
            for (int c = m - k; c < m; c++) {
                use(c);
                backward(Math.min(to - from - c * ConvNet.CHUNK, ConvNet.CHUNK), s);
            }
            Stage st = stages[s];
            if (st.layer() instanceof Conv || st.layer() instanceof Dense) {
                int w = st.offset();
                int end = w + (st.fanIn() + 1) * st.units();
                for (int j = w; j < end; j++) {
                    grad[offset + j] += gradF[j];
                }
                untold = Math.min(untold, w);
                ready.ready(w, end);
            }
        }
        if (s >= 0) {
            // No early bucket waits any more: the stages left go chunk by chunk, each chunk's data
            // used by every stage in turn while in cache. Each stage still adds its chunks in
            // chunk order into its own range: the same bits. Told nothing; final at the end.
            for (int c = m - k; c < m; c++) {
                use(c);
                for (int t = s; t >= 0; t--) {
                    backward(Math.min(to - from - c * ConvNet.CHUNK, ConvNet.CHUNK), t);
                }
            }
            for (int j = 0; j < untold; j++) {
                grad[offset + j] += gradF[j];
            }
        }
        use(0);
        return loss;
    }

    /** One chunk forward and back through every stage, its products added into {@link #gradF}: its loss. */
    private double wholeChunk(Dataset data, int at, int n) {
        double loss = forward(data, at, n, true);
        for (int s = stages.length - 1; s >= 0; s--) {
            backward(n, s);
        }
        return loss;
    }

    /** Makes chunk {@code c}'s scratch the one in use, keeping the one in use (which {@link #ensure} may have grown). */
    private void use(int c) {
        if (sets.length == 0 || c == current) {
            return;
        }
        save(sets[current]);
        load(sets[c]);
        current = c;
    }

    private void save(Scratch s) {
        s.inputsF = inputsF;
        s.acts = acts;
        s.deltas = deltas;
        s.cols = cols;
        s.choices = choices;
        s.factors = factors;
        s.capacity = capacity;
    }

    private void load(Scratch s) {
        inputsF = s.inputsF;
        acts = s.acts;
        deltas = s.deltas;
        cols = s.cols;
        choices = s.choices;
        factors = s.factors;
        capacity = s.capacity;
    }

    /** The summed loss of samples {@code [from, to)} from the float forward pass. */
    double loss(Dataset data, int from, int to, double[] params) {
        round(params);
        double loss = 0.0;
        for (int at = from; at < to; at += ConvNet.CHUNK) {
            loss += forward(data, at, Math.min(to - at, ConvNet.CHUNK), false);
        }
        return loss;
    }

    @Override
    public void prepare(double[] params, ChunkPasses first) {
        if (first == this) {
            round(params);
        } else {
            paramsF = ((ConvFloatPasses) first).paramsF;
            if (gradF.length != paramsF.length) {
                gradF = new float[paramsF.length];
            }
        }
        Arrays.fill(gradF, 0f);
    }

    @Override
    public void gradientInto(double[] grad, int offset) {
        for (int j = 0; j < gradF.length; j++) {
            grad[offset + j] += gradF[j];
        }
    }

    private void round(double[] params) {
        lastParams = params;
        if (paramsF.length != net.parameterCount()) {
            paramsF = new float[net.parameterCount()];
            gradF = new float[net.parameterCount()];
        }
        for (int j = 0; j < paramsF.length; j++) {
            paramsF[j] = (float) params[j];
        }
    }

    /** Runs n samples forward; returns their summed cross-entropy, and leaves the head's deltas if asked. */
    private double forward(Dataset data, int from, int n, boolean deltasToo) {
        for (int s = 0; s < stages.length; s++) {
            stage(s, data, from, n, deltasToo, null);
        }
        return head(data, from, n, deltasToo);
    }

    @Override
    public void forwardStage(int s, Dataset data, int from, int n, double[] params, boolean training) {
        stage(s, data, from, n, training, params);
    }

    /** Stage s forward; a batchnorm stage by the running statistics of {@code params} (inference), or of the rounded ones. */
    private void stage(int s, Dataset data, int from, int n, boolean training, double[] params) {
        ensure(n);
        Stage st = stages[s];
        if (s == 0) {
            int size = net.image().size();
            double[] x = data.x();
            for (int j = 0; j < n * size; j++) {
                inputsF[j] = (float) x[from * size + j];
            }
        }
        float[] in = s == 0 ? inputsF : acts[s - 1];
        switch (st.layer()) {
            case Pool q -> ConvKernels.pool(st, q.size(), n, in, acts[s], choices[s]);
            case Conv c -> {
                ConvKernels.im2col(st, c.kernel(), n, in, cols[s]);
                convolve(st, n * st.pixels(), cols[s], acts[s], relu[s]);
            }
            case Dense d -> affine(st, n, in, acts[s], relu[s]);
            case Dropout r -> drop(s, from, n, in, acts[s], training);
            case ConvNet.BatchNorm b -> {
                // Inference: the running statistics, from the doubles the rounded parameters came from.
                if (params == null) {
                    params = lastParams;
                }
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
        backward(n, s);
    }

    @Override
    public double head(Dataset data, int from, int n) {
        return head(data, from, n, true);
    }

    /** The head in doubles, from the float logits: the summed loss, and the deltas if asked. */
    private double head(Dataset data, int from, int n, boolean deltasToo) {
        int k = net.classes();
        float[] z = acts[stages.length - 1];
        float[] d = deltas[stages.length - 1];
        double loss = 0.0;
        Objective o = net.objective();
        for (int i = 0; i < n; i++) {
            int label = (int) data.y()[from + i];
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < k; c++) {
                max = Math.max(max, z[i * k + c]);
            }
            double sum = 0.0;
            for (int c = 0; c < k; c++) {
                sum += Math.exp(z[i * k + c] - max);
            }
            double lse = max + Math.log(sum);
            double s = data.weight(from + i);       // 1 without sample weights: the same bits
            loss += s * o.crossEntropy(lse, z, i * k, k, label);
            if (deltasToo) {
                for (int c = 0; c < k; c++) {
                    d[i * k + c] = (float) (s * o.delta(Math.exp(z[i * k + c] - lse), c, label, k));
                }
            }
        }
        return loss;
    }

    /** As {@link ConvDoublePasses}'s: {@code out = in x factors} in training, a copy otherwise. */
    private void drop(int s, int from, int n, float[] in, float[] out, boolean training) {
        int size = stages[s].out().size();
        if (!training) {
            System.arraycopy(in, 0, out, 0, n * size);
            return;
        }
        float[] f = factors[s];
        for (int i = 0; i < n; i++) {
            dropouts[s].factors(seed, step, firstRow + from + i, size, f, i * size);
        }
        for (int j = 0; j < n * size; j++) {
            out[j] = in[j] * f[j];
        }
    }

    /** As {@link ConvDoublePasses}'s: the biases come in through each patch row's trailing 1. */
    private void convolve(Stage st, int rows, float[] cols, float[] out, boolean relu) {
        int units = st.units();
        Gemm.sgemm(false, false, rows, units, st.patch() + 1, 1f, cols, 0, paramsF, st.offset(), 0f, out, 0);
        if (relu) {
            for (int j = 0; j < rows * units; j++) {
                out[j] = Math.max(out[j], 0f);
            }
        }
    }

    private void affine(Stage st, int rows, float[] a, float[] out, boolean relu) {
        int units = st.units();
        int b = st.offset() + st.fanIn() * units;
        Gemm.sgemm(false, false, rows, units, st.fanIn(), 1f, a, 0, paramsF, st.offset(), 0f, out, 0);
        for (int r = 0; r < rows; r++) {
            int at = r * units;
            if (relu) {
                for (int o = 0; o < units; o++) {
                    out[at + o] = Math.max(out[at + o] + paramsF[b + o], 0f);
                }
            } else {
                for (int o = 0; o < units; o++) {
                    out[at + o] += paramsF[b + o];
                }
            }
        }
    }

    /** Stage s's gradient added into {@link #gradF}, then the deltas of stage s-1's output. */
    private void backward(int n, int s) {
        Stage st = stages[s];
        if (st.layer() instanceof ConvNet.BatchNorm) {
            throw new IllegalStateException("batch normalisation's backward pass needs the step's sums: ConvNormSteps");
        }
        float[] d = deltas[s];
        float[] prev = s == 0 ? null : deltas[s - 1];
        if (st.layer() instanceof Dropout) {
            if (s > 0) {
                float[] f = factors[s];
                for (int j = 0; j < n * st.out().size(); j++) {
                    prev[j] = d[j] * f[j];
                }
            }
            return;
        }
        if (st.layer() instanceof Pool) {
            if (s == 0) {
                return;
            }
            ConvKernels.unpool(st, n, choices[s], d, prev);
            return;
        }
        int rows = n * st.pixels();
        int units = st.units();
        if (relu[s]) {
            float[] a = acts[s];
            for (int j = 0; j < rows * units; j++) {
                d[j] *= Math.signum(a[j]);
            }
        }
        float[] a = st.layer() instanceof Conv ? cols[s] : s == 0 ? inputsF : acts[s - 1];
        int w = st.offset();
        int b = w + st.fanIn() * units;
        if (st.layer() instanceof Conv c) {
            Gemm.sgemm(true, false, st.patch() + 1, units, rows, 1f, a, 0, d, 0, 1f, gradF, w);
            if (s > 0) {
                Gemm.sgemm(false, true, rows, st.patch() + 1, units, 1f, d, 0, paramsF, w, 0f, cols[s], 0);
                ConvKernels.col2im(st, c.kernel(), n, cols[s], prev);
            }
            return;
        }
        Gemm.sgemm(true, false, st.fanIn(), units, rows, 1f, a, 0, d, 0, 1f, gradF, w);
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < units; o++) {
                gradF[b + o] += d[r * units + o];
            }
        }
        if (s == 0) {
            return;
        }
        Gemm.sgemm(false, true, n, st.fanIn(), units, 1f, d, 0, paramsF, w, 0f, prev, 0);
    }

    private void ensure(int n) {
        if (n <= capacity) {
            return;
        }
        inputsF = new float[n * net.image().size()];
        acts = new float[stages.length][];
        deltas = new float[stages.length][];
        cols = new float[stages.length][];
        choices = new int[stages.length][];
        factors = new float[stages.length][];
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            acts[s] = new float[n * st.out().size()];
            deltas[s] = new float[n * st.out().size()];
            if (st.layer() instanceof Conv) {
                cols[s] = new float[n * st.pixels() * (st.patch() + 1)];
            } else if (st.layer() instanceof Pool) {
                choices[s] = new int[n * st.out().size()];
            } else if (st.layer() instanceof Dropout) {
                factors[s] = new float[n * st.out().size()];
            }
        }
        capacity = n;
    }
}
