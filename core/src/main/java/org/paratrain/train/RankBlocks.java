package org.paratrain.train;

import org.paratrain.comm.Communicator;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;

/**
 * This rank's blocks of the data: their losses (and gradients) computed into an exchange's
 * tables, and the samples of each class they hold. Its own class because the steps and the
 * run's end both compute blocks, each at its own sharding, while {@link RankTrainer} keeps the loop.
 */
final class RankBlocks {
    private final Communicator comm;
    private final Model model;
    /** Every sample this rank holds: the whole data, or only its shard. */
    private final Dataset data;
    /** The first sample {@link #data} holds: 0, or the start of its shard. */
    private final int origin;
    /** The whole data's blocks (not a mini-batch's): those whose classes this rank counts. */
    private final BlockSharding sharding;

    RankBlocks(Communicator comm, Model model, Dataset data, int origin, BlockSharding sharding) {
        this.comm = comm;
        this.model = model;
        this.data = data;
        this.origin = origin;
        this.sharding = sharding;
    }

    /** Fills this rank's block losses (and gradients when asked) at {@code weights}. */
    void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               boolean gradients) {
        computeBlocks(exchange, ranges, data, weights, gradients, null);
    }

    /** As above, with the gradients, telling {@code ready} (when not null) as the model's layers are done. */
    void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               org.paratrain.model.GradientReady ready) {
        computeBlocks(exchange, ranges, data, weights, true, ready);
    }

    void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               boolean gradients, org.paratrain.model.GradientReady ready) {
        BlockSharding sharding = ranges.sharding();
        int first = ranges.first(comm.rank());
        int end = ranges.end(comm.rank());
        double[] losses = exchange.losses();
        double[] grads = exchange.gradients();
        // The whole data set's blocks, or (for a shard) the same blocks shifted by the shard's start.
        int shift = data == this.data ? origin : 0;
        if (gradients) {
            // A model whose blocks sum statistics with the other ranks' is called by every rank.
            if (end > first || model.sumsStatistics()) {
                // One call for the rank's blocks: consecutive, of one size but for the data's last,
                // at offsets that step evenly (GradientExchange's contract).
                int lossStride = exchange.lossIndex(1) - exchange.lossIndex(0);
                int gradStride = exchange.gradientOffset(1) - exchange.gradientOffset(0);
                if (ready != null) {
                    model.blocks(data, sharding.blockStart(first) - shift, sharding.blockStart(end) - shift,
                        sharding.blockSize(), weights, losses, exchange.lossIndex(0), lossStride, grads,
                        exchange.gradientOffset(0), gradStride, ready);
                } else {
                    model.blocks(data, sharding.blockStart(first) - shift, sharding.blockStart(end) - shift,
                        sharding.blockSize(), weights, losses, exchange.lossIndex(0), lossStride, grads,
                        exchange.gradientOffset(0), gradStride);
                }
            }
            return;
        }
        for (int b = first; b < end; b++) {
            int k = b - first;
            losses[exchange.lossIndex(k)] = model.loss(data, sharding.blockStart(b) - shift, sharding.blockEnd(b) - shift,
                weights);
        }
    }

    /**
     * Samples of each class over every rank's rows: each counts the rows of its own blocks of the
     * whole data, and the counts (whole numbers, exact in any order) are added across ranks.
     */
    long[] classCounts(int classes) {
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size())) - origin;
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size())) - origin;
        double[] counts = new double[classes];
        for (int i = first; i < end; i++) {
            counts[(int) data.y()[i]] += 1;
        }
        Training.sumOverRanks(comm, counts);
        long[] n = new long[classes];
        for (int c = 0; c < classes; c++) {
            n[c] = (long) counts[c];
        }
        return n;
    }
}
