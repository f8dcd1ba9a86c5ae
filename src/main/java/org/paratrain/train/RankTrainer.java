package org.paratrain.train;

import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.optim.Optimizer;

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
    private final Dataset data;
    private final Model model;
    private final Optimizer optimizer;
    private final TrainConfig config;
    private final Batches batches;
    private final long seed;
    /** The first sample this rank's data holds: 0, or the start of its shard when it holds only that. */
    private final int origin;
    private final int totalSamples;
    private final BlockSharding sharding;

    /** Prepares one rank's part of a full-batch run; {@code optimizer} must be this rank's own instance. */
    public RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainConfig config) {
        this(comm, data, model, optimizer, config, 0, 0);
    }

    /**
     * Prepares one rank's part of a run with mini-batches of {@code batchSize} samples (0: full
     * batch) visited in an order drawn from {@code seed}; see {@link Batches}.
     */
    public RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainConfig config,
                       int batchSize, long seed) {
        this(comm, data, 0, data.samples(), model, optimizer, config, batchSize, seed);
    }

    /**
     * A full-batch run in which this rank holds only samples {@code [origin, origin + data.samples())}
     * of {@code total}: its own blocks, read from a file too large to hold on every rank.
     */
    public RankTrainer(Communicator comm, Dataset data, int origin, int total, Model model, Optimizer optimizer,
                       TrainConfig config, int batchSize, long seed) {
        this.origin = origin;
        this.totalSamples = total;
        this.comm = comm;
        this.data = data;
        this.model = model;
        this.optimizer = optimizer;
        this.config = config;
        this.batches = new Batches(data, total, batchSize, seed, config.blockSize(), comm.rank(), comm.size());
        this.seed = seed;
        this.sharding = config.blockSize() == 0
            ? BlockSharding.byDefault(total)
            : new BlockSharding(total, config.blockSize());
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size()));
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size()));
        if (first < origin || end > origin + data.samples()) {
            throw new IllegalArgumentException("rank " + comm.rank() + " holds samples [" + origin + ", "
                + (origin + data.samples()) + ") but its blocks need [" + first + ", " + end + ")");
        }
    }

    /** Runs the loop from the beginning; rank 0 returns the result, other ranks return null. */
    public TrainingResult train() {
        return train(TrainingControl.none());
    }

    /**
     * Runs the loop from {@code control}'s state (or the beginning), saving checkpoints and
     * telling its listener on rank 0; rank 0 returns the result, other ranks return null.
     */
    public TrainingResult train(TrainingControl control) {
        int p = model.parameterCount();
        GradientExchange exchange = exchange(p, batches.sharding());
        Loop loop = new Loop(p, control);
        comm.barrier();
        loop.start = comm.wtime() - loop.resumedSeconds;
        for (int e = loop.firstEpoch; e < config.epochs(); e++) {
            try {
                runEpoch(loop, exchange, e);
            } catch (PeerFailedException ex) {
                throw ex;
            } catch (RuntimeException ex) {
                throw new TrainingException("epoch " + (e + 1) + ": " + message(ex), ex);
            }
            loop.tellListener(e + 1);      // the diverging epoch too: its loss shows what went wrong
            String diverged = loop.monitor.check(e + 1, loop.loss[e]);
            if (diverged != null) {
                throw new DivergenceException(diverged);
            }
            loop.saveIfDue(e + 1);
        }
        return finish(loop, exchange);
    }

    /** One epoch's steps, from the resumed step when it is the resumed epoch. */
    private void runEpoch(Loop loop, GradientExchange exchange, int e) {
        int steps = batches.steps();
        int first = e == loop.firstEpoch ? loop.firstStep : 0;
        for (int s = first; s < steps; s++) {
            double t0 = comm.wtime();
            computeBlocks(exchange, batches.sharding(), batches.step(e, s), loop.weights, true);
            double t1 = comm.wtime();
            loop.loss[e] += exchange.step(loop.weights, optimizer, loop.scale);
            double t2 = comm.wtime();
            loop.compute[e] += t1 - t0;
            loop.commTime[e] += t2 - t1;
            if (s + 1 < steps) {
                loop.stepDone(e, s + 1);
            }
        }
        loop.seconds[e] = comm.wtime() - loop.start;
        loop.loss[e] = loop.mean ? loop.loss[e] / steps : loop.loss[e];
    }

    /** The loss at the final weights, and rank 0's result. */
    private TrainingResult finish(Loop loop, GradientExchange exchange) {
        double trainSeconds = comm.wtime() - loop.start;
        int p = model.parameterCount();
        GradientExchange whole = batches.steps() == 1 && batches.stepSamples() == totalSamples ? exchange
            : exchange(p, sharding);
        computeBlocks(whole, sharding, data, loop.weights, false);
        double finalLoss = whole.reduceLoss(loop.mean ? 1.0 / totalSamples : 1.0);
        if (comm.rank() != 0) {
            return null;
        }
        return new TrainingResult(loop.weights, finalLoss, config.epochs(), comm.size(), comm.backend(),
            exchange.name(), batches.sharding().blockSize(), trainSeconds, sum(loop.compute), sum(loop.commTime),
            new TrainingResult.History(loop.loss, loop.seconds, loop.compute, loop.commTime));
    }

    /**
     * The state of the loop on this rank: weights, history, where it starts, and when it
     * saves. A resumed run takes the weights, optimiser state and history of its checkpoint,
     * and rebuilds the divergence check's state by replaying the saved losses through it.
     */
    private final class Loop {
        final double[] weights;
        final double[] loss;
        final double[] seconds;
        final double[] compute;
        final double[] commTime;
        final boolean mean = config.lossReduction() == LossReduction.MEAN;
        final double scale;
        final DivergenceMonitor monitor = new DivergenceMonitor(config.learningRate());
        final TrainingControl control;
        final int firstEpoch;
        final int firstStep;
        final double resumedSeconds;
        double start;

        Loop(int p, TrainingControl control) {
            this.control = control;
            int epochs = config.epochs();
            scale = mean ? 1.0 / batches.stepSamples() : 1.0;
            weights = new double[p];
            loss = new double[epochs];
            seconds = new double[epochs];
            compute = new double[epochs];
            commTime = new double[epochs];
            TrainingState r = control.resume();
            if (r == null) {
                model.initialize(weights, seed);
                firstEpoch = 0;
                firstStep = 0;
                resumedSeconds = 0;
                return;
            }
            resume(r);
            firstEpoch = r.epoch();
            firstStep = r.step();
            resumedSeconds = r.epoch() == 0 ? 0 : r.history().seconds()[r.epoch() - 1];
        }

        private void resume(TrainingState r) {
            if (r.params().length != weights.length || r.epoch() > config.epochs()
                || (r.step() > 0 && r.step() >= batches.steps())) {
                throw new IllegalArgumentException("the checkpoint (" + r + ", " + r.params().length
                    + " parameters) does not fit this run (" + config.epochs() + " epochs of " + batches.steps()
                    + " steps, " + weights.length + " parameters)");
            }
            System.arraycopy(r.params(), 0, weights, 0, weights.length);
            optimizer.restore(r.optimizer());
            TrainingResult.History h = r.history();
            int n = h.loss().length;
            System.arraycopy(h.loss(), 0, loss, 0, n);
            System.arraycopy(h.seconds(), 0, seconds, 0, n);
            System.arraycopy(h.compute(), 0, compute, 0, n);
            System.arraycopy(h.comm(), 0, commTime, 0, n);
            for (int e = 0; e < r.epoch(); e++) {
                monitor.check(e + 1, loss[e]);
            }
        }

        /** After epoch {@code epoch} (1-based), on rank 0: tell the listener. */
        void tellListener(int epoch) {
            if (comm.rank() == 0 && control.listener() != null) {
                control.listener().epochEnd(epoch, new TrainingResult.History(loss, seconds, compute, commTime));
            }
        }

        /** After epoch {@code epoch} (1-based) passed the divergence check, on rank 0: save if it is time. */
        void saveIfDue(int epoch) {
            TrainingControl.Checkpoints c = control.checkpoints();
            boolean byEpochs = c != null && c.everyEpochs() > 0
                && (epoch % c.everyEpochs() == 0 || epoch == config.epochs());
            boolean bySteps = c != null && c.everySteps() > 0 && (long) epoch * batches.steps() % c.everySteps() == 0;
            if (comm.rank() == 0 && (byEpochs || bySteps)) {
                save(epoch, 0);
            }
        }

        /** After step {@code step} of epoch {@code e} (0-based), not the epoch's last: save if it is time. */
        void stepDone(int e, int step) {
            TrainingControl.Checkpoints c = control.checkpoints();
            if (c == null || c.everySteps() == 0 || comm.rank() != 0) {
                return;
            }
            long done = (long) e * batches.steps() + step;
            if (done % c.everySteps() == 0) {
                save(e, step);
            }
        }

        private void save(int epoch, int step) {
            int entries = epoch + (step > 0 ? 1 : 0);
            TrainingResult.History h = TrainingState.copy(new TrainingResult.History(loss, seconds, compute, commTime),
                entries);
            if (step > 0) {
                h.seconds()[epoch] = comm.wtime() - start;
            }
            control.checkpoints().sink().accept(new TrainingState(epoch, step, weights, optimizer.state(), h));
        }
    }

    /** Fills this rank's block losses (and gradients when asked) at {@code weights}. */
    private void computeBlocks(GradientExchange exchange, BlockSharding sharding, Dataset data, double[] weights,
                               boolean gradients) {
        int first = sharding.firstBlock(comm.rank(), comm.size());
        int end = sharding.endBlock(comm.rank(), comm.size());
        double[] losses = exchange.losses();
        double[] grads = exchange.gradients();
        int p = model.parameterCount();
        for (int b = first; b < end; b++) {
            int k = b - first;
            // The whole data set's blocks, or (for a shard) the same blocks shifted by the shard's start.
            int shift = data == this.data ? origin : 0;
            int from = sharding.blockStart(b) - shift;
            int to = sharding.blockEnd(b) - shift;
            if (gradients) {
                int at = exchange.gradientOffset(k);
                java.util.Arrays.fill(grads, at, at + p, 0.0);
                losses[exchange.lossIndex(k)] = model.lossAndGradient(data, from, to, weights, grads, at);
            } else {
                losses[exchange.lossIndex(k)] = model.loss(data, from, to, weights);
            }
        }
    }

    /** The exchange the configuration names ({@code auto} resolved by the caller beforehand). */
    private GradientExchange exchange(int params, BlockSharding sharding) {
        String name = config.exchange();
        if (name.equals(TrainConfig.MASTER_WORKER)) {
            return new MasterWorkerExchange(comm, sharding, params);
        }
        if (name.equals("auto")) {
            throw new IllegalArgumentException("--allreduce auto must be resolved before training starts");
        }
        return new AllreduceExchange(comm, sharding, params, Allreduces.create(name));
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
