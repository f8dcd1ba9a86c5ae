package org.paratrain.cli;

import java.io.Console;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.paratrain.cli.experiment.Report;

/**
 * A progress bar on standard error, one per phase, shown only on a terminal and without
 * {@code --quiet}; in a pipe or a log file it prints nothing.
 */
public final class ConsoleProgress implements Report.Progress, AutoCloseable {
    private final boolean enabled;
    private ProgressBar bar;
    private String phase;

    /**
     * Progress on a terminal, unless quiet; nothing where the output is not a terminal.
     *
     * @param quiet whether to show nothing
     */
    public ConsoleProgress(boolean quiet) {
        this.enabled = !quiet && onTerminal();
    }

    /** {@return whether this process's output is a terminal: progress shows as a bar there, as lines in a log} */
    static boolean onTerminal() {
        Console console = System.console();
        return console != null && console.isTerminal();
    }

    @Override
    public void update(String name, int done, int total) {
        if (!enabled) {
            return;
        }
        if (!name.equals(phase)) {
            close();
            phase = name;
            bar = new ProgressBarBuilder().setTaskName(name).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).setUpdateIntervalMillis(100).build();
        }
        bar.stepTo(done);
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}
