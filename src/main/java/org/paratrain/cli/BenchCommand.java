package org.paratrain.cli;

import java.util.Arrays;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.PaperSetup;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain bench}: benchmarks that print figures measured side by side in one run. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run benchmarks.",
    subcommands = {BenchCommand.Paper.class, BenchMpiCommand.class, BenchMpiCommand.Worker.class,
        BenchMpiCommand.SelfTest.class})
final class BenchCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "say which benchmark, e.g. bench paper");
    }

    /** The paper's run (500 x 1, 300 epochs) at each node count, after warm-up. */
    @Command(name = "paper", mixinStandardHelpOptions = true,
        description = {"Time the paper's training at each node count on the local backend, after warm-up,",
            "next to the paper's scheme in C with Open MPI on this kind of machine."})
    static final class Paper implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        private java.io.PrintWriter out() {
            return spec.commandLine().getOut();
        }

        /** The paper's scheme in C with Open MPI, ms per 300-epoch run, measured on this kind of machine. */
        private static final double[] C_MPI_MS = {0.14, 0.26, 2.7, 5.0, 14, 25};

        @Option(names = "--nodes", split = ",", defaultValue = "1,2,4,8,16,32",
            description = "Node counts (default ${DEFAULT-VALUE}).")
        int[] nodes;

        @Option(names = "--repeats", defaultValue = "20", description = "Timed runs per node count (default ${DEFAULT-VALUE}).")
        int repeats;

        @Option(names = "--warmup", defaultValue = "20", description = "Untimed runs per node count first (default ${DEFAULT-VALUE}).")
        int warmup;

        @Override
        public void run() {
            if (repeats < 1 || warmup < 0) {
                throw new IllegalArgumentException("--repeats must be at least 1 and --warmup at least 0");
            }
            for (int p : nodes) {
                PaperSetup.config().withNodes(p);   // validates every count before any work
            }
            Dataset data = PaperSetup.data();
            double[][] ms = new double[nodes.length][repeats];
            double[][] commShare = new double[nodes.length][repeats];
            for (int w = 0; w < warmup; w++) {
                for (int p : nodes) {
                    Training.local(data, PaperSetup.config().withNodes(p));
                }
            }
            // Interleave node counts so that a slow moment of the machine does not hit one count only.
            for (int r = 0; r < repeats; r++) {
                for (int i = 0; i < nodes.length; i++) {
                    TrainingResult res = Training.local(data, PaperSetup.config().withNodes(nodes[i]));
                    ms[i][r] = res.trainSeconds() * 1e3;
                    commShare[i][r] = res.commSeconds() / res.trainSeconds();
                }
            }
            print(ms, commShare);
        }

        private void print(double[][] ms, double[][] commShare) {
            out().printf(Locale.ROOT, "paper's run: %d samples x 1 feature, 300 epochs, local backend, "
                + "%d warm-up + %d timed runs per count, %d cores%n", PaperSetup.SAMPLES, warmup, repeats,
                Runtime.getRuntime().availableProcessors());
            out().println("| nodes | median ms | min ms | us/epoch | comm share | C+Open MPI ms (ref) | C / paratrain |");
            out().println("|------:|----------:|-------:|---------:|-----------:|--------------------:|--------------:|");
            for (int i = 0; i < nodes.length; i++) {
                double med = median(ms[i]);
                double ref = reference(nodes[i]);
                out().printf(Locale.ROOT, "| %5d | %9.3f | %6.3f | %8.2f | %9.0f%% | %19s | %13s |%n",
                    nodes[i], med, Arrays.stream(ms[i]).min().orElse(0), med * 1e3 / 300,
                    100 * median(commShare[i]), Double.isNaN(ref) ? "-" : String.valueOf(ref),
                    Double.isNaN(ref) ? "-" : String.format(Locale.ROOT, "%.1fx", ref / med));
            }
            out().println("C+Open MPI: the paper's scheme in C, measured on this kind of machine (reference "
                + "figures, not measured in this run).");
        }

        private static double reference(int p) {
            int i = Arrays.binarySearch(PaperSetup.NODES, p);
            return i >= 0 ? C_MPI_MS[i] : Double.NaN;
        }

        static double median(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            int n = s.length;
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        }
    }

}
