package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.collective.sum.NonFiniteValueException;
import org.paratrain.data.Dataset;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * The exchange of ranks that share one JVM (the local backend's {@code shared} scheme): a
 * rank takes the step's blocks a chunk at a time as it is ready, instead of a fixed share,
 * so no rank waits for one that is off its core (see {@link BlockBoard}).
 *
 * <p>Bits: each block's row is what {@code Model.blocks} gives for that block, whichever rank
 * computes it (a chunk computed twice gives the same row twice), and the sum runs over the
 * rows in block order: {@link Sum#BLOCKS} and {@link Sum#FLOAT} add them as master-worker's
 * rank 0 does, the fixed-point sums deposit every row as the allreduces do. So a run has the
 * bits of a one-rank run of the same sum, at any node count. Every rank applies the same sum
 * with its own optimizer, as after an allreduce.
 *
 * <p>Call order per step: {@link #data} with the step's samples, then {@link #step}.
 */
final class SharedExchange implements GradientExchange {
    /** Computes the rows of blocks {@code [first, end)} of {@code data} at {@code weights} into {@code table}. */
    @FunctionalInterface
    interface Rows {
        void compute(Dataset data, double[] weights, int first, int end, double[] table);
    }

    private final BlockBoard board;
    private final int rank;
    private final int params;
    private final Rows rows;
    private final double[] table;
    private final double[] gradient;
    private final FixedSum fixed;
    private final BlockBoard.Waiting wait;
    /** The sum when this is the only rank (then the board is not used), else null. */
    private final double[] alone;
    private Dataset data;
    private long step;
    /** This rank's last chunk's time: how long to let a claimed chunk run before computing it again. */
    private long chunkNanos = 20_000;
    /** This rank's last sum's time: how long to let the rank that should sum do it before summing here too. */
    private long reduceNanos;
    private long computeNanos;

    SharedExchange(BlockBoard board, int rank, int blocks, int params, Sum sum, Rows rows) {
        this.board = board;
        this.rank = rank;
        this.params = params;
        this.rows = rows;
        this.fixed = sum == Sum.FLOAT || sum == Sum.BLOCKS ? null
            : new FixedSum(OwnRowsExchange.format(sum), 1, params);
        this.table = board.join(rank, blocks, params + 1, fixed == null ? 0 : fixed.segmentCount());
        this.wait = board.new Waiting();
        this.alone = board.ranks() == 1 ? new double[params + 1] : null;
        this.gradient = new double[params];
    }

    /** Names the samples of the next step. */
    void data(Dataset stepData) {
        this.data = stepData;
    }

    /** {@return seconds this rank spent computing blocks in the last step} */
    double computeSeconds() {
        return computeNanos / 1e9;
    }

    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        long g = step++;
        computeNanos = 0;
        double[] s = alone != null ? alone(weights) : sumOf(g, weights);
        if (alone == null && fixed != null) {
            // Whichever rank summed this step, every rank's sum carries its grids into the next.
            for (int i = 0; i < fixed.segmentCount(); i++) {
                fixed.carry(i, (int) s[params + 1 + i]);
            }
        }
        double loss = s[0];
        if (Double.isNaN(loss)) {
            board.took(rank, g);
            return Double.NaN;     // every rank sees it at this step: the divergence monitor ends the run
        }
        for (int j = 0; j < params; j++) {
            gradient[j] = s[j + 1] * scale;
        }
        board.took(rank, g);
        optimizer.step(weights, gradient);
        return loss * scale;
    }

    /**
     * The published sum of step {@code g}: claims and computes chunks while there are any;
     * computes again those another rank claimed but has not finished after twice a chunk's
     * time; sums once every chunk is done, at once if this rank finished the last, else only if
     * the rank that should has not published within four times this rank's last sum (and 20 us).
     */
    private double[] sumOf(long g, double[] weights) {
        boolean waiting = false;
        long idleSince = 0;
        long allDoneSince = 0;
        while (true) {
            double[] s = board.published(g);
            if (s != null) {
                return s;
            }
            int c = board.claim(g);
            if (c >= 0) {
                if (compute(c, g, weights)) {
                    reduce(g);
                }
                continue;
            }
            long now = System.nanoTime();
            idleSince = idleSince == 0 ? now : idleSince;
            if (board.allDone(g)) {
                allDoneSince = allDoneSince == 0 ? now : allDoneSince;
                if (now - allDoneSince > Math.max(20_000, 4 * reduceNanos)) {
                    reduce(g);
                    idleSince = 0;
                    allDoneSince = 0;
                    continue;
                }
            } else if (now - idleSince > 2 * chunkNanos + 5_000 && redo(g, weights)) {
                reduce(g);
                idleSince = 0;
                continue;
            }
            if (!waiting) {
                wait.begin();
                waiting = true;
            }
            wait.pause(rank == 0 ? 1 : 0, "the blocks or their sum", g);
        }
    }

    /** One rank: every block and the sum here, without the board's claims and marks (0.28 us an epoch on 500 x 1). */
    private double[] alone(double[] weights) {
        long t = System.nanoTime();
        rows.compute(data, weights, 0, board.blocks(), table);
        computeNanos = System.nanoTime() - t;
        sum(alone, true);
        return alone;
    }

    /**
     * Computes {@code chunk} of step {@code g}; returns whether every chunk is then done and the
     * sum not yet published (this rank should make it).
     */
    private boolean compute(int chunk, long g, double[] weights) {
        long t = System.nanoTime();
        rows.compute(data, weights, board.firstBlock(chunk), board.endBlock(chunk), table);
        long d = System.nanoTime() - t;
        computeNanos += d;
        chunkNanos = d;
        board.finish(chunk, g, rank);
        return board.allDone(g) && board.published(g) == null;
    }

    /**
     * Computes every chunk of step {@code g} still unfinished; returns whether all are done and
     * nobody has published the sum yet (this rank should make it).
     */
    private boolean redo(long g, double[] weights) {
        for (int c = 0; c < board.chunks() && board.published(g) == null; c++) {
            if (!board.isDone(c, g)) {
                compute(c, g, weights);
            }
        }
        return board.published(g) == null && board.allDone(g);
    }

    /**
     * Sums the rows of step {@code g} in block order into this rank's buffer of the ring and
     * publishes it. If another rank published first, rows may already be a later step's: the
     * sum (and anything it threw) is then dropped.
     */
    private void reduce(long g) {
        double[] out = board.sumBuffer(rank, g, wait);
        if (out == null) {
            return;     // published by another rank while this one waited on the ring
        }
        long t = System.nanoTime();     // after the ring's wait: the grace is the sum's own time
        try {
            sum(out, false);
        } catch (RuntimeException e) {
            if (board.published(g) == null) {
                throw e;
            }
            return;
        }
        if (fixed != null) {
            for (int i = 0; i < fixed.segmentCount(); i++) {
                out[params + 1 + i] = fixed.carried(i);
            }
        }
        board.publish(rank, g);
        reduceNanos = System.nanoTime() - t;
    }

    /** Sums every row into {@code out}: from this rank's table alone, or from each chunk's winner's. */
    private void sum(double[] out, boolean own) {
        if (fixed == null) {
            addInBlockOrder(out, own);
        } else {
            fixedSum(out, own);
        }
    }

    private void addInBlockOrder(double[] out, boolean own) {
        Arrays.fill(out, 0.0);
        int w = params + 1;
        for (int c = 0; c < board.chunks(); c++) {
            double[] t = own ? table : board.tableOf(c);
            int first = board.firstBlock(c);
            RowSum.add(t, first * w, w, board.endBlock(c) - first, out, 0, w);
        }
    }

    private void fixedSum(double[] out, boolean own) {
        int w = params + 1;
        try {
            fixed.begin(board.blocks());
            for (int c = 0; c < board.chunks(); c++) {
                double[] t = own ? table : board.tableOf(c);
                for (int b = board.firstBlock(c); b < board.endBlock(c); b++) {
                    fixed.observe(0, t, b * w, w);
                }
            }
            fixed.fixGrid();
            for (int c = 0; c < board.chunks(); c++) {
                double[] t = own ? table : board.tableOf(c);
                for (int b = board.firstBlock(c); b < board.endBlock(c); b++) {
                    fixed.deposit(0, t, b * w, w);
                    fixed.endBlock();
                }
            }
            out[0] = fixed.get(0);
            fixed.get(1, out, 1, params);
        } catch (NonFiniteValueException e) {
            out[0] = Double.NaN;
        }
    }

    @Override
    public double[] losses() {
        return table;
    }

    @Override
    public int lossIndex(int k) {
        return k * (params + 1);
    }

    @Override
    public double[] gradients() {
        return table;
    }

    @Override
    public int gradientOffset(int k) {
        return k * (params + 1) + 1;
    }

    @Override
    public FixedSum stepSum() {
        return fixed;
    }

    /** Not used: the loss at the final weights goes through an allreduce of block losses. */
    @Override
    public double reduceLoss(double scale) {
        throw new UnsupportedOperationException("the shared exchange sums the final loss by allreduce");
    }

    @Override
    public String name() {
        return ExchangeSpec.SHARED.label();
    }
}
