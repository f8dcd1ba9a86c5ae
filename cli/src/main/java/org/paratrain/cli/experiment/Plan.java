package org.paratrain.cli.experiment;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.collective.Allreduces;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.EpochModel;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * Predicted time per epoch for every node count and exchange, the best choice, and the
 * break-even: the least work at which more than one rank pays. Each exchange is a whole
 * {@link ExchangeSpec}, its sum included, and is costed by its scheme's own class.
 */
public final class Plan {
    private Plan() { }

    /**
     * One node count.
     *
     * @param nodes       p
     * @param seconds     predicted seconds per epoch, by exchange (same order as the exchanges)
     * @param best        the fastest exchange at p
     * @param bestSeconds its time
     * @param compute     the compute part of it
     */
    public record Row(int nodes, double[] seconds, ExchangeSpec best, double bestSeconds, double compute) { }

    /**
     * {@return the exchanges to choose among: master-worker and every allreduce with {@code sum},
     * and, if asked, the sharded optimizer's ring (a one-vector sum only)}
     * @param mpi     whether MPI's own allreduce ({@code native}) is available
     * @param sum     the sum, or null for the default (fixed)
     * @param sharded whether to add {@code --shard-optimizer}'s exchange
     */
    public static List<ExchangeSpec> candidates(boolean mpi, Sum sum, boolean sharded) {
        List<ExchangeSpec> c = new ArrayList<>();
        c.add(ExchangeSpec.parse("master-worker", sum));
        for (String name : mpi ? Allreduces.names() : Allreduces.portableNames()) {
            c.add(ExchangeSpec.parse(name, sum));
        }
        if (sharded && sum != Sum.BLOCKS) {
            c.add(ExchangeSpec.parse("ring", sum).sharded());
        }
        return c;
    }

    /**
     * {@return the exchanges to choose among on a backend: {@link #candidates}, and on the local
     * backend (ranks as threads of one JVM) also the shared step with the same sum}
     * @param mpi     whether the backend is MPI (MPI's own allreduce is then a candidate, the shared step not)
     * @param sum     the sum, or null for each scheme's default
     * @param sharded whether to add {@code --shard-optimizer}'s exchange
     */
    public static List<ExchangeSpec> candidatesOn(boolean mpi, Sum sum, boolean sharded) {
        List<ExchangeSpec> c = candidates(mpi, sum, sharded);
        if (!mpi) {
            c.add(ExchangeSpec.parse("shared", sum));
        }
        return c;
    }

    /**
     * {@return how a plan names an exchange: its name, {@code +shard} when the optimizer is
     * sharded, and the sum it assumes ({@code ring/fixed:1}, {@code master-worker/blocks})}
     * @param e a resolved exchange
     */
    public static String label(ExchangeSpec e) {
        return e.label() + (e.scheme() == ExchangeSpec.Scheme.SHARDED ? "+shard" : "") + "/" + e.sum().label();
    }

    /**
     * {@return the options of {@code train} that run {@code e}}
     * @param e a resolved exchange
     */
    public static String options(ExchangeSpec e) {
        return "--allreduce " + e.label() + (e.scheme() == ExchangeSpec.Scheme.MASTER_WORKER ? ""
            : " --sum " + e.sum().label()) + (e.scheme() == ExchangeSpec.Scheme.SHARDED ? " --shard-optimizer" : "");
    }

    /**
     * Predicts the time per epoch for p = 1, 2, 4, ... up to {@code maxNodes}.
     *
     * @param model     the machine's and workload's fitted epoch model
     * @param samples   samples in the data set
     * @param blockSize samples per block (0: the default)
     * @param params    the model's parameters
     * @param exchanges the exchanges to predict (see {@link #candidates}), at least one
     * @param maxNodes  the largest node count
     * @return one row per node count, with every exchange's time and the fastest
     */
    public static List<Row> rows(EpochModel model, int samples, int blockSize, int params,
                                 List<ExchangeSpec> exchanges, int maxNodes) {
        BlockSharding sharding = sharding(samples, blockSize);
        List<Row> rows = new ArrayList<>();
        for (int p = 1; p <= maxNodes; p *= 2) {
            rows.add(row(model, sharding, params, exchanges, p));
        }
        return rows;
    }

    /**
     * {@return the prediction at exactly {@code p} nodes: every exchange's time and the fastest
     * (the first on a tie)}
     * @param model     the machine's and workload's fitted epoch model
     * @param sharding  the data's blocks
     * @param params    the model's parameters
     * @param exchanges the exchanges to predict, at least one
     * @param p         ranks
     */
    public static Row row(EpochModel model, BlockSharding sharding, int params, List<ExchangeSpec> exchanges, int p) {
        double[] t = new double[exchanges.size()];
        int best = 0;
        for (int i = 0; i < t.length; i++) {
            t[i] = model.epochSeconds(exchanges.get(i), p, sharding, params);
            if (t[i] < t[best]) {
                best = i;
            }
        }
        return new Row(p, t, exchanges.get(best), t[best], model.computeSeconds(sharding, params, p));
    }

    /**
     * {@return the row with the lowest predicted time; of rows within 1% of it, the one with the
     * fewest nodes, since a rank that gains less than 1% is not worth its cost}
     * @param rows the predictions, by growing node count (as {@link #rows} gives them)
     */
    public static Row fastest(List<Row> rows) {
        Row min = rows.get(0);
        for (Row r : rows) {
            if (r.bestSeconds() < min.bestSeconds()) {
                min = r;
            }
        }
        for (Row r : rows) {
            if (r.bestSeconds() <= min.bestSeconds() * 1.01) {
                return r;
            }
        }
        return min;
    }

    /**
     * The smallest sample count (on a grid of powers of two times 1, 1.5) at which some p > 1
     * is predicted faster than p = 1, or -1 if none up to 2^30.
     *
     * @param model     the machine's and workload's fitted epoch model
     * @param params    the model's parameters
     * @param exchanges the exchanges to consider
     * @param maxNodes  the largest node count
     * @return the break-even sample count, or -1
     */
    public static long breakEven(EpochModel model, int params, List<ExchangeSpec> exchanges, int maxNodes) {
        for (int k = 6; k <= 30; k++) {
            for (long n : new long[] {1L << k, 3L << (k - 1)}) {
                List<Row> rows = rows(model, (int) n, 0, params, exchanges, maxNodes);
                if (fastest(rows).nodes() > 1) {
                    return n;
                }
            }
        }
        return -1;
    }

    /**
     * {@return the blocks of a full-batch step of {@code samples}}
     * @param samples   samples in the data set
     * @param blockSize samples per block, or 0 for the default
     */
    public static BlockSharding sharding(int samples, int blockSize) {
        return blockSize == 0 ? BlockSharding.byDefault(samples) : new BlockSharding(samples, blockSize);
    }
}
