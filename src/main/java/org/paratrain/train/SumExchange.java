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
    private final FixedSum lossOnly;

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
        this.lossOnly = sum == Sum.FLOAT ? null : new FixedSum(format, 1);
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
        int w = params + 1;
        if (sum == Sum.FLOAT) {
            double[] one = {0.0};
            for (int k = 0; k < owned; k++) {
                one[0] += rows[k * w];
            }
            allreduce.allreduce(comm, one, 0, 1);
            return one[0] * scale;
        }
        try {
            lossOnly.begin(blocks);
            for (int k = 0; k < owned; k++) {
                lossOnly.observe(0, rows[k * w]);
            }
            lossOnly.agree(comm, allreduce);
            for (int k = 0; k < owned; k++) {
                lossOnly.deposit(0, rows[k * w]);
                lossOnly.endBlock();
            }
            lossOnly.reduce(comm, allreduce);
            return lossOnly.get(0) * scale;
        } catch (NonFiniteValueException e) {
            return Double.NaN;
        }
    }

    @Override
    public String name() {
        return allreduce.name();
    }
}
