package org.paratrain.model;

import java.util.Arrays;
import java.util.function.Supplier;
import org.paratrain.data.Dataset;
import org.paratrain.model.ConvNet.Stage;

/**
 * A training step of a {@link ConvNet} with batch normalisation: the rank's blocks go through
 * the network segment by segment, a segment being the stages between two batchnorm stages, and
 * at each batchnorm stage the statistics are summed over the step's blocks on every rank
 * ({@link BatchStatistics}) before any chunk goes on.
 *
 * <p>Two sums a batchnorm stage a step: {@code [M, sum (x - K), sum (x - K)^2]} forward, with
 * {@code K} the running mean before the step (the same on every rank), and
 * {@code [sum g, sum g xhat]} backward ({@link BatchNormArithmetic}). A block's row is its chunks'
 * partial sums added in chunk order, each chunk's in row order: the same whichever rank
 * computes the block, so the totals, the normalised values and the gradient are the same bits
 * at any node count. The chunks are those of the network's other passes
 * ({@value ConvNet#CHUNK} samples from each block's start), and within a segment each chunk
 * goes through every stage before the next chunk starts, while its values are in the cache;
 * so every product has the shapes of a run without batchnorm.
 *
 * <p>Memory: every activation of the rank's step stays until its backward pass (one scratch a
 * chunk), so a step of many samples is refused ({@link #MAX_SAMPLES}); mini-batches are the use.
 *
 * <p>The batch's mean and variance also move the running statistics, which are parameter
 * slots; their new values wait until {@link #afterStep} writes them, after the optimizer's
 * update. One instance a network (a rank).
 */
final class ConvNormSteps {
    /** The most samples a rank's step may hold: every activation of each stays in memory. */
    static final int MAX_SAMPLES = ConvNet.BatchNorm.MAX_STEP_SAMPLES;
    private final Stage[] stages;
    private final Supplier<ChunkPasses> make;
    private ChunkPasses[] chunks = new ChunkPasses[0];
    private int[] chunkFrom = new int[0];
    private int[] chunkSize = new int[0];
    private int[] chunkBlock = new int[0];
    /** Each batchnorm stage's batch mean and {@code 1 / sqrt(var + eps)} of the last step, and M. */
    private final double[][] mean;
    private final double[][] scale;
    /** Each batchnorm stage's K: its running mean before the step. */
    private final double[][] shift;
    private final double[] counts;
    /** Each batchnorm stage's forward coefficients {@code a}, {@code b}, and backward {@code k1, k2, k3}. */
    private final double[][] a;
    private final double[][] b;
    private final double[][] k1;
    private final double[][] k2;
    private final double[][] k3;
    /** Each batchnorm stage's block rows of {@code [sum g, sum g xhat]}: its beta and gamma gradient by block. */
    private final double[][] normGrad;
    /** Each batchnorm stage's running mean and variance after the last step, until {@link #afterStep}. */
    private final double[][] pending;
    private boolean hasPending;
    private double[] rows = new double[0];
    private final double[] total;
    private final double[] s1;
    private final double[] s2;
    BatchStatistics across = BatchStatistics.ALONE;
    private long seed;
    private long step;
    private long firstRow;

    ConvNormSteps(Stage[] stages, Supplier<ChunkPasses> make) {
        this.stages = stages;
        this.make = make;
        int n = stages.length;
        mean = new double[n][];
        scale = new double[n][];
        shift = new double[n][];
        counts = new double[n];
        a = new double[n][];
        b = new double[n][];
        k1 = new double[n][];
        k2 = new double[n][];
        k3 = new double[n][];
        normGrad = new double[n][];
        pending = new double[n][];
        int widest = 0;
        for (int s = 0; s < n; s++) {
            if (normalizes(s)) {
                int c = stages[s].units();
                mean[s] = new double[c];
                scale[s] = new double[c];
                shift[s] = new double[c];
                a[s] = new double[c];
                b[s] = new double[c];
                k1[s] = new double[c];
                k2[s] = new double[c];
                k3[s] = new double[c];
                normGrad[s] = new double[0];
                pending[s] = new double[2 * c];
                widest = Math.max(widest, c);
            }
        }
        total = new double[2 * widest + 1];
        s1 = new double[widest];
        s2 = new double[widest];
    }

    private boolean normalizes(int s) {
        return stages[s].layer() instanceof ConvNet.BatchNorm;
    }

    void trainingStep(long seed, long step, long firstRow) {
        this.seed = seed;
        this.step = step;
        this.firstRow = firstRow;
    }

    /** {@link Model#blocks} for a network with batch normalisation. */
    void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                int lossStride, double[] grad, int gradAt, int gradStride) {
        if (to - from > MAX_SAMPLES) {
            throw new IllegalArgumentException("batchnorm keeps every activation of a rank's step until its backward "
                + "pass: " + (to - from) + " samples a rank are more than " + MAX_SAMPLES + "; give --batch-size");
        }
        int blocks = (int) (((long) to - from + size - 1) / size);
        int m = cut(from, to, size);
        for (int j = 0; j < m; j++) {
            chunks[j].trainingStep(seed, step, firstRow);
            chunks[j].prepare(params, chunks[0]);
        }
        for (int k = 0; k < blocks; k++) {
            losses[lossAt + k * lossStride] = 0.0;
            Arrays.fill(grad, gradAt + k * gradStride, gradAt + k * gradStride + params.length, 0.0);
        }
        for (int s = 0; s < stages.length; s++) {
            if (normalizes(s)) {        // the shift of the sums: the running mean, the same on every rank
                int c = stages[s].units();
                System.arraycopy(params, stages[s].offset() + 2 * c, shift[s], 0, c);
            }
        }
        int last = stages.length - 1;
        // Forward, a segment at a time: stages [begin, s) then the batchnorm stage s's sums.
        int begin = 0;
        for (int s = 0; s <= last; s++) {
            if (normalizes(s)) {
                double[] r = statisticsRows(blocks, s);
                for (int j = 0; j < m; j++) {
                    forward(j, begin, s, data, params);
                    sumInto(r, chunkBlock[j] * (2 * stages[s].units() + 1), j, s);
                }
                statistics(s, blocks, r, params);
                begin = s;      // its normalisation starts the next segment
            }
        }
        for (int j = 0; j < m; j++) {
            forward(j, begin, last + 1, data, params);
            losses[lossAt + chunkBlock[j] * lossStride] += chunks[j].head(data, chunkFrom[j], chunkSize[j]);
        }
        // Backward, a segment at a time: stages (s, end] then the batchnorm stage s's sums.
        int end = last;
        for (int s = last; s >= 0; s--) {
            if (normalizes(s)) {
                int c = stages[s].units();
                if (normGrad[s].length < blocks * 2 * c) {
                    normGrad[s] = new double[blocks * 2 * c];
                }
                double[] r = normGrad[s];
                Arrays.fill(r, 0, blocks * 2 * c, 0.0);
                for (int j = 0; j < m; j++) {
                    backward(j, end, s, data, params, grad, gradAt + chunkBlock[j] * gradStride);
                    Arrays.fill(s1, 0, c, 0.0);
                    Arrays.fill(s2, 0, c, 0.0);
                    chunks[j].normGradients(s, chunkSize[j], mean[s], scale[s], s1, s2);
                    int at = chunkBlock[j] * 2 * c;
                    for (int o = 0; o < c; o++) {
                        r[at + o] += s1[o];
                        r[at + c + o] += s2[o];
                    }
                }
                across.sum(r, blocks, 2 * c, total);
                coefficientsBack(s, params);
                end = s;        // its backward pass starts the next segment
            }
        }
        for (int j = 0; j < m; j++) {
            backward(j, end, -1, data, params, grad, gradAt + chunkBlock[j] * gradStride);
            chunks[j].gradientInto(grad, gradAt + chunkBlock[j] * gradStride);
        }
        for (int s = 0; s <= last; s++) {
            if (normalizes(s)) {
                int c = stages[s].units();
                for (int k = 0; k < blocks; k++) {
                    int row = gradAt + k * gradStride + stages[s].offset();
                    for (int o = 0; o < c; o++) {
                        grad[row + o] = normGrad[s][k * 2 * c + c + o];     // gamma: sum g xhat
                        grad[row + c + o] = normGrad[s][k * 2 * c + o];     // beta: sum g
                    }
                }
            }
        }
    }

    /** Chunk j through stages {@code [begin, end)}: a batchnorm stage normalises by the coefficients of the step. */
    private void forward(int j, int begin, int end, Dataset data, double[] params) {
        for (int s = begin; s < end; s++) {
            if (normalizes(s)) {
                chunks[j].normalize(s, chunkSize[j], a[s], b[s]);
            } else {
                chunks[j].forwardStage(s, data, chunkFrom[j], chunkSize[j], params, true);
            }
        }
    }

    /** Chunk j backward through stages {@code (stop, end]}: a batchnorm stage by the coefficients of the step. */
    private void backward(int j, int end, int stop, Dataset data, double[] params, double[] grad, int offset) {
        for (int s = end; s > stop; s--) {
            if (normalizes(s)) {
                chunks[j].normBackward(s, chunkSize[j], k1[s], k2[s], k3[s]);
            } else {
                chunks[j].backwardStage(s, data, chunkFrom[j], chunkSize[j], params, grad, offset);
            }
        }
    }

    /** The zeroed rows {@code [M, s1, s2]} of stage s, a block each. */
    private double[] statisticsRows(int blocks, int s) {
        int n = blocks * (2 * stages[s].units() + 1);
        if (rows.length < n) {
            rows = new double[n];
        }
        Arrays.fill(rows, 0, n, 0.0);
        return rows;
    }

    /** Chunk j's count and shifted sums of stage s's input, added to its block's row at {@code at}. */
    private void sumInto(double[] r, int at, int j, int s) {
        int c = stages[s].units();
        Arrays.fill(s1, 0, c, 0.0);
        Arrays.fill(s2, 0, c, 0.0);
        chunks[j].normSums(s, chunkSize[j], shift[s], s1, s2);
        r[at] += (double) chunkSize[j] * stages[s].pixels();
        for (int o = 0; o < c; o++) {
            r[at + 1 + o] += s1[o];
            r[at + 1 + c + o] += s2[o];
        }
    }

    /** The step's statistics of stage s over every rank, its coefficients, and the running statistics set aside. */
    private void statistics(int s, int blocks, double[] r, double[] params) {
        int c = stages[s].units();
        across.sum(r, blocks, 2 * c + 1, total);
        double count = total[0];
        counts[s] = count;
        double unbiased = count > 1 ? count / (count - 1) : 1.0;
        double keep = 1 - ConvNet.BatchNorm.MOMENTUM;
        int at = stages[s].offset();
        for (int o = 0; o < c; o++) {
            double d = total[1 + o] / count;
            double var = Math.max(0.0, total[1 + c + o] / count - d * d);
            mean[s][o] = shift[s][o] + d;
            scale[s][o] = 1.0 / Math.sqrt(var + ConvNet.BatchNorm.EPSILON);
            a[s][o] = params[at + o] * scale[s][o];
            b[s][o] = params[at + c + o] - a[s][o] * mean[s][o];
            pending[s][c + o] = keep * params[at + 3 * c + o] + ConvNet.BatchNorm.MOMENTUM * var * unbiased;
        }
        for (int o = 0; o < c; o++) {
            pending[s][o] = keep * params[at + 2 * c + o] + ConvNet.BatchNorm.MOMENTUM * mean[s][o];
        }
        hasPending = true;
    }

    /** Stage s's backward coefficients from the step's {@code [sum g, sum g xhat]} in {@link #total}. */
    private void coefficientsBack(int s, double[] params) {
        int c = stages[s].units();
        double count = counts[s];
        int at = stages[s].offset();
        for (int o = 0; o < c; o++) {
            double dbeta = total[o] / count;
            double dgamma = total[c + o] / count;
            k1[s][o] = params[at + o] * scale[s][o];
            k2[s][o] = k1[s][o] * scale[s][o] * dgamma;
            k3[s][o] = k1[s][o] * (dbeta - scale[s][o] * mean[s][o] * dgamma);
        }
    }

    /** Writes the running statistics of the last step into {@code params}: see {@link Model#afterStep}. */
    void afterStep(double[] params) {
        if (!hasPending) {
            return;
        }
        for (int s = 0; s < stages.length; s++) {
            if (pending[s] != null) {
                int c = stages[s].units();
                System.arraycopy(pending[s], 0, params, stages[s].offset() + 2 * c, 2 * c);
            }
        }
        hasPending = false;
    }

    /** Cuts the blocks of {@code [from, to)} into chunks from each block's start; returns their number. */
    private int cut(int from, int to, int size) {
        int m = 0;
        for (int b = from; b < to; b += size) {
            m += (Math.min(to, b + size) - b + ConvNet.CHUNK - 1) / ConvNet.CHUNK;
        }
        if (chunks.length < m) {
            ChunkPasses[] more = Arrays.copyOf(chunks, m);
            for (int j = chunks.length; j < m; j++) {
                more[j] = make.get();
            }
            chunks = more;
            chunkFrom = new int[m];
            chunkSize = new int[m];
            chunkBlock = new int[m];
        }
        int j = 0;
        for (int b = from, k = 0; b < to; b += size, k++) {
            int end = Math.min(to, b + size);
            for (int at = b; at < end; at += ConvNet.CHUNK) {
                chunkFrom[j] = at;
                chunkSize[j] = Math.min(ConvNet.CHUNK, end - at);
                chunkBlock[j] = k;
                j++;
            }
        }
        return m;
    }
}
