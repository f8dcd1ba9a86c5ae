package org.paratrain.train;

import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec;
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
    /** This rank's blocks, computed into an exchange's tables. */
    private final RankBlocks blocks;
    /** The run's end: the final loss and rank 0's result. */
    private final RankFinish ending;

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
        RankChecks.halfWordBlocks(spec, batches);
        // At 1 rank there is no boundary to move: no windows, no allreduce.
        this.rebalancer = spec.run().rebalancing() && comm.size() > 1
            ? new Rebalancer(comm, ranges, spec.run().rebalance()) : null;
        RankChecks.rebalancing(spec, comm, any, total, data);
        RankChecks.ownBlocks(comm, sharding, origin, data);
        this.blocks = new RankBlocks(comm, model, data, origin, sharding);
        this.ending = new RankFinish(comm, spec, batches, sharding, ranges, clock, blocks, data, total);
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
            model.objective(spec.loss().objective(c.classes(),
                spec.loss().balanced() ? blocks.classCounts(c.classes()) : null));
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
        OverlapBuckets.choose(exchange, comm, model, spec.run().bucketSize());
        try {
            return train(control, exchange);
        } finally {
            exchange.close();
        }
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
        // The wait after the last meeting (the last step's, or a checkpoint's gather after it).
        loop.lastLate = group == null ? 0.0 : group.lastLateNanos() * 1e-9;
        return ending.finish(loop, exchange, shared, e);
    }

    /**
     * One epoch's steps, from the resumed step when it is the resumed epoch. A step reads the
     * clock twice, after its blocks and after the exchange; it starts at the last reading unless
     * something ran since (a checkpoint, validation, a listener). On the paper's run a reading
     * costs about 17 ns, and four an epoch were 15% of an epoch at 1 rank.
     *
     * <p>Where ranks share a carrier, the rank woken first at a meeting's end runs on while the
     * others wait for the core: they read the clock late. Inside the run that is the sibling's
     * next step, training's own time; but at the run's edges it is not, so the timed steps start,
     * and an epoch's seconds are read, when the step's last meeting ended ({@code t2 - edge}, the
     * wait after that meeting alone: an earlier meeting's wait delays the later ones for every
     * rank, and is the exchange's). The run's end does the same in {@link RankFinish#finish}.
     * Without it rank 0's run at 2 x 2 (the CNN, 40 steps) held a sibling's whole final-loss pass,
     * 400 ms, and {@code bench network} reported 18% fewer samples per second than the steps took.
     */
    private void runEpoch(RankLoop loop, GradientExchange exchange, int e) {
        int steps = batches.steps();
        int first = e == loop.firstEpoch ? loop.firstStep : 0;
        TrainingResult.History h = loop.history;
        double t0 = Double.isNaN(loop.now) ? comm.wtime() : loop.now;
        double t2 = t0;
        double edge = 0.0;
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
                    blocks.computeBlocks(exchange, ranges, d, loop.weights, k == times - 1 ? exchange.overlap() : null);
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
            // The wait after the step's last meeting (the exchange's, or the window's allreduce), in h.comm() now;
            // at most the step's waits, should the step have met no one.
            edge = group == null ? 0.0 : Math.min(group.lastLateNanos(), group.lateNanos() - late0) * 1e-9;
            loop.lateInComm = edge;
            if (++loop.stepsRun == loop.control.untimedSteps()) {
                untimed(loop, exchange, e, t2 - edge);
            }
            t0 = s + 1 < steps && loop.stepDone(e, s + 1) ? comm.wtime() : t2;
        }
        loop.now = t2;
        h.seconds()[e] = t2 - edge - loop.start;
        if (e == spec.epochs() - 1) {
            // The run's last step: its last wait is no exchange, as the listener and the checkpoint will read.
            h.comm()[e] -= loop.lateInComm;
            loop.lateInComm = 0.0;
        }
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
        loop.lateInComm = 0.0;                  // the exchange seconds that held it start again
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

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
