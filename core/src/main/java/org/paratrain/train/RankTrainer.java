package org.paratrain.train;

import org.paratrain.collective.Allreduces;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * The data-parallel loop on one rank: compute the loss and gradient of each owned block,
 * exchange, update, repeat. Weights start where the model's seeded initialiser puts them
 * (zero for the linear models), the same on every rank.
 *
 * <p>Timing follows the paper: the loop's wall time on rank 0, data loading excluded,
 * with the time computing gradients kept apart from the time exchanging them.
 */
public final class RankTrainer {
    private final Communicator comm;
    /** The rank's process group where ranks share a process, else null: its meetings' late returns. */
    private final org.paratrain.comm.ProcessGroup group;
    private final Dataset data;
    private final Model model;
    /** Batchnorm's sums over every rank's blocks, or null for a model whose blocks are independent. */
    private StepStatistics statistics;
    /** Each step's exchange on this rank, its update apart; and the optimizer, timed by it. */
    private final ExchangeClock clock = new ExchangeClock();
    private final Optimizer timedOptimizer;
    private final Optimizer optimizer;
    private final TrainSpec spec;
    private final Batches batches;
    private final long seed;
    /** The first sample this rank's data holds: 0, or the start of its shard when it holds only that. */
    private final int origin;
    private final int totalSamples;
    private final BlockSharding sharding;
    /** What the ranks of a shared exchange share (local backend), or null. */
    private final BlockBoard board;
    /** The exchange when it is shared: it computes the blocks it claims; else null. */
    private SharedExchange shared;
    /** The step (of its epoch) the shared exchange computes: which rows a claimed chunk gathers. */
    private int sharedStep;
    /** A failure to inject on purpose (fault tests), or null. */
    private FailureInjection failure;
    /** How many times this rank computes its blocks in this step: 1 unless a slower rank is injected. */
    private int repeats = 1;
    /** Which blocks of a step each rank computes (the same on every rank); unused by the shared exchange. */
    private final BlockRanges ranges;
    /** What moves {@link #ranges} ({@code --rebalance}), or null. */
    private final Rebalancer rebalancer;

    /**
     * Prepares one rank's part of a full-batch run.
     *
     * @param comm      this rank's communicator; every rank of it must build a RankTrainer
     * @param data      every sample; the rank computes gradients of its own blocks only
     * @param model     the model, the same kind and size on every rank
     * @param optimizer this rank's own instance (optimisers keep state), the same kind on every rank
     * @param spec      epochs, batches (full, or mini-batches in an order drawn from the run's seed, the
     *                  same batches at any node count), block size and exchange, the same on every rank
     */
    public RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainSpec spec) {
        this(comm, data, 0, data.samples(), model, optimizer, spec, null);
    }

    /** One rank of a run whose ranks are threads of this JVM sharing {@code board} (the shared exchange). */
    RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainSpec spec, BlockBoard board) {
        this(comm, data, 0, data.samples(), model, optimizer, spec, board);
    }

    /**
     * A full-batch run in which this rank holds only samples {@code [origin, origin + data.samples())}
     * of {@code total}: its own blocks, read from a file too large to hold on every rank.
     */
    RankTrainer(Communicator comm, Dataset data, int origin, int total, Model model, Optimizer optimizer,
                TrainSpec spec) {
        this(comm, data, origin, total, model, optimizer, spec, null);
    }

    private RankTrainer(Communicator comm, Dataset data, int origin, int total, Model model, Optimizer optimizer,
                        TrainSpec spec, BlockBoard board) {
        int batchSize = spec.run().batchSize();
        long seed = spec.run().seed();
        this.origin = origin;
        this.totalSamples = total;
        this.comm = comm;
        this.group = comm.processGroup().orElse(null);
        this.data = data;
        this.model = model;
        this.optimizer = optimizer;
        this.timedOptimizer = clock.timed(optimizer);
        this.spec = spec;
        // A shared step's ranks may compute any block of a batch: each gathers the rows of the chunks it claims.
        boolean any = spec.exchange().scheme() == ExchangeSpec.Scheme.SHARED;
        this.batches = new Batches(data, total, batchSize, seed, spec.run().blockSize(), any ? 0 : comm.rank(),
            any ? 1 : comm.size());
        this.seed = seed;
        this.board = board;
        this.sharding = spec.run().blockSize() == 0
            ? BlockSharding.byDefault(total)
            : new BlockSharding(total, spec.run().blockSize());
        this.ranges = new BlockRanges(batches.sharding(), comm.size());
        int stepBlocks = batches.sharding().blocks();
        if (spec.exchange().sum() == ExchangeSpec.Sum.FIXED_HALF && stepBlocks > FixedFormat.HALF_WORD_MAX_BLOCKS) {
            throw new SpecException("sum", "fixed:half takes at most " + FixedFormat.HALF_WORD_MAX_BLOCKS
                + " blocks a step (16 bits a lane), this run has " + stepBlocks + ": use larger blocks (--block-size) "
                + "or fixed:1");
        }
        // At 1 rank there is no boundary to move: no windows, no allreduce.
        this.rebalancer = spec.run().rebalancing() && comm.size() > 1
            ? new Rebalancer(comm, ranges, spec.run().rebalance()) : null;
        if (spec.run().rebalancing() && (any || total != data.samples())) {
            // In domain terms: the command line and the Trainer API refuse these first, in their own words.
            throw new IllegalArgumentException(any
                ? "rebalancing does not apply to the shared exchange, which hands out blocks as ranks are ready"
                : "rebalancing needs every sample on every rank; a rank holding only its shard cannot take others' blocks");
        }
        if (spec.run().rebalancing() && comm.size() > 1 && spec.exchange().sum() == ExchangeSpec.Sum.FLOAT) {
            // A float sum adds each rank's rows first: its bits would follow the measured timings.
            throw new IllegalArgumentException("rebalancing needs a sum whose bits do not depend on which rank adds "
                + "which blocks (blocks or fixed), got float");
        }
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size()));
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size()));
        if (first < origin || end > origin + data.samples()) {
            throw new IllegalArgumentException("rank " + comm.rank() + " holds samples [" + origin + ", "
                + (origin + data.samples()) + ") but its blocks need [" + first + ", " + end + ")");
        }
    }

    /** This trainer, failing on purpose as {@code f} says (or not, for null): for fault tests. */
    RankTrainer failing(FailureInjection f) {
        this.failure = f;
        return this;
    }

    /**
     * Runs the loop from the beginning.
     *
     * @return the result on rank 0, null on the other ranks
     * @throws TrainingException naming the epoch, if the step failed on this rank
     * @throws DivergenceException if the loss diverged (seen by every rank at the same epoch)
     */
    public TrainingResult train() {
        return train(TrainingControl.none());
    }

    /**
     * Runs the loop from {@code control}'s state (or the beginning), saving checkpoints,
     * validating, and telling its listener on rank 0.
     *
     * @param control a state to resume from, checkpoints, listener, deadline and validation
     * @return the result on rank 0, null on the other ranks
     * @throws TrainingException naming the epoch, if the step failed on this rank
     * @throws DivergenceException if the loss diverged (seen by every rank at the same epoch)
     */
    public TrainingResult train(TrainingControl control) {
        if (!spec.loss().plain() && model instanceof org.paratrain.model.Classifier c) {
            model.objective(spec.loss().objective(c.classes(), spec.loss().balanced() ? classCounts(c.classes()) : null));
        }
        if (model.sumsStatistics()) {
            if (spec.exchange().scheme() == ExchangeSpec.Scheme.SHARED) {
                // In domain terms: the command line refuses it first, in its own words.
                throw new IllegalArgumentException("batchnorm sums each step's statistics over every rank's blocks; "
                    + "the shared exchange hands blocks out as ranks are ready, so it cannot");
            }
            statistics = new StepStatistics(comm, ranges, Allreduces.create("recursive-doubling", comm));
            model.statistics(statistics);
        }
        GradientExchange exchange = Exchanges.of(spec.exchange(), comm, ranges, model.parameterCount(),
            () -> sharedExchange(model.parameterCount(), ranges.sharding(), spec.exchange().sum()));
        shared = exchange instanceof SharedExchange s ? s : null;
        int bucket = spec.run().bucketSize();
        // A step whose blocks are computed more than once (a slowed rank, for tests) tells the last time only.
        if (exchange instanceof SumExchange s && bucket != 0 && !model.sumsStatistics()) {
            // Every rank must make the same calls: each says whether it can (and, for auto, whether it
            // pays here), and buckets go only if all can.
            boolean can = comm.callsFromAnotherThread() && (bucket != RunSpec.BUCKET_AUTO || overlapPays());
            double[] cannot = {can ? 0 : 1};
            Training.sumOverRanks(comm, cannot);
            if (cannot[0] == 0) {
                s.overlapBuckets(model.backwardRanges(), bucket == RunSpec.BUCKET_AUTO ? RunSpec.DEFAULT_BUCKET : bucket);
            }
        }
        try {
            return train(control, exchange);
        } finally {
            exchange.close();
        }
    }

    /**
     * {@code --bucket-size auto}: whether this process has a core beside its ranks' for the
     * exchange thread and the transport. Where every core computes (one rank a core, the local
     * backend's threads on this machine's cores, the emulated hosts of one core), the exchange
     * during backward took that time from the computation and measured slower than the exchange
     * after it: see docs/design.md.
     */
    private boolean overlapPays() {
        int here = comm.backend().equals("local") ? comm.size()
            : comm.processGroup().map(org.paratrain.comm.ProcessGroup::localSize).orElse(1);
        return comm.size() > 1 && Runtime.getRuntime().availableProcessors() > here;
    }

    private TrainingResult train(TrainingControl control, GradientExchange exchange) {
        RankLoop loop = new RankLoop(comm, model, optimizer, spec, batches, seed, control, exchange);
        comm.barrier();
        loop.now = comm.wtime();
        loop.start = loop.now - loop.resumedSeconds;
        int e = loop.firstEpoch;
        boolean stop = false;
        while (e < spec.epochs() && !stop) {
            comm.epoch(e + 1);      // for the backend's messages about a hang or a crash
            try {
                runEpoch(loop, exchange, e);
            } catch (PeerFailedException ex) {
                throw ex;
            } catch (RuntimeException ex) {
                throw new TrainingException("epoch " + (e + 1) + ": " + message(ex), ex);
            }
            e++;
            stop = loop.endEpoch(e);
        }
        if (loop.stopping != null) {
            loop.stopping.finish(loop.weights);
        }
        return finish(loop, exchange, e);
    }

    /**
     * One epoch's steps, from the resumed step when it is the resumed epoch. A step reads the
     * clock twice, after its blocks and after the exchange; it starts at the last reading unless
     * something ran since (a checkpoint, validation, a listener). On the paper's run a reading
     * costs about 17 ns, and four an epoch were 15% of an epoch at 1 rank.
     */
    private void runEpoch(RankLoop loop, GradientExchange exchange, int e) {
        int steps = batches.steps();
        int first = e == loop.firstEpoch ? loop.firstStep : 0;
        TrainingResult.History h = loop.history;
        double t0 = Double.isNaN(loop.now) ? comm.wtime() : loop.now;
        double t2 = t0;
        for (int s = first; s < steps; s++) {
            repeats = 1;
            if (failure != null) {
                failure.atStep(comm.rank(), (long) e * steps + s + 1);
                repeats = failure.repeats(comm.rank(), (long) e * steps + s + 1);
            }
            if (shared != null) {
                sharedStep = s;
                Dataset d = batches.unfilled(e, s);
                trainingStep(d, e, s);
                shared.data(d);
            } else {
                Dataset d = batches.step(e, s);
                trainingStep(d, e, s);
                // More than once only when a slower rank is injected (and never with batchnorm, whose
                // blocks sum their statistics with the other ranks').
                int times = model.sumsStatistics() ? 1 : repeats;
                for (int k = 0; k < times; k++) {
                    computeBlocks(exchange, ranges, d, loop.weights, k == times - 1 ? exchange.overlap() : null);
                }
            }
            double t1 = comm.wtime();
            long late0 = group == null ? 0L : group.lateNanos();
            h.loss()[e] += exchange.step(loop.weights, timedOptimizer, loop.scale);
            model.afterStep(loop.weights);
            t2 = comm.wtime();
            // Ranks that share a core: a rank woken at a meeting's end may wait for the core while a sibling
            // computes its next step. Not the exchange's time: out of the exchange without waits.
            double late = group == null ? 0.0 : (group.lateNanos() - late0) * 1e-9;
            // A shared exchange computes blocks inside its step, and counts that time itself.
            double inStep = shared == null ? 0.0 : shared.computeSeconds();
            // Batchnorm's statistics cross ranks inside the blocks: communication, not compute.
            double sync = statistics == null ? 0.0 : statistics.takeSeconds();
            h.compute()[e] += t1 - t0 + inStep - sync;
            h.comm()[e] += t2 - t1 - inStep + sync;
            clock.endStep(t2 - t1 - inStep + sync - late);
            if (rebalancer != null && rebalancer.record(t1 - t0, t2 - t0)) {
                if (rebalancer.rebalance()) {
                    exchange.rangesMoved();
                    BlockSharding b = ranges.sharding();
                    batches.own(b.blockStart(ranges.first(comm.rank())), b.blockStart(ranges.end(comm.rank())));
                }
                double t3 = comm.wtime();     // the window's allreduce counts as communication
                h.comm()[e] += t3 - t2;
                t2 = t3;
            }
            if (++loop.stepsRun == loop.control.untimedSteps()) {
                untimed(loop, exchange, e, t2);
            }
            t0 = s + 1 < steps && loop.stepDone(e, s + 1) ? comm.wtime() : t2;
        }
        loop.now = t2;
        h.seconds()[e] = t2 - loop.start;
        h.lr()[e] = optimizer.learningRate();
        h.loss()[e] = loop.mean ? h.loss()[e] / steps : h.loss()[e];
    }

    /**
     * Ends the untimed steps ({@link TrainingControl#untimedSteps}) at {@code now}: the run's
     * clock, its compute and communication seconds so far, the exchange's clock and the failed
     * guesses start again from here. The same point on every rank (the same step), so the
     * exchange's step-by-step figures still line up across ranks.
     */
    private void untimed(RankLoop loop, GradientExchange exchange, int e, double now) {
        loop.start = now;
        TrainingResult.History h = loop.history;
        for (int i = loop.firstEpoch; i <= e; i++) {
            h.compute()[i] = 0.0;
            h.comm()[i] = 0.0;
        }
        clock.restart();
        loop.missesBefore = exchange.guessMisses();
        loop.stagedBefore = exchange.stagedShares();
    }

    /**
     * Tells the model the step its blocks belong to: dropout's masks follow the seed, the step
     * and the row of the step's data (a full batch's sample index, from the shard's start when
     * the rank holds only its shard; a mini-batch's place in the batch), never the rank.
     */
    private void trainingStep(Dataset d, int e, int s) {
        model.trainingStep(seed, (long) e * batches.steps() + s, d == data ? origin : 0);
    }

    /**
     * Samples of each class over every rank's rows: each counts the rows of its own blocks of the
     * whole data, and the counts (whole numbers, exact in any order) are added across ranks.
     */
    private long[] classCounts(int classes) {
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size())) - origin;
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size())) - origin;
        double[] counts = new double[classes];
        for (int i = first; i < end; i++) {
            counts[(int) data.y()[i]] += 1;
        }
        Training.sumOverRanks(comm, counts);
        long[] n = new long[classes];
        for (int c = 0; c < classes; c++) {
            n[c] = (long) counts[c];
        }
        return n;
    }

    /** The loss at the final weights, and rank 0's result over the {@code epochs} run. */
    private TrainingResult finish(RankLoop loop, GradientExchange exchange, int epochs) {
        if (shared != null) {
            // Ranks of a shared step may end up to a ring of steps apart: the run ends with the last.
            comm.barrier();
        }
        double trainSeconds = comm.wtime() - loop.start;
        // Over the whole data only the block losses are needed: a table of one double a block
        // (summed with the run's sum, the same bits at any node count and with every exchange),
        // never a gradient a block.
        boolean same = batches.steps() == 1 && batches.stepSamples() == totalSamples && shared == null;
        BlockRanges wholeRanges = same ? ranges : new BlockRanges(sharding, comm.size());
        GradientExchange whole = same
            ? exchange : new AllreduceExchange(comm, wholeRanges, 0, Allreduces.create("recursive-doubling", comm),
                wholeLossSum());
        computeBlocks(whole, wholeRanges, data, loop.weights, false);
        double finalLoss = whole.reduceLoss(loop.mean ? 1.0 / totalSamples : 1.0);
        // Training's, before the final loss sums again, after the untimed steps.
        long misses = exchange.guessMisses() - loop.missesBefore;
        TrainingResult.History h = loop.history.first(epochs);
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

    /** Fills this rank's block losses (and gradients when asked) at {@code weights}. */
    private void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               boolean gradients) {
        computeBlocks(exchange, ranges, data, weights, gradients, null);
    }

    /** As above, with the gradients, telling {@code ready} (when not null) as the model's layers are done. */
    private void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               org.paratrain.model.GradientReady ready) {
        computeBlocks(exchange, ranges, data, weights, true, ready);
    }

    private void computeBlocks(GradientExchange exchange, BlockRanges ranges, Dataset data, double[] weights,
                               boolean gradients, org.paratrain.model.GradientReady ready) {
        BlockSharding sharding = ranges.sharding();
        int first = ranges.first(comm.rank());
        int end = ranges.end(comm.rank());
        double[] losses = exchange.losses();
        double[] grads = exchange.gradients();
        // The whole data set's blocks, or (for a shard) the same blocks shifted by the shard's start.
        int shift = data == this.data ? origin : 0;
        if (gradients) {
            // A model whose blocks sum statistics with the other ranks' is called by every rank.
            if (end > first || model.sumsStatistics()) {
                // One call for the rank's blocks: consecutive, of one size but for the data's last,
                // at offsets that step evenly (GradientExchange's contract).
                int lossStride = exchange.lossIndex(1) - exchange.lossIndex(0);
                int gradStride = exchange.gradientOffset(1) - exchange.gradientOffset(0);
                if (ready != null) {
                    model.blocks(data, sharding.blockStart(first) - shift, sharding.blockStart(end) - shift,
                        sharding.blockSize(), weights, losses, exchange.lossIndex(0), lossStride, grads,
                        exchange.gradientOffset(0), gradStride, ready);
                } else {
                    model.blocks(data, sharding.blockStart(first) - shift, sharding.blockStart(end) - shift,
                        sharding.blockSize(), weights, losses, exchange.lossIndex(0), lossStride, grads,
                        exchange.gradientOffset(0), gradStride);
                }
            }
            return;
        }
        for (int b = first; b < end; b++) {
            int k = b - first;
            losses[exchange.lossIndex(k)] = model.loss(data, sharding.blockStart(b) - shift, sharding.blockEnd(b) - shift,
                weights);
        }
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

    /** The shared exchange: this rank computes the chunks of blocks it claims, into its table of rows. */
    private SharedExchange sharedExchange(int params, BlockSharding sharding, ExchangeSpec.Sum sum) {
        if (board == null) {
            throw new IllegalStateException("the shared exchange needs ranks that are threads of one JVM "
                + "(the local backend)");
        }
        int w = params + 1;
        return new SharedExchange(board, comm.rank(), sharding.blocks(), params, sum, (d, weights, first, end, table) -> {
            batches.gather(sharedStep, sharding.blockStart(first), sharding.blockStart(end));   // mini-batches only
            for (int k = 0; k < repeats; k++) {
                model.blocks(d, sharding.blockStart(first), sharding.blockStart(end), sharding.blockSize(), weights,
                    table, first * w, w, table, first * w + 1, w);
            }
        });
    }

    private static double sum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
