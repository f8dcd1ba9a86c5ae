package org.paratrain.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.io.AtomicFiles;
import picocli.CommandLine.Command;

/**
 * The run the launcher records its start-up cache from (JDK 25's ahead-of-time cache): a few
 * small commands, as a user would run them, in one JVM, so that the classes they load are kept
 * loaded and linked in the cache and later JVMs map them instead of loading them again. Each
 * command runs through {@link Main#execute}, its output discarded; a failure ends this run
 * with status 1 and the launcher then does without a cache.
 */
@Command(name = "startup-training", hidden = true)
final class StartupTraining implements Runnable {
    @picocli.CommandLine.Option(names = "--work-dir", description = "Where its temporary directory goes (default: the "
        + "system's temporary directory).")
    Path workDir;

    @Override
    public void run() {
        Path dir;
        try {
            dir = workDir == null ? Files.createTempDirectory("paratrain-startup")
                : Files.createTempDirectory(workDir, "paratrain-startup");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            String d = dir.toString();
            for (List<String> command : List.of(
                List.of("generate", "regression", "--samples", "2000", "--features", "10", "--out", d + "/reg"),
                List.of("train", "--x", d + "/reg/X.in", "--y", d + "/reg/y.in", "--epochs", "200", "--nodes", "2",
                    "--lr", "1e-4", "--quiet", "--out", d + "/run"),
                List.of("evaluate", "--model-file", d + "/run/model.json", "--x", d + "/reg/X.in", "--y",
                    d + "/reg/y.in", "--out", d + "/eval"),
                List.of("generate", "classification", "--samples", "600", "--features", "8", "--classes", "3",
                    "--informative", "4", "--csv", d + "/cls.csv", "--out", d + "/cls"),
                List.of("train", "--format", "csv", "--x", d + "/cls.csv", "--label", "class", "--model", "softmax",
                    "--classes", "3", "--epochs", "20", "--quiet", "--out", d + "/cls-run"))) {
                run(command);
            }
        } finally {
            AtomicFiles.deleteQuietly(dir);
        }
    }

    private static void run(List<String> args) {
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        int status = Main.execute(quiet, quiet, args.toArray(String[]::new));
        if (status != 0) {
            throw new IllegalStateException("start-up training: " + String.join(" ", args) + " ended with " + status);
        }
    }
}
