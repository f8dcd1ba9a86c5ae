package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;

/**
 * The part of a step's exchange that the backward pass does not hide, when a fixed-point sum
 * goes in buckets during it ({@code --bucket-size}, {@code OverlappedSum}): what a rank waits
 * for after its blocks.
 *
 * <p>The timeline, from the start of the last block's backward pass (the only one that tells:
 * a bucket is whole once every own block's gradient is final there):
 * <pre>
 *   main thread:   layer i's backward (share_i x the block's seconds), then the own rows'
 *                  deposits of its r x n_i values; bucket b is ready after its lowest layer
 *   exchange:      s_b = max(f_(b-1), ready_b); f_b = s_b + A'(p, words_b), in the plan's order,
 *                  A' the call beside the computation (A after T: a bucket in flight at T does
 *                  the rest of its call at A's pace)
 *   after blocks:  at T (every layer done), the rest, the loss and the check words:
 *                  f = max(f_last, T) + A(p, words_rest) + A(p, 3); then the read-back
 *   exposed:       f - T + n readout
 * </pre>
 * A network that runs only its last block's last {@code k} of {@code c} chunks stage by stage
 * ({@code GradientReady.stagedChunks}; the first go chunk by chunk, telling nothing) starts the
 * timeline at the staged chunks' backward: each layer's time is then {@code k / c} of its share
 * ({@code staged}).
 *
 * <p>The shares come from the model's multiply-adds ({@code Model.backwardShares}), the block's
 * seconds from what a step of the same run computed, A from the algorithm's formula on the
 * link's machine fitted to calls of an idle rank, A' on one fitted to calls made beside a
 * computing thread (equal where none was timed): where a host has no core to spare, the
 * computation takes the core from the calls' waits and the kernel's copies. What the exchange
 * thread takes from the computation is left out (the step's computation measured with buckets
 * already holds it), as is the local level of ranks that share a process.
 *
 * @param algorithm the allreduce each bucket is summed with
 * @param sum       a fixed-point sum (the only kind sent in buckets)
 */
public record OverlapCost(Allreduce algorithm, SumCost sum) {

    /** Checks that both are given and that the sum is a fixed-point one. */
    public OverlapCost {
        if (algorithm == null || sum == null || !sum.sum().fixed()) {
            throw new IllegalArgumentException("an overlapped exchange's cost needs an allreduce and a fixed-point sum");
        }
    }

    /**
     * {@return predicted seconds a step waits for its exchange after its blocks}
     * @param p            processes the allreduce spans, at least 1
     * @param params       the model's parameters
     * @param buckets      the plan, from the same ranges and bucket size as the run's
     * @param shares       each layer's share of a block's computation in its backward pass, in
     *                     backward order (as the ranges the plan was made from)
     * @param blockSeconds seconds of one block's forward and backward pass, deposits left out
     * @param ownRows      the blocks this rank holds, whose rows each layer deposits
     * @param ranges       the model's backward ranges the plan was made from
     * @param m            the link's fitted machine
     */
    public double exposedSeconds(int p, int params, Buckets buckets, double[] shares, double blockSeconds, int ownRows,
                                 int[] ranges, Allreduce.Machine m) {
        return exposedSeconds(p, params, buckets, shares, blockSeconds, 1.0, ownRows, ranges, m);
    }

    /**
     * {@return predicted seconds a step waits for its exchange after its blocks, where the last
     * block runs only a share of its chunks stage by stage}
     * @param p            processes the allreduce spans, at least 1
     * @param params       the model's parameters
     * @param buckets      the plan, from the same ranges and bucket size as the run's
     * @param shares       each layer's share of a block's computation in its backward pass
     * @param blockSeconds seconds of one block's forward and backward pass, deposits left out
     * @param staged       the share of the last block's chunks run stage by stage, in (0, 1]
     *                     (a run's mean over its steps: {@code TrainingResult.RankTimes#stagedShare})
     * @param ownRows      the blocks this rank holds, whose rows each layer deposits
     * @param ranges       the model's backward ranges the plan was made from
     * @param m            the link's fitted machine
     */
    public double exposedSeconds(int p, int params, Buckets buckets, double[] shares, double blockSeconds,
                                 double staged, int ownRows, int[] ranges, Allreduce.Machine m) {
        return exposedSeconds(p, params, buckets, shares, blockSeconds, staged, ownRows, ranges, m, m);
    }

    /**
     * {@return predicted seconds a step waits for its exchange after its blocks, the early buckets
     * priced on the link as a call made beside a computing thread meets it} On a host whose one
     * core the computation holds, such a call gets the core only in turns and takes longer than an
     * idle rank's; the step's rest, after the blocks, meets the link idle.
     * @param p            processes the allreduce spans, at least 1
     * @param params       the model's parameters
     * @param buckets      the plan, from the same ranges and bucket size as the run's
     * @param shares       each layer's share of a block's computation in its backward pass
     * @param blockSeconds seconds of one block's forward and backward pass, deposits left out
     * @param staged       the share of the last block's chunks run stage by stage, in (0, 1]
     * @param ownRows      the blocks this rank holds, whose rows each layer deposits
     * @param ranges       the model's backward ranges the plan was made from
     * @param m            the link's fitted machine, calls made by an idle rank
     * @param beside       the link's fitted machine, calls made beside a computing thread
     */
    public double exposedSeconds(int p, int params, Buckets buckets, double[] shares, double blockSeconds,
                                 double staged, int ownRows, int[] ranges, Allreduce.Machine m,
                                 Allreduce.Machine beside) {
        if (m == null || beside == null) {
            throw new IllegalArgumentException("the overlap's cost needs the link's machine, idle and beside work");
        }
        if (!(staged > 0 && staged <= 1)) {
            throw new IllegalArgumentException("the staged share of a block's chunks must be in (0, 1], got " + staged);
        }
        if (buckets == null || shares == null || ranges == null || shares.length * 2 != ranges.length
            || buckets.hi()[0] != params || buckets.layer()[buckets.early() - 1] >= shares.length) {
            throw new IllegalArgumentException("the overlap's cost needs a bucket plan of these " + params
                + " parameters and a share for each layer");
        }
        if (!(blockSeconds >= 0) || ownRows < 0 || p < 1) {
            throw new IllegalArgumentException("the overlap's cost needs a block time of 0 or more, rows of 0 or more "
                + "and at least one rank, got " + blockSeconds + ", " + ownRows + ", " + p);
        }
        double deposit = sum.conversion().depositSeconds();
        // When each layer's gradient is final, and the blocks' end T.
        double[] ready = new double[shares.length];
        double t = 0;
        for (int i = 0; i < shares.length; i++) {
            t += shares[i] * staged * blockSeconds + (double) ownRows * (ranges[2 * i + 1] - ranges[2 * i]) * deposit;
            ready[i] = t;
        }
        // The early buckets one after another: beside the computation until T, idle after it. A bucket in
        // flight at T has done the share of its call that its time beside the computation allows.
        double f = 0;
        for (int b = 0; b < buckets.early(); b++) {
            long words = sum.valueWords(buckets.hi()[b] - buckets.lo()[b]);
            double start = Math.max(f, ready[buckets.layer()[b]]);
            double busy = algorithm.cost(p, words, beside);
            double idle = algorithm.cost(p, words, m);
            if (start + busy <= t) {
                f = start + busy;
            } else if (start >= t) {
                f = start + idle;
            } else {
                f = t + (1 - (t - start) / busy) * idle;
            }
        }
        double last = Math.max(f, t) + algorithm.cost(p, sum.lossAndValueWords(buckets.rest() + 1L), m)
            + algorithm.cost(p, SumCost.CHECK_WORDS + 1, m);
        return last - t + sum.finishSeconds(1, params + 1L, params + 1L, m);
    }
}
