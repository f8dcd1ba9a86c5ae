package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;

/**
 * The local ranks' shared step (see {@code SharedExchange}): no messages; the rank that
 * finishes the last chunk of blocks reads every row, {@code B - floor(B/p)} of them from other
 * cores' tables, sums them (block order, or deposits into fixed-point words and reads back),
 * and the others read the published sum: one hand-off between cores (the last chunk's rank
 * sums at once), priced as the local fabric's latency:
 * <pre>
 *   T = alpha [p &gt; 1] + 8 n (B - floor(B/p)) beta + the sum's arithmetic over all B rows
 * </pre>
 * where the sum's arithmetic is {@code 8 B n gamma} by block or float, and {@code B n}
 * deposits plus {@code n} read-outs at the measured rates for a fixed sum.
 *
 * @param sum the sum
 */
public record SharedCost(SumCost sum) implements ExchangeCost {

    /** Checks that the sum is given. */
    public SharedCost {
        if (sum == null) {
            throw new IllegalArgumentException("the shared step's cost needs the sum");
        }
    }

    @Override
    public double stepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        long n = params + 1L;
        double handoff = p > 1 ? m.alpha() : 0.0;
        double moved = 8.0 * n * (blocks - blocks / p) * m.beta();
        double arithmetic = switch (sum.sum()) {
            case BLOCKS, FLOAT -> 8.0 * blocks * n * m.gamma();
            case FIXED_1, FIXED_2, FIXED_HALF -> sum.observedPrepareSeconds(blocks, n, m) + sum.finishSeconds(blocks, n, n, m);
        };
        return handoff + moved + arithmetic;
    }
}
