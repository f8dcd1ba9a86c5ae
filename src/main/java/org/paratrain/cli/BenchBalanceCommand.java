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

    @Option(names = "--modes", split = ",", defaultValue = "free,busy",
        description = "free (both cores free), busy (another process spinning on one core) or both "
            + "(default ${DEFAULT-VALUE}).")
    List<String> modeNames;

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
        OutputPaths.directory("--out", outDir);
        List<Mode> modes = modes();
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
        // The same training in this JVM: every child, at 1 and 2 ranks, must end with its bits.
        double loss = Training.local(KernelData.generate(samples, features), training(samples, epochs, 1)).finalLoss();
        double[] losses = runs.values().stream().flatMap(List::stream).flatMap(List::stream).mapToDouble(Run::loss)
            .filter(l -> Double.doubleToRawLongBits(l) != Double.doubleToRawLongBits(loss)).distinct().toArray();
        if (losses.length > 0) {
            throw new org.paratrain.comm.BackendException("bench balance: runs ended with final losses "
                + java.util.Arrays.toString(losses) + " instead of " + loss + ", the same training's in this JVM");
        }
        BalanceReport.print(spec.commandLine().getOut(), rows, samples, features, epochs, rounds, loss);
        BalanceReport.write(outDir, rows, samples, features, epochs, rounds, loss);
    }

    private List<Mode> modes() {
        List<Mode> modes = new ArrayList<>();
        for (String name : modeNames) {
            Mode m = switch (name.strip().toLowerCase(Locale.ROOT)) {
                case "free" -> Mode.FREE;
                case "busy" -> Mode.BUSY;
                default -> throw new IllegalArgumentException("--modes: '" + name + "' is not free or busy");
            };
            if (!modes.contains(m)) {
                modes.add(m);
            }
        }
        modes.sort(null);
        return modes;
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
        String out = output(cmd);
        try {
            return new Run(value(out, "cold_s"), value(out, "compile_ms"), value(out, "warm_s"),
                Double.longBitsToDouble(Long.parseUnsignedLong(text(out, "loss_bits"), 16)));
        } catch (NumberFormatException e) {
            throw new org.paratrain.comm.BackendException("bench balance: a run printed what is not a figure: "
                + out.strip());
        }
    }

    /** How long one child may take before it is taken for hung. */
    private static final long CHILD_MINUTES = 10;

    /** Runs a child JVM to its end (at most {@link #CHILD_MINUTES}); returns its output, or fails naming it. */
    private static String output(List<String> cmd) {
        Process p = start(cmd, ProcessBuilder.Redirect.PIPE);
        Runnable unregister = org.paratrain.io.ExitCleanup.stopOnExit(p);   // a cancel ends the child too
        try {
            java.util.concurrent.CompletableFuture<String> text = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes());
                } catch (java.io.IOException e) {
                    return "";
                }
            });
            if (!p.waitFor(CHILD_MINUTES, java.util.concurrent.TimeUnit.MINUTES)) {
                throw new org.paratrain.comm.BackendException("bench balance: a run took more than " + CHILD_MINUTES
                    + " minutes: " + String.join(" ", cmd.subList(cmd.size() - 10, cmd.size())));
            }
            String out = text.join();
            if (p.exitValue() != 0) {
                // A child reports its own error on one line, last.
                String last = out.strip().lines().reduce((a, b) -> b).orElse("no output");
                throw new org.paratrain.comm.BackendException("bench balance: a run failed (exit " + p.exitValue()
                    + "): " + last);
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.paratrain.comm.BackendException("interrupted");
        } finally {
            p.destroyForcibly();
            unregister.run();
        }
    }

    /**
     * Starts a JVM of this benchmark, its output to {@code out}: without the options that the
     * environment would add a second time ({@code JDK_JAVA_OPTIONS}) or that name files and
     * ports every child would share ({@code JAVA_TOOL_OPTIONS}).
     */
    private static Process start(List<String> cmd, ProcessBuilder.Redirect out) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out);
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        try {
            return pb.start();
        } catch (java.io.IOException e) {
            throw new org.paratrain.comm.BackendException("cannot start " + cmd.get(0) + ": " + e.getMessage());
        }
    }

    /** This JVM's executable, its options (the launcher's) and class path. */
    static List<String> javaAndOptions() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (passedOn(a)) {
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

    /**
     * Whether a child gets this JVM option: the heap, the collector and other {@code -XX} settings,
     * native access, modules and paratrain's own properties; not agents, recordings, debuggers,
     * log files or management ports, which every child would open at once.
     */
    static boolean passedOn(String option) {
        if (option.startsWith("-XX:")) {
            return !option.startsWith("-XX:StartFlightRecording") && !option.startsWith("-XX:FlightRecorderOptions");
        }
        return option.startsWith("-Xmx") || option.startsWith("-Xms") || option.startsWith("-Xss")
            || option.startsWith("--enable-native-access") || option.startsWith("--add-")
            || option.startsWith("-Dparatrain.");
    }

    private static double value(String out, String key) {
        try {
            return Double.parseDouble(text(out, key));
        } catch (NumberFormatException e) {
            throw new org.paratrain.comm.BackendException("bench balance: a run printed what is not a figure for "
                + key + ": " + out.strip());
        }
    }

    /** The text after {@code key} on the child's line that starts with it. */
    private static String text(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length()).strip()).findFirst()
            .orElseThrow(() -> new org.paratrain.comm.BackendException("bench balance: a run printed no " + key + ": "
                + out.strip()));
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
            System.out.println("ready");
            System.out.flush();
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
            BusyProcess busy = new BusyProcess(BenchBalanceCommand.start(cmd, ProcessBuilder.Redirect.PIPE));
            try {
                // Its JVM has started once it says so; a moment more and its loop runs compiled.
                String line = new java.io.BufferedReader(new java.io.InputStreamReader(busy.process.getInputStream()))
                    .readLine();
                if (!"ready".equals(line)) {
                    throw new org.paratrain.comm.BackendException("the busy process did not start: " + line);
                }
                Thread.sleep(200);
                return busy;
            } catch (java.io.IOException | RuntimeException e) {
                busy.close();
                throw e instanceof RuntimeException r ? r
                    : new org.paratrain.comm.BackendException("the busy process did not start: " + e.getMessage());
            } catch (InterruptedException e) {
                busy.close();
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
