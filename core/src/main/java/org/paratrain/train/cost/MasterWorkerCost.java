package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;

/**
 * The paper's master-worker exchange (see {@code MasterWorkerExchange}): every worker sends
 * rank 0 its blocks' losses and gradients (two messages), rank 0 adds all {@code B} rows in
 * block order, updates, and sends the weights and the loss ({@code n} doubles) to each
 * worker. Rank 0 handles every message one after another, so with {@code B - floor(B/p)}
 * rows not its own:
 * <pre>
 *   T = 3 (p-1) alpha + 8 n (B - floor(B/p) + p - 1) beta + 8 B n gamma
 * </pre>
 * The last term is rank 0's sum of the block table, in block order or onto the fixed-point grid
 * (which needs no agreement there: rank 0 holds every block); the grid's conversion is
 * counted in gamma.
 */
public final class MasterWorkerCost implements ExchangeCost {

    /** The scheme's cost (it has no parameters: one algorithm, one sum). */
    public MasterWorkerCost() { }

    @Override
    public double stepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        long n = params + 1L;
        long rowsIn = blocks - blocks / p;            // rank 0 owns the first floor(B/p) blocks
        double bytes = 8.0 * n * (rowsIn + p - 1);    // the rows in, the weights out
        return 3.0 * (p - 1) * m.alpha() + bytes * m.beta() + 8.0 * blocks * n * m.gamma();
    }
}
