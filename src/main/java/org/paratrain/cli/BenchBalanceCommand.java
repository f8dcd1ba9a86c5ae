package org.paratrain.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.Statistics;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench balance}: whether two local ranks pay against one, on a short run,
 * with both cores free and with another process busy on one of them.
 *
 * <p>Every run is a fresh JVM (a child process), because what a short run costs is mostly
 * what happens in a new JVM: the JIT compiles the training loop while it runs. Each child
 * trains once (cold), counting the JIT's compilation time during that run, then trains the
 * same again three times in the same JVM (warm, the median kept). The busy process is
 * another JVM spinning one thread, started before and ended after each pair of runs.
 */
@Command(name = "balance", mixinStandardHelpOptions = true,
    description = {"Time 1 and 2 local ranks on a short run, with both cores free and with one busy.",
        "Linear regression, full batch (the paper's scheme), SAMPLES x FEATURES from bench kernels' generator.",
        "Each run is a fresh JVM: its first training (cold, with the JIT's compilation time during it) and",
        "the median of three more in the same JVM (warm). 'busy': another process spins on one core",
        "meanwhile. Rounds alternate 1 and 2 ranks; medians over the rounds."})
final class BenchBalanceCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", defaultValue = "20000", description = "Samples (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--features", defaultValue = "10", description = "Features (default ${DEFAULT-VALUE}).")
    int features;

    @Option(names = "--epochs", defaultValue = "3000", description = "Epochs a run (default ${DEFAULT-VALUE}).")
    int epochs;

    @Option(names = "--rounds", defaultValue = "5", description = "Runs of each rank count and mode (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--no-busy", description = "Only with both cores free.")
    boolean noBusy;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Option(names = "--out", defaultValue = "results/bench-balance", description = "Where the table goes as "
        + "balance.csv, .json and .md, with the times plotted as balance.png and .svg (default ${DEFAULT-VALUE}).")
    Path outDir;

    /** Whether another process is busy on one core. */
    enum Mode { FREE, BUSY }

    /** One child's figures: seconds of the cold run, ms the JIT compiled during it, seconds of a warm run. */
    record Run(double coldSeconds, double compileMs, double warmSeconds, double loss) { }

    /** The medians of one mode and rank count. */
    record Row(Mode mode, int ranks, double coldSeconds, double coldMin, double coldMax, double compileMs,
               double warmSeconds) { }

    @Override
    public void run() {
        OptionChecks.range("--samples", samples, 8, Integer.MAX_VALUE);
        OptionChecks.range("--features", features, 1, Integer.MAX_VALUE);
        OptionChecks.range("--epochs", epochs, 1, Integer.MAX_VALUE);
        OptionChecks.range("--rounds", rounds, 1, 1000);
        if ((long) samples * features > org.paratrain.data.HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--samples x --features make " + (long) samples * features
                + " values, more than one array holds");
        }
        List<Mode> modes = noBusy ? List.of(Mode.FREE) : List.of(Mode.FREE, Mode.BUSY);
        Map<Mode, List<List<Run>>> runs = new EnumMap<>(Mode.class);
        for (Mode m : modes) {
            runs.put(m, List.of(new ArrayList<>(), new ArrayList<>()));
        }
        int total = rounds * modes.size() * 2;
        try (ConsoleProgress progress = new ConsoleProgress(quiet)) {
            int done = 0;
            for (int r = 0; r < rounds; r++) {
                for (Mode m : modes) {
                    try (BusyProcess busy = m == Mode.BUSY ? BusyProcess.start() : null) {
                        for (int ranks = 1; ranks <= 2; ranks++) {
                            runs.get(m).get(ranks - 1).add(child(ranks));
                            progress.update("bench balance", ++done, total);
                        }
                    }
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Mode m : modes) {
            for (int ranks = 1; ranks <= 2; ranks++) {
                rows.add(row(m, ranks, runs.get(m).get(ranks - 1)));
            }
        }
        double[] losses = runs.values().stream().flatMap(List::stream).flatMap(List::stream).mapToDouble(Run::loss)
            .distinct().toArray();
        BalanceReport.print(spec.commandLine().getOut(), rows, samples, features, epochs, rounds, losses);
        BalanceReport.write(outDir, rows, samples, features, epochs, rounds, losses);
    }

    private static Row row(Mode m, int ranks, List<Run> runs) {
        double[] cold = runs.stream().mapToDouble(Run::coldSeconds).toArray();
        double[] compile = runs.stream().mapToDouble(Run::compileMs).toArray();
        double[] warm = runs.stream().mapToDouble(Run::warmSeconds).toArray();
        return new Row(m, ranks, Statistics.median(cold), java.util.Arrays.stream(cold).min().orElseThrow(),
            java.util.Arrays.stream(cold).max().orElseThrow(), Statistics.median(compile), Statistics.median(warm));
    }

    /** Runs {@link Child} in a new JVM with this JVM's options; returns what it printed. */
    private Run child(int ranks) {
        List<String> cmd = new ArrayList<>(javaAndOptions());
        cmd.addAll(List.of(Main.class.getName(), "bench", "balance-run", "--samples", Integer.toString(samples),
            "--features", Integer.toString(features), "--epochs", Integer.toString(epochs), "--nodes",
            Integer.toString(ranks)));
        String out = CReference.output(cmd);
        return new Run(value(out, "cold_s"), value(out, "compile_ms"), value(out, "warm_s"),
            Double.longBitsToDouble(Long.parseUnsignedLong(out.lines().filter(l -> l.startsWith("loss_bits "))
                .findFirst().orElseThrow(() -> new IllegalStateException("a benchmark run printed no loss: " + out))
                .substring(10).strip(), 16)));
    }

    /** This JVM's executable, its options (the launcher's) and class path. */
    static List<String> javaAndOptions() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-XX:StartFlightRecording") && !a.startsWith("-agentlib") && !a.startsWith("-javaagent")) {
                cmd.add(a);
            }
        }
        List<String> path = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            path.add(Path.of(p).toAbsolutePath().toString());
        }
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, path));
        return cmd;
    }

    private static double value(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + " ")).mapToDouble(l -> Double.parseDouble(l.substring(
            key.length()).strip())).findFirst().orElseThrow(() -> new IllegalStateException("a benchmark run printed no "
            + key + ": " + out.strip()));
    }

    /** The data and training every run does: full-batch linear regression, the paper's exchange. */
    static TrainSpec training(int samples, int epochs, int ranks) {
        // The Hessian's largest eigenvalue is about 2n/3 for these data (as in bench kernels).
        return TrainSpec.paper().withModel(new ModelSpec.Linear(false)).withEpochs(epochs)
            .withLearningRate(0.5 / samples).withNodes(ranks);
    }

    /** One run of {@code bench balance}, in its own JVM: prints cold_s, compile_ms and warm_s. */
    @Command(name = "balance-run", hidden = true)
    static final class Child implements Runnable {
        @Option(names = "--samples", required = true)
        int samples;

        @Option(names = "--features", required = true)
        int features;

        @Option(names = "--epochs", required = true)
        int epochs;

        @Option(names = "--nodes", required = true)
        int nodes;

        @Override
        public void run() {
            Dataset data = KernelData.generate(samples, features);
            TrainSpec train = training(samples, epochs, nodes);
            var jit = ManagementFactory.getCompilationMXBean();
            long compiled = jit.getTotalCompilationTime();
            TrainingResult cold = Training.local(data, train);
            long compileMs = jit.getTotalCompilationTime() - compiled;
            double[] warm = new double[3];
            for (int i = 0; i < warm.length; i++) {
                warm[i] = Training.local(data, train).trainSeconds();
            }
            // The JIT's time counts every compiler thread, and part of it ran while the run's setup did.
            System.out.printf(Locale.ROOT, "cold_s %.6f%ncompile_ms %d%nwarm_s %.6f%nloss_bits %x%n",
                cold.trainSeconds(), compileMs, Statistics.median(warm), Double.doubleToRawLongBits(cold.finalLoss()));
        }
    }

    /** Spins one thread until told to stop, or until its parent goes (its standard input closes). */
    @Command(name = "busy-loop", hidden = true)
    static final class Spin implements Runnable {
        static volatile double sink;

        @Override
        public void run() {
            Thread watch = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // wait for end of input
                    }
                } catch (java.io.IOException e) {
                    // the parent is gone either way
                }
                Runtime.getRuntime().halt(0);
            });
            watch.setDaemon(true);
            watch.start();
            double x = 1;
            while (true) {
                for (int i = 0; i < 1_000_000; i++) {
                    x = x * 1.0000001 + 1e-9;
                }
                sink = x;
            }
        }
    }

    /** Another process busy on one core, for as long as this object is open. */
    static final class BusyProcess implements AutoCloseable {
        private final Process process;
        private final Runnable unregister;

        private BusyProcess(Process process) {
            this.process = process;
            this.unregister = org.paratrain.io.ExitCleanup.stopOnExit(process);
        }

        static BusyProcess start() {
            List<String> cmd = new ArrayList<>(javaAndOptions());
            cmd.addAll(List.of(Main.class.getName(), "bench", "busy-loop"));
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                Thread.sleep(500);      // its JVM started and its loop compiled before the runs begin
                return new BusyProcess(p);
            } catch (java.io.IOException e) {
                throw new org.paratrain.comm.BackendException("cannot start the busy process: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.paratrain.comm.BackendException("interrupted");
            }
        }

        @Override
        public void close() {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            unregister.run();
        }
    }
}
