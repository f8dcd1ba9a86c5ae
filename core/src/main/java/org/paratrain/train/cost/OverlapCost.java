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
 *   exchange:      f_b = max(f_(b-1), ready_b) + A(p, words_b), in the plan's order
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
 * link's fitted machine. It leaves out what the exchange thread and the transport take from the
 * computing core where a host has no core to spare (the step's computation measured with
 * buckets already holds that), and the local level of ranks that share a process.
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
        double t = 0;
        double f = 0;
        int b = 0;
        for (int i = 0; i < shares.length; i++) {
            t += shares[i] * staged * blockSeconds + (double) ownRows * (ranges[2 * i + 1] - ranges[2 * i]) * deposit;
            while (b < buckets.early() && buckets.layer()[b] == i) {
                f = Math.max(f, t) + algorithm.cost(p, sum.valueWords(buckets.hi()[b] - buckets.lo()[b]), m);
                b++;
            }
        }
        double last = Math.max(f, t) + algorithm.cost(p, sum.lossAndValueWords(buckets.rest() + 1L), m)
            + algorithm.cost(p, SumCost.CHECK_WORDS + 1, m);
        return last - t + sum.finishSeconds(1, params + 1L, params + 1L, m);
    }
}
