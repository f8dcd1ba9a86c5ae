package org.paratrain.cli.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.paratrain.cli.CheckpointOptions;
import org.paratrain.cli.Formats;
import org.paratrain.data.Dataset;
import org.paratrain.io.AtomicFiles;
import org.paratrain.optim.OptimizerState;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench checkpoint}: what checkpoints cost on the Fashion-MNIST MLP
 * (784-256-10, Adam): the time to write one durably, and a run checkpointing every epoch
 * beside the same run without, alternated so both see the same machine.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
    description = {"Time one checkpoint of the Fashion-MNIST MLP and the slowdown of checkpointing every epoch and by the",
        "default interval, on the MLP and on the paper's model.",
        "The 784-256-10 MLP with Adam (203,530 parameters and two moment vectors): one checkpoint written",
        "durably (fsync, rename, fsync of the directory), and training with a checkpoint after every epoch",
        "beside the same training without, alternated, on Fashion-MNIST (random images where it is missing)."})
final class BenchCheckpointCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", defaultValue = "12000", description = "Training images (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--epochs", defaultValue = "3", description = "Epochs per timed run (default ${DEFAULT-VALUE}).")
    int epochs;

    @Option(names = "--repeats", defaultValue = "3", description = "Timed pairs of runs (default ${DEFAULT-VALUE}).")
    int repeats;

    @Option(names = "--nodes", defaultValue = "2", description = "Ranks (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--dir", description = "Where to write the checkpoints (default: a temporary directory; "
        + "point it at the disk you will use).")
    Path dir;

    @Override
    public void run() {
        Dataset data = BenchMlpCommand.images(samples);
        TrainSpec config = BenchMlpCommand.mlp(256, 0, "master-worker")
            .withRun(new RunSpec(new RunSpec.Nodes.Count(nodes), epochs, 256, 42, LossReduction.MEAN, 0));
        Path where = dir != null ? dir : tempDir();
        try {
            double[] write = writeTimes(where, config.model().newModel(784, 10).parameterCount());
            double[][] mlp = series(data, config, where, repeats);
            Dataset paper = new org.paratrain.data.MakeRegression(500, 1, 1, 0.0, 0.0, true)
                .generate(new org.paratrain.data.NumpyRandomState(1)).data();
            double[][] small = series(paper, TrainSpec.paper().withNodes(nodes), where, 10 * repeats);
            report(data, write, mlp, small);
        } finally {
            if (dir == null) {
                AtomicFiles.deleteQuietly(where);
            }
        }
    }

    /** Seconds to write one checkpoint of a network with {@code p} parameters and Adam's two vectors, 5 times. */
    private static double[] writeTimes(Path where, int p) {
        double[] w = new double[p];
        Arrays.fill(w, 0.25);
        TrainingState s = new TrainingState(10, 0, w, new OptimizerState("adam", 470, new double[] {0.5, 0.6},
            new double[][] {w, w}), new TrainingResult.History(new double[10], new double[10], new double[10],
            new double[10]));
        CheckpointStore store = new CheckpointStore(where.resolve("single"), 2);
        double[] t = new double[5];
        for (int i = 0; i < t.length; i++) {
            long t0 = System.nanoTime();
            store.write(s, JsonNodeFactory.instance.objectNode());
            t[i] = (System.nanoTime() - t0) / 1e9;
        }
        return t;
    }

    /**
     * Alternated runs of {@code config}: without checkpoints, with one every epoch, and with the
     * default of {@code --checkpoint-dir} alone (by time); a warm-up first. Rows in that order.
     */
    private static double[][] series(Dataset data, TrainSpec config, Path where, int repeats) {
        double[][] t = new double[3][repeats];
        Training.local(data, config.withEpochs(Math.min(config.epochs(), 3)));   // warm-up
        for (int r = 0; r < repeats; r++) {
            t[0][r] = Training.local(data, config).trainSeconds();
            t[1][r] = timedWithCheckpoints(data, config, where.resolve("every"), w -> new TrainingControl.Checkpoints(
                1, 0, w));
            t[2][r] = timedWithCheckpoints(data, config, where.resolve("default"), w -> new TrainingControl.Checkpoints(
                0, 0, CheckpointOptions.DEFAULT_SECONDS, w));
        }
        for (double[] row : t) {
            Arrays.sort(row);
        }
        return t;
    }

    /**
     * The training loop's time with checkpoints, as the run without reports it (set-up and
     * the final loss excluded), plus the wait for the last write to reach the disk.
     */
    private static double timedWithCheckpoints(Dataset data, TrainSpec config, Path ck,
                                               java.util.function.Function<CheckpointWriter,
                                                   TrainingControl.Checkpoints> when) {
        CheckpointWriter w = new CheckpointWriter(new CheckpointStore(ck, 2), JsonNodeFactory.instance.objectNode(),
            f -> { });
        double loop = Training.local(data, config, new TrainingControl(null, when.apply(w), null, null)).trainSeconds();
        long t0 = System.nanoTime();
        w.close();
        return loop + (System.nanoTime() - t0) / 1e9;
    }

    private void report(Dataset data, double[] write, double[][] mlp, double[][] paper) {
        Arrays.sort(write);
        long bytes = (3L * 203_530 + 42) * 8;
        var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "MLP 784-256-10, Adam, batch 256, %d ranks, %d %s images, %d epochs per run%n",
            nodes, data.samples(), Files.isDirectory(Path.of("/usr/share/datasets/fashion-mnist")) ? "Fashion-MNIST"
                : "random", epochs);
        out.printf(Locale.ROOT, "one checkpoint (%.1f MB, durable): median %.1f ms, min %.1f, max %.1f%n",
            bytes / 1e6, write[write.length / 2] * 1e3, write[0] * 1e3, write[write.length - 1] * 1e3);
        line(out, "MLP", mlp, epochs);
        out.printf(Locale.ROOT, "the paper's model: 500 x 1, gradient descent, %d ranks, 300 epochs per run%n", nodes);
        line(out, "paper", paper, 300);
    }

    /** Medians side by side: none, every epoch, the default; the slowdown of each against none. */
    private static void line(java.io.PrintWriter out, String what, double[][] t, int epochs) {
        double p = t[0][t[0].length / 2];
        double e = t[1][t[1].length / 2];
        double d = t[2][t[2].length / 2];
        out.printf(Locale.ROOT, "  %s: without checkpoints %s; every epoch %s (%+.1f%%, %s an epoch); the default, "
            + "every %.0f s, %s (%+.1f%%)%n", what, Formats.duration(p), Formats.duration(e), 100 * (e / p - 1),
            Formats.duration((e - p) / epochs), CheckpointOptions.DEFAULT_SECONDS, Formats.duration(d),
            100 * (d / p - 1));
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("paratrain-bench-checkpoint");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot make a temporary directory: " + e.getMessage(), e);
        }
    }
}
