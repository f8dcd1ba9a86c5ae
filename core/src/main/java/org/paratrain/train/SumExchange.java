package org.paratrain.train;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.HierarchicalAllreduce;
import org.paratrain.collective.RecursiveDoublingAllreduce;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.collective.sum.NonFiniteValueException;
import org.paratrain.comm.Communicator;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * An allreduce of one vector, the loss and the gradient summed over every block of the step,
 * whatever the number of blocks: the traffic of a plain allreduce.
 *
 * <p>With a fixed-point sum ({@link Sum#FIXED_1}, {@link Sum#FIXED_2}) each rank keeps its own
 * blocks' partials until the grid is known, deposits them into integer words, and the words are
 * summed by the allreduce: exact, so the same bits at any node count and with any algorithm. The
 * grid is the last step's where it still fits (checked inside the same allreduce), else agreed
 * by one allreduce of two words first ({@link OwnRowsExchange#sumRows}). With {@link Sum#FLOAT} each rank adds its blocks' partials in
 * order and the doubles are summed: the bits then depend on the node count (the baseline that
 * shows what reproducibility costs).
 *
 * <p>From {@link #BY_HALVES} values on, with an allreduce that comes in halves (ring,
 * rabenseifner, native) between processes of one rank each, a fixed-point sum goes by halves
 * ({@link FixedSum#reduceInto}): the check words first, then the words reduce-scattered and
 * each rank converting only its own chunk, the doubles allgathered; the ring's reduce-scatter
 * deposits the rows as it combines them ({@link FixedSum#ringInto}). One small round more, for
 * a conversion divided by the rank count and fewer passes over memory: worth it on long vectors
 * only, and the same bits.
 */
final class SumExchange extends OwnRowsExchange {
    /**
     * The least vector (loss and gradient) summed by halves or in one ring. On shared memory the
     * ring already wins from about 8,192 values (bench collectives --fixed-only --fixed-values N);
     * across a link its one round more costs a link latency (0.12 ms of the CNN's 1.7 over the
     * unshaped emulated link, which the cost model prices: {@code AllreduceCost.goesByHalves}).
     */
    static final int BY_HALVES = org.paratrain.train.cost.AllreduceCost.BY_HALVES;
    private final Allreduce allreduce;
    /** The halves of {@link #allreduce}, when the sum goes by halves; else null. */
    private final AllreduceHalves halves;
    /** The small allreduce of the check words in one ring: latency is all it costs, recursive doubling has the least. */
    private final Allreduce checkWords = new RecursiveDoublingAllreduce();
    /** The sum, loss first (a float sum, and a fixed one by halves or in one ring). */
    private final double[] total;
    private final double[] gradient;
    /** The bucketed sum during backward, or null ({@link #overlapBuckets}). */
    private OverlappedSum overlapped;
    /** Whether this step's buckets went out during the blocks. */
    private boolean overlapping;

    SumExchange(Communicator comm, BlockRanges ranges, int params, Allreduce allreduce, Sum sum) {
        super(comm, ranges, params, allreduce, sum);
        this.allreduce = allreduce;
        this.total = new double[params + 1];
        this.gradient = new double[params];
        // Half words share a word between two values: no chunked way (FixedSum#reduceInto), the plain one.
        this.halves = !(allreduce instanceof HierarchicalAllreduce)
            && org.paratrain.train.cost.AllreduceCost.goesByHalves(sum, params + 1L, allreduce.name())
            ? AllreduceHalves.create(allreduce.name()) : null;
    }

    /**
     * Sends the gradient in buckets of at least {@code bucket} parameters while the backward pass
     * runs, for a fixed-point sum and a model that tells its layers ({@code ranges}, see
     * {@link OverlappedSum}); the same bits as without.
     *
     * @return the number of buckets, or 0 when there is nothing to overlap (one bucket, a float
     *         sum, a model that tells nothing)
     */
    int overlapBuckets(int[] ranges, int bucket) {
        overlapped = fixed == null ? null : OverlappedSum.plan(comm, allreduce, fixed, params, ranges, bucket);
        return overlapped == null ? 0 : overlapped.buckets();
    }

    @Override
    public org.paratrain.model.GradientReady overlap() {
        overlapping = overlapped != null && overlapped.begin(blocks, rows, owned, params + 1);
        return overlapping ? overlapped : null;
    }

    /** {@return the bucketed sum, or null: for tests} */
    @Override
    public double[] stagedShares() {
        return overlapped == null ? new double[2] : overlapped.stagedShares();
    }

    OverlappedSum overlapped() {
        return overlapped;
    }

    @Override
    public void close() {
        if (overlapped != null) {
            overlapped.close();
        }
    }

    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        double loss;
        try {
            if (overlapping) {
                overlapping = false;
                if (!overlapped.finish()) {
                    agreeAndReduce(allreduce);         // the guess failed: as the plain way's retry
                }
                fixed.get(1, gradient, 0, params);
                loss = fixed.get(0);
                for (int j = 0; j < params; j++) {
                    gradient[j] *= scale;
                }
            } else if (halves != null) {
                if (allreduce.name().equals("ring")) {
                    sumRowsByRing(checkWords, total);
                } else {
                    sumRowsInto(allreduce, halves, total);
                }
                for (int j = 0; j < params; j++) {
                    gradient[j] = total[j + 1] * scale;      // the scaling's pass moves the values too
                }
                loss = total[0];
            } else {
                loss = sum == Sum.FLOAT ? floatSum() : fixedSum();
                for (int j = 0; j < params; j++) {
                    gradient[j] *= scale;
                }
            }
        } catch (NonFiniteValueException e) {
            return Double.NaN;   // seen by every rank at once: the divergence monitor ends the run
        }
        optimizer.step(weights, gradient);
        return loss * scale;
    }

    private double fixedSum() {
        sumRows(allreduce);
        fixed.get(1, gradient, 0, params);
        return fixed.get(0);
    }

    private double floatSum() {
        addRows(total);
        allreduce.allreduce(comm, total, 0, params + 1);
        System.arraycopy(total, 1, gradient, 0, params);
        return total[0];
    }

    @Override
    public String name() {
        return allreduce.name();
    }

    /**
     * The loss alone, summed over every block with the run's sum: what the loss at the final
     * weights needs (no gradients). Each rank's block losses sit in rows of {@code width}.
     */
    static final class LossSum {
        private final Communicator comm;
        private final Allreduce allreduce;
        private final Sum sum;
        private final int blocks;
        private final int width;
        private final FixedSum fixed;
        private final double[] one = new double[1];

        LossSum(Communicator comm, Allreduce allreduce, Sum sum, int blocks, int width) {
            this.comm = comm;
            this.allreduce = allreduce;
            this.sum = sum;
            this.blocks = blocks;
            this.width = width;
            this.fixed = sum == Sum.FLOAT ? null
                : new FixedSum(OwnRowsExchange.format(sum), 1);
        }

        /** {@return the algorithm the loss is reduced with} */
        Allreduce allreduce() {
            return allreduce;
        }

        /**
         * {@return the loss over every block, times {@code scale}; NaN if any is not finite}
         * @param owned how many rows this rank holds
         */
        double reduce(double[] rows, int owned, double scale) {
            if (fixed == null) {
                one[0] = 0.0;
                for (int k = 0; k < owned; k++) {
                    one[0] += rows[k * width];
                }
                allreduce.allreduce(comm, one, 0, 1);
                return one[0] * scale;
            }
            try {
                fixed.begin(blocks);
                for (int k = 0; k < owned; k++) {
                    fixed.observe(0, rows[k * width]);
                }
                fixed.agree(comm, allreduce);
                for (int k = 0; k < owned; k++) {
                    fixed.deposit(0, rows[k * width]);
                    fixed.endBlock();
                }
                fixed.reduce(comm, allreduce);
                return fixed.get(0) * scale;
            } catch (NonFiniteValueException e) {
                return Double.NaN;
            }
        }
    }
}
