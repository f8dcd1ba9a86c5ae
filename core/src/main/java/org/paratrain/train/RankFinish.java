package org.paratrain.train;

import org.paratrain.collective.Allreduces;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.comm.Communicator;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The end of one rank's run: the loss at the final weights over the whole data, every rank's
 * times gathered by one sum, and rank 0's {@link TrainingResult}. Its own class because it runs
 * once, after the loop, and only reads the loop's state.
 */
final class RankFinish {
    private final Communicator comm;
    private final TrainSpec spec;
    private final Batches batches;
    /** The whole data's blocks, over which the final loss is taken. */
    private final BlockSharding sharding;
    /** The steps' blocks of each rank, as the loop left them. */
    private final BlockRanges ranges;
    private final ExchangeClock clock;
    private final RankBlocks blocks;
    /** Every sample this rank holds: the whole data, or only its shard. */
    private final Dataset data;
    private final int totalSamples;

    RankFinish(Communicator comm, TrainSpec spec, Batches batches, BlockSharding sharding, BlockRanges ranges,
               ExchangeClock clock, RankBlocks blocks, Dataset data, int totalSamples) {
        this.comm = comm;
        this.spec = spec;
        this.batches = batches;
        this.sharding = sharding;
        this.ranges = ranges;
        this.clock = clock;
        this.blocks = blocks;
        this.data = data;
        this.totalSamples = totalSamples;
    }

    /** The loss at the final weights, and rank 0's result over the {@code epochs} run. */
    TrainingResult finish(RankLoop loop, GradientExchange exchange, SharedExchange shared,
                          int epochs) {
        if (shared != null) {
            // Ranks of a shared step may end up to a ring of steps apart: the run ends with the last.
            comm.barrier();
        }
        // Not the wait for a core that a sibling rank took first after the last meeting (RankTrainer.runEpoch).
        double trainSeconds = comm.wtime() - loop.lastLate - loop.start;
        // Over the whole data only the block losses are needed: a table of one double a block
        // (summed with the run's sum, the same bits at any node count and with every exchange),
        // never a gradient a block.
        boolean same = batches.steps() == 1 && batches.stepSamples() == totalSamples && shared == null;
        BlockRanges wholeRanges = same ? ranges : new BlockRanges(sharding, comm.size());
        GradientExchange whole = same
            ? exchange : new AllreduceExchange(comm, wholeRanges, 0, Allreduces.create("recursive-doubling", comm),
                wholeLossSum());
        blocks.computeBlocks(whole, wholeRanges, data, loop.weights, false);
        double finalLoss = whole.reduceLoss(loop.mean ? 1.0 / totalSamples : 1.0);
        // Training's, before the final loss sums again, after the untimed steps.
        long misses = exchange.guessMisses() - loop.missesBefore;
        TrainingResult.History h = loop.history.first(epochs);
        if (epochs > 0) {
            h.comm()[epochs - 1] -= loop.lateInComm;    // a run stopped early: its last step's wait
        }
        // From the epoch this run started in: a resumed run's history before it is rank 0's, from the checkpoint.
        double[] staged = exchange.stagedShares();
        double stagedSteps = staged[1] - loop.stagedBefore[1];
        TrainingResult.RankTimes times = rankTimes(sumFrom(h.compute(), loop.firstEpoch),
            sumFrom(h.comm(), loop.firstEpoch), clock.updateSeconds(), clock.leastOverRanks(comm),
            stagedSteps > 0 ? (staged[0] - loop.stagedBefore[0]) / stagedSteps : -1.0);
        if (comm.rank() != 0) {
            return null;
        }
        return new TrainingResult(loop.weights, finalLoss, epochs, comm.size(), comm.backend(), exchange.name(),
            batches.sharding().blockSize(), trainSeconds, sum(h.compute()), sum(h.comm()), h, Double.NaN,
            shared == null ? new TrainingResult.Split(ranges.blocksPerRank(), ranges.moves()) : null, times, misses);
    }

    private static double sumFrom(double[] v, int first) {
        double t = 0;
        for (int i = Math.min(first, v.length); i < v.length; i++) {
            t += v[i];
        }
        return t;
    }

    /**
     * Every rank's compute, exchange and update seconds and staged share, gathered by one sum over
     * the ranks: each fills its own four places of a zero vector, so the sum only places them
     * (exact in any order); and the exchange without waits ({@link ExchangeClock#leastOverRanks}).
     *
     * @param staged this rank's staged share a step, -1 where nothing was staged
     */
    private TrainingResult.RankTimes rankTimes(double compute, double exchanged, double update, double[] waitFree,
                                               double staged) {
        int p = comm.size();
        double[] v = new double[4 * p];
        v[comm.rank()] = compute;
        v[p + comm.rank()] = exchanged;
        v[2 * p + comm.rank()] = update;
        v[3 * p + comm.rank()] = staged;
        Training.sumOverRanks(comm, v);
        double[] shares = java.util.Arrays.copyOfRange(v, 3 * p, 4 * p);
        for (int q = 0; q < p; q++) {
            shares[q] = shares[q] < 0 ? Double.NaN : shares[q];
        }
        return new TrainingResult.RankTimes(java.util.Arrays.copyOf(v, p), java.util.Arrays.copyOfRange(v, p, 2 * p),
            java.util.Arrays.copyOfRange(v, 2 * p, 3 * p), waitFree[0], (int) waitFree[1], shares, waitFree[2]);
    }

    /**
     * The sum of the final loss's table: the run's, so that a full-batch run's loss (summed by
     * its exchange) and every other's agree; a float run's by block, as a table cannot be summed
     * by ranks.
     */
    private ExchangeSpec.Sum wholeLossSum() {
        ExchangeSpec.Sum s = spec.exchange().sum();
        if (s == ExchangeSpec.Sum.FIXED_HALF && sharding.blocks() > FixedFormat.HALF_WORD_MAX_BLOCKS) {
            return ExchangeSpec.Sum.FIXED_1;     // more blocks than a lane holds (only mini-batch steps were checked)
        }
        return s == ExchangeSpec.Sum.FLOAT ? ExchangeSpec.Sum.BLOCKS : s;
    }

    private static double sum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }
}
