package org.paratrain.cli.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.paratrain.cli.BackendOptions;
import org.paratrain.cli.OptionChecks;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.cli.experiment.PaperSetup;
import org.paratrain.cli.experiment.Statistics;
import org.paratrain.cli.experiment.Sweep;
import org.paratrain.cli.experiment.SweepSpec;
import org.paratrain.io.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain bench}: benchmarks that print figures measured side by side in one run. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run benchmarks.",
    subcommands = {BenchCommand.Paper.class, BenchBalanceCommand.class, BalanceRun.class,
        BusyProcess.Spin.class, BenchCheckpointCommand.class, BenchCollectivesCommand.class,
        BenchDlCommand.class, BenchKernelsCommand.class, BenchKernelsCommand.VectorRun.class,
        BenchMlpCommand.class, BenchMpiCommand.class, BenchNetworkCommand.class, BenchMpiRanks.Worker.class, BenchMpiRanks.TcpWorker.class,
        BenchSparkCommand.class,
        BenchMpiRanks.SelfTest.class, BenchMpiRanks.InitProbe.class, BenchMpiFixedCommand.class})
public final class BenchCommand implements Runnable {
    /** The command as picocli makes it, for {@code Main}'s list of subcommands. */
    public BenchCommand() { }

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "say which benchmark, e.g. bench paper");
    }

    /** The paper's run (500 x 1, 300 epochs) at each node count, after warm-up, beside C. */
    @Command(name = "paper", mixinStandardHelpOptions = true,
        description = {"Time the paper's run at each node count beside the paper's scheme in C.",
        "Times the paper's training at each node count after warm-up, next to the paper's scheme",
            "in C with MPI (built with mpicc and run under mpirun in the same run, when installed)."})
    static final class Paper implements Runnable {
        /** The paper's scheme in C with Open MPI, ms per run, quoted for this kind of machine when mpicc is absent. */
        private static final double[] QUOTED_C_MS = {0.14, 0.26, 2.7, 5.0, 14, 25};

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--nodes", split = ",", defaultValue = "1,2,4,8,16,32",
            description = "Node counts (default ${DEFAULT-VALUE}).")
        int[] nodes;

        @Option(names = "--repeats", defaultValue = "20", description = "Timed runs per node count (default ${DEFAULT-VALUE}).")
        int repeats;

        // 200: an MPI rank's JVM needs that many 300-epoch runs before C2 has compiled the loop (at 20, the
        // one-rank run took 1.07 us an epoch on MPI against 0.70 after 200, the local backend's figure).
        @Option(names = "--warmup", defaultValue = "200", description = "Untimed runs per node count first (default ${DEFAULT-VALUE}).")
        int warmup;

        @Option(names = "--no-c", description = "Do not build and run the C reference.")
        boolean noC;

        // This machine's two virtual CPUs are at times slower together for seconds at a time (the C
        // program's 2-rank run then takes 0.35 instead of 0.19 ms), so one round may compare a slow
        // spell on one side with a fast one on the other; the best of several alternating rounds does not.
        @Option(names = "--rounds", defaultValue = "1",
            description = "Alternating rounds of paratrain and C, 1 to 20; each side keeps its best round "
                + "(default ${DEFAULT-VALUE}).")
        int rounds;

        @picocli.CommandLine.Mixin
        BackendOptions backend;

        @Override
        public void run() {
            OptionChecks.range("--rounds", rounds, 1, 20);
            SweepSpec sweep = new SweepSpec(nodes, repeats, warmup, PaperSetup.config());
            boolean mpi = backend.isMpi();
            Dataset data = PaperSetup.data();
            boolean withC = !noC && CReference.available();
            List<Sweep.Point> points = null;
            double[] cMs = null;
            // The C program is built and its data written once, for every round.
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"), "paratrain-c");
            Path dir = withC ? AtomicFiles.stagingDirectory(tmp) : null;
            try {
                Path exe = null;
                if (withC) {
                    PaperFormat.write(data, dir);
                    exe = CReference.build("paper_mpi");
                }
                for (int r = 0; r < rounds; r++) {
                    List<Sweep.Point> round = mpi
                        ? Sweep.runMpi(data, sweep, backend.sweepLaunchSpec(nodes), done -> { })
                        : Sweep.run(data, sweep, done -> { });
                    points = points == null ? round : faster(points, round);
                    if (withC) {
                        double[] c = measureC(exe, dir);
                        for (int i = 0; cMs != null && i < c.length; i++) {
                            c[i] = Math.min(c[i], cMs[i]);
                        }
                        cMs = c;
                    }
                }
            } finally {
                if (dir != null) {
                    AtomicFiles.deleteQuietly(dir);
                }
            }
            print(points, cMs, mpi);
        }

        /** Per node count, the point of the two whose median run is shorter. */
        private static List<Sweep.Point> faster(List<Sweep.Point> a, List<Sweep.Point> b) {
            List<Sweep.Point> best = new java.util.ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                best.add(medianMs(b.get(i)) < medianMs(a.get(i)) ? b.get(i) : a.get(i));
            }
            return best;
        }

        private static double medianMs(Sweep.Point p) {
            return Statistics.median(p.runs().stream().mapToDouble(r -> r.trainSeconds() * 1e3).toArray());
        }

        /** Median ms per run of the paper's scheme in C ({@code exe}, data in {@code dir}) at each node count. */
        private double[] measureC(Path exe, Path dir) {
            double[] ms = new double[nodes.length];
            for (int i = 0; i < nodes.length; i++) {
                String out = CReference.mpirun(backend.launchSpec(nodes[i]), exe, List.of(
                    dir.resolve("X.in").toString(), dir.resolve("y.in").toString(), "300", "1e-4",
                    Integer.toString(warmup), Integer.toString(repeats)));
                ms[i] = Statistics.median(out.lines().filter(l -> l.startsWith("run_ms "))
                    .mapToDouble(l -> Double.parseDouble(l.substring(7).strip())).toArray());
            }
            return ms;
        }

        private void print(List<Sweep.Point> points, double[] cMs, boolean mpi) {
            var out = spec.commandLine().getOut();
            out.printf(Locale.ROOT, "paper's run: %d samples x 1 feature, 300 epochs, %s backend, %d warm-up + %d timed "
                + "runs per count, %d cores%s%n", PaperSetup.SAMPLES, mpi ? "mpi" : "local", warmup, repeats,
                Runtime.getRuntime().availableProcessors(), rounds == 1 ? ""
                    : ", best of " + rounds + (cMs != null ? " alternating rounds on each side" : " rounds"));
            String cLabel = cMs != null ? "C+MPI median ms (measured now)" : "C+Open MPI ms (quoted)";
            out.println("| nodes | paratrain median ms | min ms | us/epoch | comm share | " + cLabel + " | C / paratrain |");
            out.println("|------:|----------:|-------:|---------:|-----------:|--------------------:|--------------:|");
            for (int i = 0; i < points.size(); i++) {
                double[] ms = points.get(i).runs().stream().mapToDouble(r -> r.trainSeconds() * 1e3).toArray();
                double[] share = points.get(i).runs().stream().mapToDouble(r -> r.commSeconds() / r.trainSeconds())
                    .toArray();
                double med = Statistics.median(ms);
                double ref = cMs != null ? cMs[i] : quoted(nodes[i]);
                out.printf(Locale.ROOT, "| %5d | %9.3f | %6.3f | %8.2f | %9.0f%% | %19s | %13s |%n", nodes[i], med,
                    Arrays.stream(ms).min().orElse(0), med * 1e3 / 300, 100 * Statistics.median(share),
                    Double.isNaN(ref) ? "-" : String.format(Locale.ROOT, "%.3f", ref),
                    Double.isNaN(ref) ? "-" : String.format(Locale.ROOT, "%.2fx", ref / med));
            }
            if (cMs == null) {
                out.println("C+Open MPI: the paper's scheme in C on this kind of machine, quoted (mpicc is not "
                    + "installed, or --no-c was given).");
            }
        }

        private static double quoted(int p) {
            int i = Arrays.binarySearch(PaperSetup.NODES, p);
            return i >= 0 ? QUOTED_C_MS[i] : Double.NaN;
        }
    }
}
