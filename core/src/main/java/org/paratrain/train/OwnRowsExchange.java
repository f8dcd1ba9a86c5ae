package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.comm.Communicator;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * What the one-vector exchanges share: each rank keeps its own blocks' partials, a row of
 * loss then gradient a block, until the step sums them; a fixed-point sum deposits every row
 * on the grid of the step before when it still fits (checked with the sum), else agrees its grid
 * first; a float sum adds the rows in block order.
 */
abstract class OwnRowsExchange implements GradientExchange {
    final Communicator comm;
    final Sum sum;
    final int params;
    final int blocks;
    private final BlockRanges ranges;
    /** How many blocks this rank computes (as {@link #ranges} last said). */
    int owned;
    /** This rank's blocks: a row of loss then gradient each. */
    double[] rows;
    /** The fixed-point accumulator of the loss (index 0) and gradient; null for a float sum. */
    final FixedSum fixed;
    final SumExchange.LossSum lossSum;

    OwnRowsExchange(Communicator comm, BlockRanges ranges, int params, Allreduce allreduce, Sum sum) {
        this.comm = comm;
        this.sum = sum;
        this.params = params;
        this.blocks = ranges.sharding().blocks();
        this.ranges = ranges;
        this.owned = ranges.owned(comm.rank());
        this.rows = new double[Math.max(1, owned) * (params + 1)];
        this.fixed = sum == Sum.FLOAT ? null : new FixedSum(format(sum), 1, params);
        this.lossSum = new SumExchange.LossSum(comm, allreduce, sum, blocks, params + 1);
    }

    /** A rank whose share grew takes a larger table of rows. */
    @Override
    public long guessMisses() {
        return fixed == null ? 0 : fixed.retries();
    }

    @Override
    public FixedSum stepSum() {
        return fixed;
    }

    @Override
    public void rangesMoved() {
        owned = ranges.owned(comm.rank());
        if (owned * (params + 1) > rows.length) {
            rows = new double[owned * (params + 1)];
        }
    }

    static FixedFormat format(Sum sum) {
        return switch (sum) {
            case FIXED_1 -> FixedFormat.ONE_WORD;
            case FIXED_2 -> FixedFormat.TWO_WORDS;
            case FIXED_HALF -> FixedFormat.HALF_WORD;
            case BLOCKS, FLOAT -> throw new IllegalArgumentException("no fixed-point format for the sum " + sum.label());
        };
    }

    @Override
    public double[] losses() {
        return rows;
    }

    @Override
    public int lossIndex(int k) {
        return k * (params + 1);
    }

    @Override
    public double[] gradients() {
        return rows;
    }

    @Override
    public int gradientOffset(int k) {
        return k * (params + 1) + 1;
    }

    /** Agrees the grid (one maximum allreduce by {@code algorithm}) and deposits every own row. */
    void deposit(Allreduce algorithm) {
        fixed.begin(blocks);
        observeRows();
        fixed.agree(comm, algorithm);
        depositRows();
    }

    /**
     * The fixed-point sum of every rank's rows into {@link #fixed}, read with its {@code get}: on
     * the grid the last step agreed when it still fits every rank's values (one allreduce, the
     * words and their check words, and no pass over the rows but the deposit's), else agreed
     * first (the guess's allreduce wasted, then an observing pass and two). The same bits either
     * way: a guess is kept only when it is the grid the agreement gives.
     */
    void sumRows(Allreduce algorithm) {
        fixed.begin(blocks);
        if (fixed.guessGrid()) {
            depositRows();
            fixed.reduce(comm, algorithm);
            if (fixed.guessHeld()) {
                return;
            }
            fixed.retry();
        }
        observeRows();
        fixed.agree(comm, algorithm);
        depositRows();
        fixed.reduce(comm, algorithm);
    }

    /**
     * As {@link #sumRows}, by the halves of the allreduce ({@link FixedSum#reduceInto}): the sums,
     * loss first, written into {@code out} on every rank.
     */
    void sumRowsInto(Allreduce tail, AllreduceHalves halves, double[] out) {
        fixed.begin(blocks);
        if (fixed.guessGrid()) {
            depositRows();
            if (fixed.reduceInto(comm, tail, halves, out, 0)) {
                return;
            }
            fixed.retry();
        }
        observeRows();
        fixed.agree(comm, tail);
        depositRows();
        fixed.reduceInto(comm, tail, halves, out, 0);
    }

    /**
     * As {@link #sumRowsInto}, in one ring ({@link FixedSum#ringInto}): the rows deposited chunk by
     * chunk as the ring's reduce-scatter combines them, no pass of their own.
     */
    void sumRowsByRing(Allreduce tail, double[] out) {
        int w = params + 1;
        int previous = ranges.owned(Math.floorMod(comm.rank() - 1, comm.size()));
        fixed.begin(blocks);
        if (fixed.guessGrid()) {
            if (fixed.ringInto(comm, tail, rows, 0, w, owned, previous, out, 0)) {
                return;
            }
            fixed.retry();
        }
        observeRows();
        fixed.agree(comm, tail);
        fixed.ringInto(comm, tail, rows, 0, w, owned, previous, out, 0);
    }

    /** After a guess that failed: observes, agrees the grid by {@code algorithm}, deposits every row and sums. */
    void agreeAndReduce(Allreduce algorithm) {
        observeRows();
        fixed.agree(comm, algorithm);
        depositRows();
        fixed.reduce(comm, algorithm);
    }

    /** Observes every own row (after {@code begin}). */
    private void observeRows() {
        int w = params + 1;
        for (int k = 0; k < owned; k++) {
            fixed.observe(0, rows, k * w, w);
        }
    }

    private void depositRows() {
        int w = params + 1;
        for (int k = 0; k < owned; k++) {
            fixed.deposit(0, rows, k * w, w);
            fixed.endBlock();
        }
    }

    /** Adds the own rows in block order into {@code total} (loss first). */
    void addRows(double[] total) {
        int w = params + 1;
        Arrays.fill(total, 0.0);
        RowSum.add(rows, 0, w, owned, total, 0, w);
    }

    @Override
    public double reduceLoss(double scale) {
        return lossSum.reduce(rows, owned, scale);
    }
}
