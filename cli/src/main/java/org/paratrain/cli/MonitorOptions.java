package org.paratrain.cli;

import java.io.PrintWriter;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.train.LossReduction;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import picocli.CommandLine.Option;

/**
 * What a training run shows while it runs, and how it is validated: a progress bar on a
 * terminal (epoch, loss, validation), one line every N epochs with {@code --log-every}, and
 * without either in a pipe or a log file a line on standard error every
 * {@link #logPeriodSeconds()}; nothing with {@code --quiet}. Validation on the validation data
 * (never the test data) every epoch or every N, and early stopping on it.
 */
final class MonitorOptions {
    @Option(names = "--quiet", description = "No progress bar and no epoch lines.")
    boolean quiet;

    @Option(names = "--log-every", defaultValue = "0",
        description = "Print one line every N epochs (epoch, loss, learning rate, validation, time); 0 (default): "
            + "none, and where the output is no terminal a line on standard error every 30 s, with the time left.")
    int logEvery;

    @Option(names = "--validate-every", description = "Measure the model on the validation data (--val-data or "
        + "--val-fraction) every N epochs and after the last (default: every epoch when there is validation data, as "
        + "Keras and Lightning do); 0: never. The test data is measured once, at the end.")
    Integer validateEvery;

    @Option(names = "--early-stop", defaultValue = "0", description = "Stop when the validation loss has not improved "
        + "for this many validations in a row, and keep the parameters of the best epoch; 0: never.")
    int patience;

    @Option(names = "--plateau-patience", defaultValue = "0", paramLabel = "N", description = "Lower the learning "
        + "rate when the validation loss has not improved for N validations in a row (Keras's ReduceLROnPlateau), "
        + "by --plateau-factor, again after each N more; 0: never.")
    int plateauPatience;

    @Option(names = "--plateau-factor", defaultValue = "0.1", paramLabel = "F", description = "With "
        + "--plateau-patience: what each reduction multiplies the learning rate by, in (0, 1) (default ${DEFAULT-VALUE}).")
    double plateauFactor;

    @Option(names = "--tensorboard", paramLabel = "DIR", description = "Write TensorBoard event files to DIR "
        + "(tensorboard --logdir DIR): every epoch's training and validation loss and accuracy, learning rate, time "
        + "an epoch and a step, and the compute/communication split; a histogram of the parameters every "
        + "--tensorboard-histograms epochs.")
    java.nio.file.Path tensorboard;

    @Option(names = "--tensorboard-histograms", defaultValue = "10", paramLabel = "N", description = "With "
        + "--tensorboard: a histogram of the parameters every N epochs and after the last (default ${DEFAULT-VALUE}; "
        + "0: none).")
    int histogramsEvery;

    /** Checks the values before any work. */
    void check(boolean haveValidationData) {
        if (plateauPatience < 0 || !(plateauFactor > 0 && plateauFactor < 1)) {
            throw new IllegalArgumentException(plateauPatience < 0 ? "--plateau-patience must be at least 0, got "
                + plateauPatience : "--plateau-factor must be in (0, 1), got " + plateauFactor);
        }
        if (plateauPatience > 0 && (!haveValidationData || validateEvery != null && validateEvery == 0)) {
            throw new IllegalArgumentException("--plateau-patience needs validations: give --val-fraction or --val-data"
                + (haveValidationData ? ", and not --validate-every 0" : ""));
        }
        if (histogramsEvery < 0) {
            throw new IllegalArgumentException("--tensorboard-histograms must be at least 0, got " + histogramsEvery);
        }
        if (tensorboard != null && java.nio.file.Files.exists(tensorboard)
            && !java.nio.file.Files.isDirectory(tensorboard)) {
            throw new IllegalArgumentException("--tensorboard " + tensorboard + ": exists and is not a directory "
                + "(expected a log directory, made if missing)");
        }
        int every = validateEvery == null ? 0 : validateEvery;
        if (logEvery < 0 || every < 0 || patience < 0) {
            throw new IllegalArgumentException((logEvery < 0 ? "--log-every" : every < 0 ? "--validate-every"
                : "--early-stop") + " must be at least 0");
        }
        if ((every > 0 || patience > 0) && !haveValidationData) {
            throw new IllegalArgumentException((patience > 0 ? "--early-stop" : "--validate-every")
                + " needs validation data apart from the test data: give --val-fraction or --val-data");
        }
        if (patience > 0 && validateEvery != null && validateEvery == 0) {
            throw new IllegalArgumentException("--early-stop needs validations: --validate-every 0 turns them off");
        }
        if (quiet && logEvery > 0) {
            throw new IllegalArgumentException("--quiet and --log-every contradict each other; give one");
        }
    }

    /** Validation on {@code held} with {@code model}: every epoch unless told otherwise, or null when turned off. */
    TrainingControl.Validation validation(Dataset held, Model model, LossReduction reduction) {
        int every = validateEvery == null ? 1 : validateEvery;
        if (every == 0) {
            return null;
        }
        return TrainingControl.Validation.on(held, model, reduction, every, patience).withPlateau(plateauPatience == 0
            ? null : new TrainingControl.Plateau(plateauPatience, plateauFactor));
    }

    /**
     * How often a run whose output is no terminal prints a progress line to {@code err}
     * when no {@code --log-every} is given: a log file of a long run shows it alive, a short
     * run prints none. The system property {@code paratrain.progress.seconds} sets it (30).
     */
    static long logPeriodSeconds() {
        return Long.getLong("paratrain.progress.seconds", 30);
    }

    /**
     * The listener that shows progress, passing every epoch on to {@code next} as well.
     *
     * @param out where {@code --log-every}'s lines go
     * @param err where the lines of a run without a terminal go, every {@link #logPeriodSeconds()}
     */
    Display display(int epochs, PrintWriter out, PrintWriter err, TrainingControl.EpochListener next) {
        return new Display(epochs, 1, out, err, next);
    }

    /** As above, for a run of {@code steps} steps an epoch (TensorBoard's time a step). */
    Display display(int epochs, long steps, PrintWriter out, PrintWriter err, TrainingControl.EpochListener next) {
        return new Display(epochs, steps, out, err, next);
    }

    /** Shows progress; close it when the run ends, however it ends. */
    final class Display implements TrainingControl.EpochListener, AutoCloseable {
        private final PrintWriter out;
        /** Where the timed lines go, or null when a bar, --log-every or --quiet says otherwise. */
        private final PrintWriter timed;
        private final long period = logPeriodSeconds() * 1_000_000_000L;
        private long lastLine = System.nanoTime();
        private final TrainingControl.EpochListener next;
        private final ProgressBar bar;
        private final int epochs;
        private final long steps;
        /** The event file, opened at the first epoch (rank 0's alone is told), or null. */
        private org.paratrain.experiment.TensorBoardWriter board;

        Display(int epochs, long steps, PrintWriter out, PrintWriter err, TrainingControl.EpochListener next) {
            this.epochs = epochs;
            this.steps = Math.max(1, steps);
            this.out = out;
            this.next = next;
            boolean terminal = ConsoleProgress.onTerminal();
            this.bar = quiet || !terminal ? null : new ProgressBarBuilder().setTaskName("train").setInitialMax(epochs)
                .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(System.err))
                .setUpdateIntervalMillis(200).build();
            this.timed = quiet || terminal || logEvery > 0 ? null : err;
        }

        @Override
        public void epochEnd(int epoch, TrainingResult.History h) {
            next.epochEnd(epoch, h);
            if (bar != null) {
                bar.stepTo(epoch);
                bar.setExtraMessage(brief(epoch - 1, h));
            }
            if (logEvery > 0 && (epoch % logEvery == 0 || epoch == epochs)) {
                out.println(summary(epoch, h));
                out.flush();
            }
            long now = System.nanoTime();
            if (timed != null && epoch < epochs && now - lastLine >= period) {
                lastLine = now;
                double elapsed = h.seconds()[epoch - 1];
                timed.println("paratrain: " + summary(epoch, h) + ", about "
                    + Formats.duration(elapsed / epoch * (epochs - epoch)) + " left");
                timed.flush();
            }
        }

        @Override
        public boolean epochEnd(int epoch, TrainingResult.History h, java.nio.DoubleBuffer params) {
            epochEnd(epoch, h);
            if (tensorboard != null) {
                try {
                    log(epoch, h, params);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("--tensorboard " + tensorboard + ": " + e.getMessage(), e);
                }
            }
            return false;
        }

        private static final String[] TAGS = {"loss/train", "loss/validation", "accuracy/validation",
            "learning_rate", "time/epoch_seconds", "time/step_milliseconds", "time/compute_seconds",
            "time/communication_seconds"};

        /** The epoch's scalars and, when due, the parameters' histogram. */
        private void log(int epoch, TrainingResult.History h, java.nio.DoubleBuffer params) throws java.io.IOException {
            if (board == null) {
                board = org.paratrain.experiment.TensorBoardWriter.create(tensorboard);
            }
            int e = epoch - 1;
            double seconds = h.seconds()[e] - (e > 0 ? h.seconds()[e - 1] : 0);
            board.scalars(epoch, TAGS, new double[] {h.loss()[e], h.valLoss()[e], h.valAccuracy()[e], h.lr()[e],
                seconds, 1e3 * seconds / steps, h.compute()[e], h.comm()[e]});
            if (histogramsEvery > 0 && (epoch % histogramsEvery == 0 || epoch == epochs)) {
                board.histogram(epoch, "params", params, 30);
            }
            board.flush();
        }

        /** For the bar, which shares a terminal line: "loss 0.4123 val 0.4302 85.20%". */
        private static String brief(int e, TrainingResult.History h) {
            String s = String.format(Locale.ROOT, "loss %.4g", h.loss()[e]);
            if (!Double.isNaN(h.valLoss()[e])) {
                s += String.format(Locale.ROOT, " val %.4g", h.valLoss()[e]);
            }
            if (!Double.isNaN(h.valAccuracy()[e])) {
                s += " " + Formats.accuracy(h.valAccuracy()[e]);
            }
            return s;
        }

        /** "epoch 3/15  loss 0.4123  lr 0.001  val_loss 0.43  val_acc 85.20%  1.2 s". */
        private String summary(int epoch, TrainingResult.History h) {
            int e = epoch - 1;
            StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "epoch %d/%d  ", epoch, epochs));
            s.append(String.format(Locale.ROOT, "loss %.6g", h.loss()[e]));
            if (!Double.isNaN(h.lr()[e])) {
                s.append(String.format(Locale.ROOT, "  lr %.3g", h.lr()[e]));
            }
            if (!Double.isNaN(h.valLoss()[e])) {
                s.append(String.format(Locale.ROOT, "  val_loss %.6g", h.valLoss()[e]));
            }
            if (!Double.isNaN(h.valAccuracy()[e])) {
                s.append("  val_acc ").append(Formats.accuracy(h.valAccuracy()[e]));
            }
            return s.append("  ").append(Formats.duration(h.seconds()[e])).toString();
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.close();
            }
            if (board != null) {
                try {
                    board.close();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("--tensorboard " + tensorboard + ": " + e.getMessage(), e);
                }
            }
        }
    }
}
