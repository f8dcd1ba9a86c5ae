package org.paratrain.train;

import org.paratrain.collective.Allreduce;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.train.cost.ExchangeCost;
import org.paratrain.train.spec.ExchangeSpec;

/**
 * Predicts the time of one epoch: {@code T(p) = fixed + compute(n/p) + exchange(p)}.
 *
 * <p>Compute is the measured cost per sample and parameter times the samples of the busiest
 * rank; with more ranks than cores the ranks share the cores, so the work cannot spread
 * over more than {@code cores}. The exchange is one step's, at full batch one an epoch, by the
 * scheme's own cost class ({@link ExchangeCost#of}): the machine's Hockney parameters for the
 * messages and additions, the measured conversion rates for a fixed-point sum.
 *
 * <p>A fixed cost per epoch (reading the clock, the divergence check, the update) is
 * measured at one rank and added; it is what dominates tiny workloads like the paper's.
 *
 * @param machine               fitted Hockney parameters of the communicator
 * @param secondsPerSampleParam measured gradient cost per sample and parameter, block overhead included
 * @param cores                 cores the ranks run on
 * @param fixedSeconds          measured per-epoch cost that is neither gradient nor exchange
 * @param conversion            measured seconds per value of the fixed-point sums' conversions
 */
public record EpochModel(Allreduce.Machine machine, double secondsPerSampleParam, int cores, double fixedSeconds,
                         ConversionRates conversion) {

    /** Checks that the machine and the conversion rates are given. */
    public EpochModel {
        if (machine == null || conversion == null) {
            throw new IllegalArgumentException("an epoch model needs the machine and the conversion rates");
        }
    }

    /**
     * {@return seconds of gradient computation per epoch on the busiest rank}
     * @param sharding the data's blocks, which decide how evenly ranks share the samples
     * @param params   the model's parameters (cost grows with them)
     * @param p        ranks
     */
    public double computeSeconds(BlockSharding sharding, int params, int p) {
        int blocks = sharding.blocks();
        long busiest = Math.min(sharding.samples(), (long) ((blocks + p - 1) / p) * sharding.blockSize());
        double shared = (double) sharding.samples() / Math.min(p, cores);
        return secondsPerSampleParam * params * Math.max(busiest, shared);
    }

    /**
     * {@return seconds per epoch of combining gradients: one full-batch step of {@code exchange}}
     * @param exchange a resolved exchange (scheme, algorithm and sum)
     * @param p        ranks
     * @param sharding the data's blocks, whose count sets the block table and the rows a rank deposits
     * @param params   the model's parameters
     * @throws IllegalArgumentException for {@code auto}, which is a choice among exchanges, not one
     */
    public double exchangeSeconds(ExchangeSpec exchange, int p, BlockSharding sharding, int params) {
        return ExchangeCost.of(exchange, conversion).stepSeconds(p, params, sharding.blocks(), machine);
    }

    /**
     * {@return predicted seconds per epoch: fixed cost, computation and exchange}
     * @param exchange a resolved exchange (scheme, algorithm and sum)
     * @param p        ranks
     * @param sharding the data's blocks
     * @param params   the model's parameters
     */
    public double epochSeconds(ExchangeSpec exchange, int p, BlockSharding sharding, int params) {
        return fixedSeconds + computeSeconds(sharding, params, p) + exchangeSeconds(exchange, p, sharding, params);
    }
}
