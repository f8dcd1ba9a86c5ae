package org.paratrain.train;

import java.time.Duration;

/**
 * How a run is watched and kept safe, apart from what it trains: where it starts (a state to
 * resume, the parameters to start from, or the model's initialiser), when it saves its state,
 * whom it tells after each epoch, and how long a rank may wait for another before the run is
 * ended as hung. A state to resume wins over initial parameters: a run restarted from its
 * checkpoint continues where it was, wherever it first started from.
 *
 * @param resume      the state to continue from, or null to start afresh
 * @param checkpoints when and where to save the state, or null for never
 * @param listener    told on rank 0 after every epoch, or null
 * @param commTimeout how long any rank may wait in one communication call
 * @param validation  when to measure the model on held-out data and whether to stop early,
 *                    or null for never
 * @param initial     the parameters to start from when there is no state to resume, the same on
 *                    every rank (so the bits do not depend on the node count), or null for the
 *                    model's seeded initialiser
 * @param untimedSteps the run's first steps left out of its times: the result's train seconds,
 *                    rank times, history's compute and communication seconds and failed
 *                    guesses count from the end of the first {@code untimedSteps} steps of this
 *                    run (0: from its start). What the run trains does not change. A benchmark
 *                    times steady steps so: the run's first step observes and agrees the sum's
 *                    grid, and the next few may fail a guess while the grid settles, costs a
 *                    run pays once, as another framework's warm-up steps are not timed either.
 */
public record TrainingControl(TrainingState resume, Checkpoints checkpoints, EpochListener listener,
                              Duration commTimeout, Validation validation, double[] initial, int untimedSteps) {

    /**
     * A control whose times count from the run's start.
     *
     * @param resume      the state to continue from, or null to start afresh
     * @param checkpoints when and where to save the state, or null for never
     * @param listener    told on rank 0 after every epoch, or null
     * @param commTimeout how long any rank may wait in one communication call; null for the default
     * @param validation  when to validate and whether to stop early, or null for never
     * @param initial     the parameters to start from when there is no state to resume, or null
     */
    public TrainingControl(TrainingState resume, Checkpoints checkpoints, EpochListener listener,
                           Duration commTimeout, Validation validation, double[] initial) {
        this(resume, checkpoints, listener, commTimeout, validation, initial, 0);
    }

    /**
     * A control that starts from the model's initialiser (or {@code resume}).
     *
     * @param resume      the state to continue from, or null to start afresh
     * @param checkpoints when and where to save the state, or null for never
     * @param listener    told on rank 0 after every epoch, or null
     * @param commTimeout how long any rank may wait in one communication call; null for the default
     * @param validation  when to validate and whether to stop early, or null for never
     */
    public TrainingControl(TrainingState resume, Checkpoints checkpoints, EpochListener listener,
                           Duration commTimeout, Validation validation) {
        this(resume, checkpoints, listener, commTimeout, validation, null);
    }

    /**
     * A control without validation.
     *
     * @param resume      the state to continue from, or null to start afresh
     * @param checkpoints when and where to save the state, or null for never
     * @param listener    told on rank 0 after every epoch, or null
     * @param commTimeout how long any rank may wait in one communication call; null for the default
     */
    public TrainingControl(TrainingState resume, Checkpoints checkpoints, EpochListener listener,
                           Duration commTimeout) {
        this(resume, checkpoints, listener, commTimeout, null);
    }

    /** The default wait before a run is called hung: 300 s, long enough for any epoch's straggler. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);

    /** Checks the timeout and the untimed steps, and keeps a copy of the initial parameters. */
    public TrainingControl {
        initial = initial == null ? null : initial.clone();
        if (commTimeout == null) {
            commTimeout = DEFAULT_TIMEOUT;
        }
        if (commTimeout.isNegative() || commTimeout.isZero()) {
            throw new IllegalArgumentException("the communication timeout must be positive, got " + commTimeout);
        }
        if (untimedSteps < 0) {
            throw new IllegalArgumentException("the untimed steps must be 0 or more, got " + untimedSteps);
        }
    }

    /** {@return a control that starts afresh, with no checkpoints, no listener and the default timeout} */
    public static TrainingControl none() {
        return new TrainingControl(null, null, null, DEFAULT_TIMEOUT);
    }

    /** This control resuming from {@code state}. */
    TrainingControl resumingFrom(TrainingState state) {
        return new TrainingControl(state, checkpoints, listener, commTimeout, validation, initial, untimedSteps);
    }

    /** This control telling {@code l} after every epoch. */
    TrainingControl withListener(EpochListener l) {
        return new TrainingControl(resume, checkpoints, l, commTimeout, validation, initial, untimedSteps);
    }

    /** {@return the initial parameters, a copy, or null for the model's initialiser} */
    @Override
    public double[] initial() {
        return initial == null ? null : initial.clone();
    }

    /**
     * {@return this control, starting from {@code params} when it has no state to resume}
     * @param params the parameters to start from, in the model's layout (copied); null for the
     *               model's seeded initialiser
     */
    public TrainingControl withInitial(double[] params) {
        return new TrainingControl(resume, checkpoints, listener, commTimeout, validation, params, untimedSteps);
    }

    /**
     * {@return this control, validating as {@code v} says}
     * @param v when to validate and whether to stop early; null not to validate
     */
    public TrainingControl withValidation(Validation v) {
        return new TrainingControl(resume, checkpoints, listener, commTimeout, v, initial, untimedSteps);
    }

    /**
     * {@return this control, its times counted from the end of the run's first {@code steps} steps}
     * @param steps the steps left out of the times (0: none); the training is the same
     */
    public TrainingControl withUntimedSteps(int steps) {
        return new TrainingControl(resume, checkpoints, listener, commTimeout, validation, initial, steps);
    }

    /**
     * Told on rank 0 at the end of every epoch, after the divergence check: a progress bar,
     * epoch lines, or a record of the history kept for when the run fails.
     */
    @FunctionalInterface
    public interface EpochListener {
        /**
         * Called once an epoch has ended, on rank 0's thread: a slow listener slows the run.
         *
         * @param epoch   the epoch just completed, 1-based
         * @param history the run's history, valid for entries {@code [0, epoch)}; do not keep
         *                the arrays, they are the trainer's own
         */
        void epochEnd(int epoch, TrainingResult.History history);

        /**
         * Called instead of {@link #epochEnd(int, TrainingResult.History)} where the trainer can
         * show the parameters: by default it calls that and lets the run go on.
         *
         * @param epoch   the epoch just completed, 1-based
         * @param history the run's history, as above
         * @param params  the parameters after the epoch, read-only (a view, valid during the call)
         * @return true to end the run after this epoch
         */
        default boolean epochEnd(int epoch, TrainingResult.History history, java.nio.DoubleBuffer params) {
            epochEnd(epoch, history);
            return false;
        }

        /**
         * {@return whether this listener may end the run} When true, rank 0 tells every rank its
         * answer after each epoch (one small message a rank), so all leave the loop together.
         */
        default boolean mayStop() {
            return false;
        }

        /**
         * {@return a listener that sees the parameters and may end the run}
         * @param callback told after every epoch on rank 0; its true ends the run there, with the
         *                 final checkpoint written when checkpoints are on
         */
        static EpochListener acting(EpochCallback callback) {
            return new EpochListener() {
                @Override
                public void epochEnd(int epoch, TrainingResult.History history) {
                    throw new IllegalStateException("an acting listener is told through its three-argument form");
                }

                @Override
                public boolean epochEnd(int epoch, TrainingResult.History history, java.nio.DoubleBuffer params) {
                    return callback.epochEnd(epoch, history, params);
                }

                @Override
                public boolean mayStop() {
                    return true;
                }
            };
        }
    }

    /**
     * Told on rank 0 at the end of every epoch with the metrics and the parameters, and may end
     * the run: Keras's {@code model.stop_training}, Lightning's {@code trainer.should_stop}. A run
     * it ends stops on every rank after that epoch, with the result, the history and (when
     * checkpoints are on) a final checkpoint of that epoch, as a run of that many epochs would.
     */
    @FunctionalInterface
    public interface EpochCallback {
        /**
         * Called once an epoch has ended, on rank 0's thread.
         *
         * @param epoch   the epoch just completed, 1-based
         * @param history the run's history, valid for entries {@code [0, epoch)}; do not keep the arrays
         * @param params  the parameters after the epoch, read-only; copy what must outlive the call
         * @return true to end the run after this epoch
         */
        boolean epochEnd(int epoch, TrainingResult.History history, java.nio.DoubleBuffer params);
    }

    /**
     * When rank 0 saves the training state, and to whom it hands it.
     *
     * <p>By count, every rank knows when a save is due, as a sharded optimizer's state must be
     * gathered from all of them. By time, rank 0 alone decides, from its own clock: the ranks
     * hold the same state, so one copy is all a checkpoint needs, but a sharded state could not
     * be gathered, and so is refused. Where several are given, a save is due when any is.
     *
     * @param everyEpochs  save after every this many epochs (0: not by epochs)
     * @param everySteps   save after every this many updates within an epoch (0: not by steps)
     * @param everySeconds save after the first epoch ending this many seconds or more after the
     *                     last save, or the start (0: not by time); a shorter run saves nothing
     * @param sink         receives each state (a copy the trainer no longer touches)
     */
    public record Checkpoints(int everyEpochs, long everySteps, double everySeconds,
                              java.util.function.Consumer<TrainingState> sink) {
        /** Checks the intervals. */
        public Checkpoints {
            if (everyEpochs < 0 || everySteps < 0 || !(everySeconds >= 0) || Double.isInfinite(everySeconds)
                || (everyEpochs == 0 && everySteps == 0 && everySeconds == 0)) {
                throw new IllegalArgumentException("checkpoint intervals must be at least 0 and not all 0, got "
                    + everyEpochs + " epochs, " + everySteps + " steps and " + everySeconds + " seconds");
            }
            if (sink == null) {
                throw new IllegalArgumentException("checkpoints need somewhere to go");
            }
        }

        /**
         * Saves by count only.
         *
         * @param everyEpochs save after every this many epochs (0: not by epochs)
         * @param everySteps  save after every this many updates within an epoch (0: not by steps)
         * @param sink        receives each state
         */
        public Checkpoints(int everyEpochs, long everySteps, java.util.function.Consumer<TrainingState> sink) {
            this(everyEpochs, everySteps, 0, sink);
        }
    }

    /**
     * Validation during training: every {@code every} epochs (and after the last) rank 0
     * measures the parameters on held-out data; with {@code patience > 0} the run stops when
     * the validation loss has not improved for that many validations in a row, and ends with
     * the parameters of the best one.
     *
     * @param every     epochs between validations, at least 1
     * @param patience  validations without improvement before stopping; 0 never stops early
     * @param validator measures parameters: returns {loss, accuracy (NaN for regression)}
     * @param plateau   when to lower the learning rate because the validation loss stopped
     *                  improving, or null for never
     */
    public record Validation(int every, int patience, java.util.function.Function<double[], double[]> validator,
                             Plateau plateau) {
        /** Checks the values. */
        public Validation {
            if (every < 1 || patience < 0 || validator == null) {
                throw new IllegalArgumentException("validation needs an interval >= 1 and a patience >= 0, got "
                    + every + " and " + patience);
            }
        }

        /**
         * Validation without a plateau's reductions of the learning rate.
         *
         * @param every     epochs between validations, at least 1
         * @param patience  validations without improvement before stopping; 0 never stops early
         * @param validator measures parameters: returns {loss, accuracy (NaN for regression)}
         */
        public Validation(int every, int patience, java.util.function.Function<double[], double[]> validator) {
            this(every, patience, validator, null);
        }

        /**
         * {@return this validation, lowering the learning rate on a plateau as {@code p} says}
         * @param p when and by how much; null for never
         */
        public Validation withPlateau(Plateau p) {
            return new Validation(every, patience, validator, p);
        }

        /**
         * Validation on held-out samples: their loss (with the training's reduction) and, for a
         * classifier, their accuracy. Sample weights are not applied (each held-out sample counts
         * once), as class weights are not: the loss early stopping watches is the plain one.
         *
         * @param weighted  the held-out samples
         * @param model     a model of the trained kind and shape (it keeps scratch space: one a run)
         * @param reduction the training's loss reduction, applied to the held-out loss too
         * @param every     validate every this many epochs
         * @param patience  stop after this many validations without improvement; 0 never stops
         * @return the validation
         */
        public static Validation on(org.paratrain.data.Dataset weighted, org.paratrain.model.Model model,
                                    LossReduction reduction, int every, int patience) {
            org.paratrain.data.Dataset held = weighted.withWeights(null);
            boolean classifier = model instanceof org.paratrain.model.Classifier c && c.classifies();
            return new Validation(every, patience, params -> {
                double loss = model.loss(held, 0, held.samples(), params);
                return new double[] {reduction == LossReduction.MEAN ? loss / held.samples() : loss,
                    classifier ? ((org.paratrain.model.Classifier) model).accuracy(held, params) : Double.NaN};
            });
        }
    }

    /**
     * A learning rate that reacts to a plateau (Keras's {@code ReduceLROnPlateau}, PyTorch's
     * {@code ReduceLROnPlateau(mode="min")}): after {@code patience} validations in a row without
     * a new best validation loss, every later rate is multiplied by {@code factor} once more, and
     * the count starts again. Rank 0 decides from the validation loss and tells every rank the
     * factor, so all update alike; a resumed run replays the saved validation losses and takes
     * up the same factor.
     *
     * @param patience validations without improvement before each reduction, at least 1
     * @param factor   the multiplier of each reduction, in (0, 1)
     */
    public record Plateau(int patience, double factor) {
        /** Checks the values. */
        public Plateau {
            if (patience < 1 || !(factor > 0 && factor < 1)) {
                throw new IllegalArgumentException("a plateau needs a patience >= 1 and a factor in (0, 1), got "
                    + patience + " and " + factor);
            }
        }
    }
}
