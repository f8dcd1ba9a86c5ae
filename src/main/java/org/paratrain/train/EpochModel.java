package org.paratrain.train;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.data.BlockSharding;

/**
 * Predicts the time of one epoch: {@code T(p) = compute(n/p) + exchange(p)}.
 *
 * <p>Compute is the measured cost per sample and parameter times the samples of the busiest
 * rank; with more ranks than cores the ranks share the cores, so the work cannot spread
 * over more than {@code cores}. The exchange is the allreduce of the table of block
 * partials ({@code blocks x (parameters + 1)} doubles, see {@code AllreduceExchange}) by the
 * algorithm's own cost formula, plus adding the table in block order; for the paper's
 * master-worker exchange, rank 0 takes {@code 2(p-1)} messages in and sends {@code p-1}
 * out, one after another.
 *
 * <p>A fixed cost per epoch (reading the clock, the divergence check, the update) is
 * measured at one rank and added; it is what dominates tiny workloads like the paper's.
 *
 * @param machine             fitted Hockney parameters of the communicator
 * @param secondsPerSampleParam measured gradient cost per sample and parameter, block overhead included
 * @param cores               cores the ranks run on
 * @param fixedSeconds        measured per-epoch cost that is neither gradient nor exchange
 */
public record EpochModel(Allreduce.Machine machine, double secondsPerSampleParam, int cores, double fixedSeconds) {

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
     * {@return seconds per epoch of combining gradients and adding the block table}
     * @param exchange {@code master-worker} or an allreduce's name
     * @param p        ranks
     * @param sharding the data's blocks, whose count sets the size of the table exchanged
     * @param params   the model's parameters
     * @throws IllegalArgumentException if {@code exchange} names no known exchange
     */
    public double exchangeSeconds(String exchange, int p, BlockSharding sharding, int params) {
        long table = (long) sharding.blocks() * (params + 1);
        double sum = 8.0 * table * machine.gamma();
        if (exchange.equals(org.paratrain.train.spec.ExchangeSpec.MASTER_WORKER.label())) {
            double in = 8.0 * table * (p - 1) / p + 8.0 * (p - 1) * (params + 1);
            return 3.0 * (p - 1) * machine.alpha() + in * machine.beta() + sum;
        }
        return Allreduces.create(exchange).cost(p, table, machine) + sum;
    }

    /**
     * {@return predicted seconds per epoch: fixed cost, computation and exchange}
     * @param exchange {@code master-worker} or an allreduce's name
     * @param p        ranks
     * @param sharding the data's blocks
     * @param params   the model's parameters
     */
    public double epochSeconds(String exchange, int p, BlockSharding sharding, int params) {
        return fixedSeconds + computeSeconds(sharding, params, p) + exchangeSeconds(exchange, p, sharding, params);
    }

    /**
     * {@return the exchanges {@code auto} chooses among: master-worker and the portable allreduces}
     * @param mpi true on the MPI backend, which adds MPI's own allreduce
     */
    public static List<String> candidates(boolean mpi) {
        List<String> c = new ArrayList<>();
        c.add(org.paratrain.train.spec.ExchangeSpec.MASTER_WORKER.label());
        c.addAll(mpi ? Allreduces.names() : Allreduces.portableNames());
        return c;
    }

    /**
     * {@return the exchange of {@code candidates} with the lowest predicted time, the first on a tie}
     * @param candidates names to choose among, at least one (see {@link #candidates})
     * @param p          ranks
     * @param sharding   the data's blocks
     * @param params     the model's parameters
     */
    public String fastestExchange(List<String> candidates, int p, BlockSharding sharding, int params) {
        String best = candidates.get(0);
        double bestTime = Double.MAX_VALUE;
        for (String e : candidates) {
            double t = exchangeSeconds(e, p, sharding, params);
            if (t < bestTime) {
                bestTime = t;
                best = e;
            }
        }
        return best;
    }
}
