package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.train.spec.ExchangeSpec;

/**
 * The predicted seconds of one training step's exchange: moving the partial gradients
 * between the ranks, and the sum's own arithmetic around it (adding the rows of the blocks,
 * or depositing them into fixed-point words and converting back). One class per scheme; the
 * gradient's computation and the optimizer's update are not in it.
 */
public interface ExchangeCost {

    /**
     * {@return predicted seconds of one step's exchange, on the busiest rank}
     * @param p      ranks, at least 1
     * @param params the model's parameters, 0 or more (the vector is they and the loss)
     * @param blocks the step's blocks over all ranks, at least 1
     * @param m      the machine's fitted alpha, beta and gamma
     * @throws IllegalArgumentException if a count is out of range
     */
    double stepSeconds(int p, int params, int blocks, Allreduce.Machine m);

    /**
     * {@return the cost of the exchange {@code spec} names}
     * @param spec  a resolved exchange: not {@link ExchangeSpec.Scheme#AUTO}, which is the choice
     *              among the others (by these costs, or on MPI by {@link ExchangeProbe}'s measurement)
     * @param rates the machine's fixed-point conversion rates
     * @throws IllegalArgumentException for {@code auto}, or a sharded algorithm without a cost
     */
    static ExchangeCost of(ExchangeSpec spec, ConversionRates rates) {
        return switch (spec.scheme()) {
            case MASTER_WORKER -> spec.sum() != ExchangeSpec.Sum.FLOAT ? new MasterWorkerCost()
                : new AllreduceCost(Allreduces.create("star"), SumCost.of(spec.sum(), rates));
            case ALLREDUCE -> new AllreduceCost(Allreduces.create(spec.algorithm()), SumCost.of(spec.sum(), rates));
            case SHARDED -> ShardedCost.of(spec.algorithm(), SumCost.of(spec.sum(), rates));
            case SHARED -> new SharedCost(SumCost.of(spec.sum(), rates));
            case AUTO -> throw new IllegalArgumentException("auto has no cost of its own: it is the cheapest of "
                + "the exchanges it chooses among");
        };
    }
}
