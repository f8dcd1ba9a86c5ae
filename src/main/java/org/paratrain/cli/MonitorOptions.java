package org.paratrain.cli;

import java.io.Console;
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
 * terminal (epoch, loss, validation), one line every N epochs with {@code --log-every} (for
 * pipes and log files), nothing with {@code --quiet}; validation on the test data every N
 * epochs, and early stopping.
 */
final class MonitorOptions {
    @Option(names = "--quiet", description = "No progress bar and no epoch lines.")
    boolean quiet;

    @Option(names = "--log-every", defaultValue = "0",
        description = "Print one line every N epochs (epoch, loss, learning rate, validation, time); 0: none.")
    int logEvery;

    @Option(names = "--validate-every", defaultValue = "0", description = "Measure the model on the test data "
        + "(--test-data or --test-fraction) every N epochs and after the last; 0: only at the end.")
    int validateEvery;

    @Option(names = "--early-stop", defaultValue = "0", description = "Stop when the validation loss has not improved "
        + "for this many validations in a row, and keep the best parameters (validates every epoch unless "
        + "--validate-every says otherwise); 0: never.")
    int patience;

    /** Checks the values before any work. */
    void check(boolean haveTestData) {
        if (logEvery < 0 || validateEvery < 0 || patience < 0) {
            throw new IllegalArgumentException((logEvery < 0 ? "--log-every" : validateEvery < 0 ? "--validate-every"
                : "--early-stop") + " must be at least 0");
        }
        if ((validateEvery > 0 || patience > 0) && !haveTestData) {
            throw new IllegalArgumentException((patience > 0 ? "--early-stop" : "--validate-every")
                + " needs validation data: give --test-data or --test-fraction");
        }
        if (quiet && logEvery > 0) {
            throw new IllegalArgumentException("--quiet and --log-every contradict each other; give one");
        }
    }

    /** Validation on {@code test} with {@code model}, or null when not asked for. */
    TrainingControl.Validation validation(Dataset test, Model model, LossReduction reduction) {
        if (validateEvery == 0 && patience == 0) {
            return null;
        }
        return TrainingControl.Validation.on(test, model, reduction, validateEvery == 0 ? 1 : validateEvery, patience);
    }

    /** The listener that shows progress, passing every epoch on to {@code next} as well. */
    Display display(int epochs, PrintWriter out, TrainingControl.EpochListener next) {
        return new Display(epochs, out, next);
    }

    /** Shows progress; close it when the run ends, however it ends. */
    final class Display implements TrainingControl.EpochListener, AutoCloseable {
        private final PrintWriter out;
        private final TrainingControl.EpochListener next;
        private final ProgressBar bar;
        private final int epochs;

        Display(int epochs, PrintWriter out, TrainingControl.EpochListener next) {
            this.epochs = epochs;
            this.out = out;
            this.next = next;
            Console console = System.console();
            boolean terminal = console != null && console.isTerminal();
            this.bar = quiet || !terminal ? null : new ProgressBarBuilder().setTaskName("train").setInitialMax(epochs)
                .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(System.err))
                .setUpdateIntervalMillis(200).build();
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
        }
    }
}
