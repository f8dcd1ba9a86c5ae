package org.paratrain.experiment;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.EpochModel;

/**
 * Predicted time per epoch for every node count and exchange, the best choice, and the
 * break-even: the least work at which more than one rank pays.
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
    public record Row(int nodes, double[] seconds, String best, double bestSeconds, double compute) { }

    /**
     * Predicts the time per epoch for p = 1, 2, 4, ... up to {@code maxNodes}.
     *
     * @param model     the machine's and workload's fitted epoch model
     * @param samples   samples in the data set
     * @param blockSize samples per block (0: the default)
     * @param params    the model's parameters
     * @param exchanges the exchanges to predict, by name
     * @param maxNodes  the largest node count
     * @return one row per node count, with every exchange's time and the fastest
     */
    public static List<Row> rows(EpochModel model, int samples, int blockSize, int params, List<String> exchanges,
                                 int maxNodes) {
        BlockSharding sharding = sharding(samples, blockSize);
        List<Row> rows = new ArrayList<>();
        for (int p = 1; p <= maxNodes; p *= 2) {
            double[] t = new double[exchanges.size()];
            int best = 0;
            for (int i = 0; i < t.length; i++) {
                t[i] = model.epochSeconds(exchanges.get(i), p, sharding, params);
                if (t[i] < t[best]) {
                    best = i;
                }
            }
            rows.add(new Row(p, t, exchanges.get(best), t[best], model.computeSeconds(sharding, params, p)));
        }
        return rows;
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
    public static long breakEven(EpochModel model, int params, List<String> exchanges, int maxNodes) {
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

    static BlockSharding sharding(int samples, int blockSize) {
        return blockSize == 0 ? BlockSharding.byDefault(samples) : new BlockSharding(samples, blockSize);
    }
}
