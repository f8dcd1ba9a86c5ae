package org.paratrain.train;

import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.model.Model;
import org.paratrain.optim.Optimizer;
import org.paratrain.optim.OptimizerState;
import org.paratrain.train.spec.TrainSpec;

/**
 * The state of {@link RankTrainer}'s loop on one rank: weights, history, where it starts, when
 * it saves and validates. A run starts from the model's seeded initialiser or from the
 * control's initial parameters (the same on every rank). A resumed run takes the weights,
 * optimiser state, history and best parameters of its checkpoint, and rebuilds the divergence
 * check's and early stopping's counters by replaying the saved losses.
 */
final class RankLoop {
    private final Communicator comm;
    private final Optimizer optimizer;
    private final TrainSpec spec;
    private final Batches batches;
    final double[] weights;
    final TrainingResult.History history;
    final boolean mean;
    final double scale;
    final DivergenceMonitor monitor;
    final TrainingControl control;
    /** Gathers (and cuts) the optimizer's state when the exchange shards it. */
    final GradientExchange exchange;
    final EarlyStopping stopping;
    final int firstEpoch;
    final int firstStep;
    final double resumedSeconds;
    double start;
    /** Steps this run has taken (a resumed run counts from where it resumed). */
    long stepsRun;
    /** The exchange's failed guesses before the timed steps ({@link TrainingControl#untimedSteps}). */
    long missesBefore;
    /** The exchange's staged shares before the timed steps ({@link GradientExchange#stagedShares}). */
    double[] stagedBefore = new double[2];
    /** The clock's last reading, or NaN when something ran since (the next step reads it again). */
    double now = Double.NaN;
    /**
     * At the run's end: the seconds this rank, woken at its last meeting's end, waited for a core
     * a sibling rank held (ranks as virtual threads of one process on one carrier), so that the
     * run ended that much before this rank's clock read it. See {@code RankTrainer.runEpoch}.
     */
    double lastLate;
    /** That wait of the last step, while the current epoch's exchange seconds still hold it. */
    double lateInComm;
    /** When the last checkpoint was taken (or the loop started), by {@link System#nanoTime}. */
    private long lastSave = System.nanoTime();
    /** The weights as the listener sees them: read-only, made once. */
    private final java.nio.DoubleBuffer view;
    /** The listener's decision, sent from rank 0 to the others when it may stop the run. */
    private final double[] decision = new double[1];
    /** The tag of that message; collectives use 32001..32006, early stopping 32010. */
    static final int STOP_TAG = 32011;

    /**
     * Starts (or resumes) one rank's loop.
     *
     * @param seed     the run's seed, for the model's initial weights
     * @param control  a state to resume from, checkpoints, listener and validation
     * @param exchange the rank's exchange, which gathers a sharded optimizer's state
     */
    RankLoop(Communicator comm, Model model, Optimizer optimizer, TrainSpec spec, Batches batches, long seed,
             TrainingControl control, GradientExchange exchange) {
        this.comm = comm;
        this.optimizer = optimizer;
        this.spec = spec;
        this.batches = batches;
        this.weights = new double[model.parameterCount()];
        this.view = java.nio.DoubleBuffer.wrap(weights).asReadOnlyBuffer();
        this.history = TrainingResult.History.empty(spec.epochs());
        this.mean = spec.run().lossReduction() == LossReduction.MEAN;
        this.scale = mean ? 1.0 / batches.stepSamples() : 1.0;
        this.monitor = new DivergenceMonitor(spec.optimizer().learningRate());
        this.control = control;
        this.exchange = exchange;
        this.stopping = control.validation() == null ? null
            : new EarlyStopping(control.validation(), comm, spec.epochs(), optimizer);
        TrainingState r = control.resume();
        double[] initial = control.initial();
        if (r == null && initial == null) {
            model.initialize(weights, seed);
        } else if (r == null) {
            if (initial.length != weights.length) {
                throw new IllegalArgumentException("the initial parameters are " + initial.length + " numbers, the "
                    + "model has " + weights.length);
            }
            System.arraycopy(initial, 0, weights, 0, weights.length);
        } else {
            resume(r);
        }
        firstEpoch = r == null ? 0 : r.epoch();
        firstStep = r == null ? 0 : r.step();
        resumedSeconds = r == null || r.epoch() == 0 ? 0 : r.history().seconds()[r.epoch() - 1];
    }

    private void resume(TrainingState r) {
        if (r.params().length != weights.length || r.epoch() > spec.epochs()
            || (r.step() > 0 && r.step() >= batches.steps())) {
            throw new IllegalArgumentException("the checkpoint (" + r + ", " + r.params().length
                + " parameters) does not fit this run (" + spec.epochs() + " epochs of " + batches.steps()
                + " steps, " + weights.length + " parameters)");
        }
        System.arraycopy(r.params(), 0, weights, 0, weights.length);
        optimizer.restore(exchange.ownState(r.optimizer()));
        exchange.carrySumGrids(r.sumGrids());
        List<double[]> from = r.history().arrays();
        List<double[]> to = history.arrays();
        for (int i = 0; i < from.size(); i++) {
            System.arraycopy(from.get(i), 0, to.get(i), 0, from.get(i).length);
        }
        for (int e = 0; e < r.epoch(); e++) {
            monitor.check(e + 1, history.loss()[e]);
        }
        if (stopping != null) {
            stopping.resume(history, r.epoch(), r.best());
        }
    }

    /**
     * After epoch {@code epoch} (1-based): validate if due, tell the listener (the diverging
     * epoch too: its loss shows what went wrong), check for divergence, save if due.
     * Returns true when early stopping ends the run.
     */
    boolean endEpoch(int epoch) {
        boolean validating = stopping != null && stopping.due(epoch);
        boolean stop = validating && stopping.validate(epoch, weights, history);
        TrainingControl.EpochListener l = control.listener();
        boolean listening = comm.rank() == 0 && l != null;
        boolean asked = listening && l.epochEnd(epoch, history, view.clear());
        if (l != null && l.mayStop()) {
            stop |= agree(asked);
        }
        String diverged = monitor.check(epoch, history.loss()[epoch - 1]);
        if (diverged != null) {
            throw new DivergenceException(diverged);
        }
        TrainingControl.Checkpoints c = control.checkpoints();
        boolean byEpochs = c != null && c.everyEpochs() > 0
            && (epoch % c.everyEpochs() == 0 || epoch == spec.epochs() || stop);
        boolean bySteps = c != null && c.everySteps() > 0 && (long) epoch * batches.steps() % c.everySteps() == 0;
        boolean byTime = !byEpochs && !bySteps && timeToSave(c);
        if (byEpochs || bySteps || byTime) {
            save(epoch, 0);
        }
        if (validating || listening || byEpochs || bySteps || byTime) {
            now = Double.NaN;
        }
        return stop;
    }

    /** Rank 0's decision to stop, sent to every other rank: all leave the loop after the same epoch. */
    private boolean agree(boolean asked) {
        if (comm.rank() == 0) {
            decision[0] = asked ? 1 : 0;
            for (int r = 1; r < comm.size(); r++) {
                comm.send(decision, 0, 1, r, STOP_TAG);
            }
        } else {
            comm.recv(decision, 0, 1, 0, STOP_TAG);
        }
        return decision[0] != 0;
    }

    /**
     * After step {@code step} of epoch {@code e} (0-based), not the epoch's last: save if it is
     * time. Returns true when it saved.
     */
    boolean stepDone(int e, int step) {
        TrainingControl.Checkpoints c = control.checkpoints();
        if (c == null || c.everySteps() == 0) {
            return false;
        }
        long done = (long) e * batches.steps() + step;
        if (done % c.everySteps() == 0) {
            save(e, step);
            return true;
        }
        return false;
    }

    /**
     * By time, on rank 0 alone (its clock decides; the other ranks hold the same state): the
     * interval has passed since the last save. A run shorter than the interval saves nothing:
     * what a failure could lose is at most the interval's work, which is what the interval
     * says. A gathered state needs every rank, so it is refused.
     */
    private boolean timeToSave(TrainingControl.Checkpoints c) {
        if (c == null || c.everySeconds() == 0 || comm.rank() != 0) {
            return false;
        }
        if (exchange.gathersState()) {
            throw new IllegalArgumentException("checkpoints by time cannot gather a sharded optimizer's state (every "
                + "rank would have to agree on the moment); save by epochs or steps");
        }
        return System.nanoTime() - lastSave >= (long) (c.everySeconds() * 1e9);
    }

    /** Called on every rank when a checkpoint is due (a sharded state is gathered); rank 0 writes it. */
    private void save(int epoch, int step) {
        lastSave = System.nanoTime();
        OptimizerState state = exchange.wholeState(optimizer);
        if (comm.rank() != 0) {
            return;
        }
        TrainingResult.History h = history.first(epoch + (step > 0 ? 1 : 0));
        if (step > 0) {
            h.seconds()[epoch] = comm.wtime() - start;
        }
        control.checkpoints().sink().accept(new TrainingState(epoch, step, weights, state, h,
            stopping == null ? new double[0] : stopping.best(), exchange.sumGrids()));
    }
}
