package org.paratrain.train;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;

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
     * {@return seconds per epoch of combining gradients with the scheme's default sum (the
     * block table for master-worker, {@link Sum#DEFAULT_FIXED} for an allreduce)}
     * @param exchange {@code master-worker} or an allreduce's name
     * @param p        ranks
     * @param sharding the data's blocks, whose count sets the size of the table exchanged
     * @param params   the model's parameters
     * @throws IllegalArgumentException if {@code exchange} names no known exchange
     */
    public double exchangeSeconds(String exchange, int p, BlockSharding sharding, int params) {
        boolean master = exchange.equals(ExchangeSpec.MASTER_WORKER.label());
        return exchangeSeconds(exchange, master ? Sum.BLOCKS : Sum.DEFAULT_FIXED, p, sharding, params);
    }

    /**
     * {@return seconds per epoch of combining gradients with this sum}
     *
     * <p>The block table sends blocks x (params + 1) doubles and adds them; a fixed-point sum
     * sends its words a value once (plus a two-word agreement of the grid) and passes over this
     * rank's rows twice (largest magnitude, deposit) and over the words once (conversion back),
     * each pass costed as the adding of a double; a float sum sends one vector of doubles.
     * @param exchange {@code master-worker} or an allreduce's name
     * @param sum      how the partials are added up
     * @param p        ranks
     * @param sharding the data's blocks
     * @param params   the model's parameters
     */
    public double exchangeSeconds(String exchange, Sum sum, int p, BlockSharding sharding, int params) {
        long w = params + 1L;
        long table = sharding.blocks() * w;
        if (exchange.equals(ExchangeSpec.MASTER_WORKER.label())) {
            double in = 8.0 * table * (p - 1) / p + 8.0 * (p - 1) * w;
            return 3.0 * (p - 1) * machine.alpha() + in * machine.beta() + 8.0 * table * machine.gamma();
        }
        Allreduce algorithm = Allreduces.create(exchange);
        long ownedRows = (long) ((sharding.blocks() + p - 1) / p) * w;
        return switch (sum) {
            case BLOCKS -> algorithm.cost(p, table, machine) + 8.0 * table * machine.gamma();
            case FLOAT -> algorithm.cost(p, w, machine) + 8.0 * ownedRows * machine.gamma();
            case FIXED_1, FIXED_2 -> algorithm.cost(p, 2, machine) + algorithm.cost(p, sum.wordsPerValue() * w, machine)
                + 8.0 * (2 * ownedRows + sum.wordsPerValue() * w) * machine.gamma();
        };
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
     * {@return the exchanges {@code auto} chooses among with this sum: master-worker (which sums
     * by block only) and the allreduces}
     * @param mpi true on the MPI backend, which adds MPI's own allreduce
     * @param sum the sum asked for, or null for each scheme's default
     */
    public static List<String> candidates(boolean mpi, Sum sum) {
        List<String> c = candidates(mpi);
        if (sum != null && sum != Sum.BLOCKS) {
            c.remove(ExchangeSpec.MASTER_WORKER.label());   // master-worker sums by block only
        }
        return c;
    }

    /**
     * {@return every exchange this backend can run: master-worker and the allreduces}
     * @param mpi whether MPI's own allreduce ({@code native}) is available
     */
    public static List<String> candidates(boolean mpi) {
        List<String> c = new ArrayList<>();
        c.add(ExchangeSpec.MASTER_WORKER.label());
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
