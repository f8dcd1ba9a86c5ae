package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.comm.Communicator;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * Gradients combined by an allreduce, every rank applying the same update (no weights sent).
 *
 * <p>What is reduced is the table of all blocks' partials, not each rank's sum: one row per
 * block, {@code [loss, gradient...]}, every rank filling its own rows and {@code -0.0}
 * elsewhere. {@code -0.0} is the exact identity of floating-point addition ({@code x + -0.0}
 * is {@code x} for every x, zeros included), so whatever order an algorithm adds in, each
 * entry of the reduced table is exactly one rank's value. Every rank then sums the rows
 * ({@link BlockTableSum}: in block order, or onto the fixed-point grid), the same arithmetic as
 * one rank alone: the same bits at any node count, with any algorithm. The price is a message
 * of {@code blocks x (parameters + 1)} doubles.
 */
final class AllreduceExchange implements GradientExchange {
    private final Communicator comm;
    private final Allreduce allreduce;
    private final int params;
    private final int blocks;
    private final BlockRanges ranges;
    private final double[] table;
    private final double[] total;
    private final BlockTableSum sum;

    AllreduceExchange(Communicator comm, BlockRanges ranges, int params, Allreduce allreduce, Sum sum) {
        this.sum = new BlockTableSum(sum, params);
        this.comm = comm;
        this.allreduce = allreduce;
        this.params = params;
        this.blocks = ranges.sharding().blocks();
        this.ranges = ranges;
        this.table = new double[blocks * (params + 1)];
        this.total = new double[params];
    }

    @Override
    public double[] losses() {
        return table;
    }

    @Override
    public int lossIndex(int k) {
        return (ranges.first(comm.rank()) + k) * (params + 1);
    }

    @Override
    public double[] gradients() {
        return table;
    }

    @Override
    public int gradientOffset(int k) {
        return (ranges.first(comm.rank()) + k) * (params + 1) + 1;
    }

    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        reduceTable();
        int w = params + 1;
        double loss = sum.sum(table, 0, w, table, 1, w, blocks, total);
        for (int j = 0; j < params; j++) {
            total[j] *= scale;
        }
        if (!Double.isNaN(loss)) {
            optimizer.step(weights, total);     // a NaN loss ends the run on every rank; no update
        }
        return loss * scale;
    }

    @Override
    public FixedSum stepSum() {
        return sum.fixed();
    }

    @Override
    public double reduceLoss(double scale) {
        reduceTable();
        return sum.sumLoss(table, 0, params + 1, blocks) * scale;
    }

    /** Fills the rows this rank does not own with -0.0 and reduces the whole table. */
    private void reduceTable() {
        int w = params + 1;
        Arrays.fill(table, 0, ranges.first(comm.rank()) * w, -0.0);
        Arrays.fill(table, ranges.end(comm.rank()) * w, table.length, -0.0);
        allreduce.allreduce(comm, table, 0, table.length);
    }

    @Override
    public String name() {
        return allreduce.name();
    }
}
