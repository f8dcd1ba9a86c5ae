package org.paratrain.train;

import java.util.SplittableRandom;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;

/**
 * The steps of an epoch. Full batch: one step, the data as it is. Mini-batch: the samples
 * are visited in an order drawn from {@code seed + epoch}, cut into global batches of a
 * fixed size (the last, short batch is dropped so that every step has the same blocks); each
 * batch is cut into blocks as a data set is, and each rank takes its run of blocks.
 *
 * <p>Neither the order nor the blocks depend on the node count, so p ranks see the same
 * global batches, block for block, as one rank, and the result is the same bits. Each rank
 * copies only its own blocks' rows into a buffer laid out as the whole batch, so block
 * ranges index it directly and no rank touches rows it does not own.
 */
final class Batches {
    private final Dataset data;
    private final int batch;
    private final long seed;
    private final BlockSharding sharding;
    private final int[] order;
    private final double[] bx;
    private final double[] by;
    /** The batch's sample weights, when the data carries them. */
    private final double[] bw;
    private final Dataset view;
    private int firstRow;
    private int endRow;
    /** The epoch whose order {@code order} holds, -1 before the first. */
    private int shuffled = -1;

    /**
     * @param batchSize samples per step, 0 for the whole data set
     * @param total     samples in the whole data set: more than {@code data} holds when a rank
     *                  holds only its shard (full batch only)
     */
    Batches(Dataset data, int total, int batchSize, long seed, int blockSize, int rank, int ranks) {
        this.data = data;
        if (total != data.samples() && batchSize != 0) {
            throw new IllegalArgumentException("mini-batches need every sample on every rank");
        }
        this.batch = batchSize == 0 ? total : batchSize;
        if (batch < 1 || batch > total) {
            throw new IllegalArgumentException("--batch-size must be in [1, " + total + "] (the samples), got "
                + batchSize);
        }
        this.seed = seed;
        this.sharding = BlockSharding.forStep(batch, batchSize, blockSize);
        boolean mini = batchSize != 0;
        this.order = mini ? new int[data.samples()] : null;
        this.bx = mini ? new double[batch * data.features()] : null;
        this.by = mini ? new double[batch] : null;
        this.bw = mini && data.weighted() ? new double[batch] : null;
        this.view = mini ? new Dataset(bx, by, batch, data.features(), bw) : data;
        this.firstRow = sharding.blockStart(sharding.firstBlock(rank, ranks));
        this.endRow = sharding.blockStart(sharding.endBlock(rank, ranks));
    }

    /** From the next step on, this rank gathers rows {@code [from, to)} of each batch (its blocks moved). */
    void own(int from, int to) {
        firstRow = from;
        endRow = to;
    }

    /** Steps per epoch. */
    int steps() {
        return order == null ? 1 : data.samples() / batch;
    }

    /** Samples in every step. */
    int stepSamples() {
        return batch;
    }

    /** The blocks of a step (the same for every step). */
    BlockSharding sharding() {
        return sharding;
    }

    /** The data of step {@code s} of epoch {@code e}, indexed as the step's blocks say. */
    Dataset step(int e, int s) {
        Dataset v = unfilled(e, s);
        gather(s, firstRow, endRow);
        return v;
    }

    /**
     * Step {@code s} of epoch {@code e} before its rows are gathered: the shared step gathers each
     * chunk's rows ({@link #gather}) as it claims the chunk, not the whole batch on every rank.
     */
    Dataset unfilled(int e, int s) {
        if (order == null) {
            return data;
        }
        if (e != shuffled) {
            shuffle(e);     // the epoch's first step, or the first after resuming in the middle of it
            shuffled = e;
        }
        return view;
    }

    /** Copies rows {@code [from, to)} of step {@code s} (of the epoch last prepared) into the step's data set. */
    void gather(int s, int from, int to) {
        if (order == null) {
            return;
        }
        int f = data.features();
        for (int row = from; row < to; row++) {
            int i = order[s * batch + row];
            System.arraycopy(data.x(), i * f, bx, row * f, f);
            by[row] = data.y()[i];
            if (bw != null) {
                bw[row] = data.weights()[i];
            }
        }
    }

    /** Fisher-Yates from a generator seeded by the seed and the epoch: the same order on every rank. */
    private void shuffle(int e) {
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + e);
        for (int i = order.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}
