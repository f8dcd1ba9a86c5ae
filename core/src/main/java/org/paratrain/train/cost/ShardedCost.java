package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Allreduces;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * A sharded optimizer (see {@code ShardedExchange}): the sum's words are reduce-scattered,
 * each rank converts back and updates only its chunk of {@code ceil(n/p)} values, and the
 * {@code n} doubles (the loss, then the parameters) are allgathered:
 * <pre>
 *   float:   8 r n gamma + RS(p, n) + AG(p, n)
 *   fixed:k  r n deposit + G(p, 2) + RS(p, k n + 1) + ceil(n/p) readout + AG(p, n)
 * </pre>
 * with {@code RS} and {@code AG} the reduce-scatter's and the allgather's own formulas and
 * {@code G} the allreduce that agrees the grid. The block table cannot be sharded.
 *
 * @param reduceScatter the reduce-scatter's formula ({@link org.paratrain.collective.ReduceScatter#cost} of the algorithm)
 * @param allgather     the allgather's formula ({@link org.paratrain.collective.Allgather#cost} of the algorithm)
 * @param agreement     the formula of the allreduce that agrees a fixed sum's grid
 * @param sum           a one-vector sum
 */
public record ShardedCost(CollectiveCost reduceScatter, CollectiveCost allgather, CollectiveCost agreement,
                          SumCost sum) implements ExchangeCost {

    /** Checks that every formula is given and that the sum is one vector. */
    public ShardedCost {
        if (reduceScatter == null || allgather == null || agreement == null || sum == null) {
            throw new IllegalArgumentException("a sharded exchange's cost needs its three collectives and the sum");
        }
        if (sum.sum() == Sum.BLOCKS) {
            throw new IllegalArgumentException("a sharded exchange reduce-scatters one vector: the block table "
                + "has no sharded cost");
        }
    }

    /**
     * {@return the cost of the sharded exchange by {@code algorithm}'s reduce-scatter and allgather}
     * @param algorithm the exchange's algorithm, one of {@link AllreduceHalves#names()} (its
     *                  reduce-scatter, allgather, and allreduce for the grid, as {@code ShardedExchange} runs them)
     * @param sum       a one-vector sum
     * @throws IllegalArgumentException for an algorithm without a sharded cost
     */
    public static ShardedCost of(String algorithm, SumCost sum) {
        if (!AllreduceHalves.names().contains(algorithm)) {
            throw new IllegalArgumentException("no sharded cost for the algorithm '" + algorithm + "'");
        }
        AllreduceHalves halves = AllreduceHalves.create(algorithm);
        return new ShardedCost(halves.reduceScatter()::cost, halves.allgather()::cost,
            Allreduces.create(algorithm)::cost, sum);
    }

    @Override
    public double stepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        long n = params + 1L;
        long chunk = (n + p - 1) / p;
        return sum.observedPrepareSeconds(Shapes.busiest(blocks, p), n, m) + sum.agreementSeconds(p, agreement, m)
            + reduceScatter.seconds(p, sum.words(n, blocks), m) + sum.finishSeconds(blocks, n, chunk, m)
            + allgather.seconds(p, n, m);
    }
}
