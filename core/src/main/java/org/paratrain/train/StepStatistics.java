package org.paratrain.train;

import org.paratrain.collective.Allreduce;
import org.paratrain.comm.Communicator;
import org.paratrain.model.BatchStatistics;

/**
 * A step's statistics summed over every rank's blocks, for batch normalisation: each rank
 * places its blocks' rows in a table of every block of the step (zeros elsewhere), one allreduce
 * gives every rank the whole table, and every rank adds its rows in block order.
 *
 * <p>Why a table and not a sum of each rank's rows: only one rank contributes to each slot, so
 * the allreduce adds zeros alone and every algorithm gives every rank the owner's bits; the sum
 * that follows is then {@link BatchStatistics#inOrder}'s over every block, the bits of a 1-rank
 * run whichever ranks hold the blocks (and after any rebalancing). The table is small: blocks of
 * a step times channels (a batch of 256 in 2 blocks, 64 channels: 130 values).
 *
 * <p>One instance a rank, reused; the table grows once to the largest and stays.
 */
final class StepStatistics implements BatchStatistics {
    private final Communicator comm;
    private final BlockRanges ranges;
    private final Allreduce allreduce;
    private double[] table = new double[0];
    /** Seconds in the allreduces since the last {@link #takeSeconds}: communication, not compute. */
    private double seconds;

    StepStatistics(Communicator comm, BlockRanges ranges, Allreduce allreduce) {
        this.comm = comm;
        this.ranges = ranges;
        this.allreduce = allreduce;
    }

    @Override
    public void sum(double[] rows, int blocks, int width, double[] out) {
        int rank = comm.rank();
        if (blocks != ranges.owned(rank)) {
            throw new IllegalStateException("rank " + rank + " gave " + blocks + " blocks' statistics, it computes "
                + ranges.owned(rank));
        }
        int all = ranges.sharding().blocks();
        int n = Math.multiplyExact(all, width);
        if (table.length < n) {
            table = new double[n];
        }
        java.util.Arrays.fill(table, 0, n, 0.0);
        int at = ranges.first(rank) * width;
        for (int i = 0; i < blocks * width; i++) {
            table[at + i] = rows[i] + 0.0;      // -0.0 as +0.0, as the allreduce's adding of zeros would make it
        }
        double t = comm.wtime();
        allreduce.allreduce(comm, table, 0, n);
        seconds += comm.wtime() - t;
        BatchStatistics.inOrder(table, all, width, out);
    }

    /** {@return the seconds spent in the allreduces since the last call}, and starts counting again */
    double takeSeconds() {
        double s = seconds;
        seconds = 0.0;
        return s;
    }
}
