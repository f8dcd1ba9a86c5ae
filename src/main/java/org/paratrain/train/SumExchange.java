package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.collective.sum.NonFiniteValueException;
import org.paratrain.comm.Communicator;
import org.paratrain.data.BlockSharding;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * An allreduce of one vector, the loss and the gradient summed over every block of the step,
 * whatever the number of blocks: the traffic of a plain allreduce.
 *
 * <p>With a fixed-point sum ({@link Sum#FIXED_1}, {@link Sum#FIXED_2}) each rank keeps its own
 * blocks' partials until the grid is agreed (one allreduce of two words), deposits them into
 * integer words, and the words are summed by the allreduce: exact, so the same bits at any node
 * count and with any algorithm. With {@link Sum#FLOAT} each rank adds its blocks' partials in
 * order and the doubles are summed: the bits then depend on the node count (the baseline that
 * shows what reproducibility costs).
 */
final class SumExchange implements GradientExchange {
    private final Communicator comm;
    private final Allreduce allreduce;
    private final Sum sum;
    private final int params;
    private final int blocks;
    private final int owned;
    /** This rank's blocks: a row of loss then gradient each. */
    private final double[] rows;
    /** The sum, loss first (float only). */
    private final double[] total;
    private final double[] gradient;
    private final FixedSum fixed;
    private final LossSum lossSum;

    SumExchange(Communicator comm, BlockSharding sharding, int params, Allreduce allreduce, Sum sum) {
        this.comm = comm;
        this.allreduce = allreduce;
        this.sum = sum;
        this.params = params;
        this.blocks = sharding.blocks();
        this.owned = sharding.endBlock(comm.rank(), comm.size()) - sharding.firstBlock(comm.rank(), comm.size());
        this.rows = new double[Math.max(1, owned) * (params + 1)];
        this.total = new double[params + 1];
        this.gradient = new double[params];
        FixedFormat format = sum == Sum.FIXED_1 ? FixedFormat.ONE_WORD : FixedFormat.TWO_WORDS;
        this.fixed = sum == Sum.FLOAT ? null : new FixedSum(format, 1, params);
        this.lossSum = new LossSum(comm, allreduce, sum, blocks, owned, params + 1);
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

    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        double loss;
        try {
            loss = sum == Sum.FLOAT ? floatSum() : fixedSum();
        } catch (NonFiniteValueException e) {
            return Double.NaN;   // seen by every rank at once: the divergence monitor ends the run
        }
        for (int j = 0; j < params; j++) {
            gradient[j] *= scale;
        }
        optimizer.step(weights, gradient);
        return loss * scale;
    }

    private double fixedSum() {
        int w = params + 1;
        fixed.begin(blocks);
        for (int k = 0; k < owned; k++) {
            fixed.observe(0, rows, k * w, w);
        }
        fixed.agree(comm, allreduce);
        for (int k = 0; k < owned; k++) {
            fixed.deposit(0, rows, k * w, w);
            fixed.endBlock();
        }
        fixed.reduce(comm, allreduce);
        fixed.get(1, gradient, 0, params);
        return fixed.get(0);
    }

    private double floatSum() {
        int w = params + 1;
        Arrays.fill(total, 0.0);
        for (int k = 0; k < owned; k++) {
            for (int j = 0; j < w; j++) {
                total[j] += rows[k * w + j];
            }
        }
        allreduce.allreduce(comm, total, 0, w);
        System.arraycopy(total, 1, gradient, 0, params);
        return total[0];
    }

    @Override
    public double reduceLoss(double scale) {
        return lossSum.reduce(rows, scale);
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
        private final int owned;
        private final int width;
        private final FixedSum fixed;
        private final double[] one = new double[1];

        LossSum(Communicator comm, Allreduce allreduce, Sum sum, int blocks, int owned, int width) {
            this.comm = comm;
            this.allreduce = allreduce;
            this.sum = sum;
            this.blocks = blocks;
            this.owned = owned;
            this.width = width;
            this.fixed = sum == Sum.FLOAT ? null
                : new FixedSum(sum == Sum.FIXED_1 ? FixedFormat.ONE_WORD : FixedFormat.TWO_WORDS, 1);
        }

        /** {@return the algorithm the loss is reduced with} */
        Allreduce allreduce() {
            return allreduce;
        }

        /** {@return the loss over every block, times {@code scale}; NaN if any is not finite} */
        double reduce(double[] rows, double scale) {
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
