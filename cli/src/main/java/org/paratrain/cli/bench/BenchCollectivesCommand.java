package org.paratrain.cli.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.cli.ConsoleProgress;
import org.paratrain.cli.OptionChecks;
import org.paratrain.cli.OutputPaths;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.CostModel;
import org.paratrain.collective.sum.FixedSumBenchmark;
import org.paratrain.cli.experiment.Calibration;
import org.paratrain.cli.experiment.MachineFile;
import org.paratrain.cli.experiment.Plots;
import org.paratrain.io.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench collectives}: every allreduce over message sizes from 8 bytes to
 * 64 MB, the Hockney model fitted to the measurements, and its error; then the reproducible
 * fixed-point sums against a plain double allreduce of the same vector, in the same run.
 */
@Command(name = "collectives", mixinStandardHelpOptions = true,
    description = {"Time every allreduce from 8 B to 64 MB and fit the cost model.",
        "Times every allreduce algorithm on the local backend over message sizes from 8 bytes to 64 MB,",
        "fit the Hockney model (alpha per message, beta per byte, gamma per byte reduced) on the rank counts",
        "that fit the cores, and print it with its error; writes a CSV, a log-log plot and machine.json.",
        "Then times the fixed-point sums (one and two 64-bit words a value), conversions included, against",
        "a plain double allreduce of the same vector."})
final class BenchCollectivesCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", split = ",", defaultValue = "2,4,8", description = "Rank counts (default ${DEFAULT-VALUE}).")
    int[] nodes;

    @Option(names = "--sizes", split = ",", defaultValue = "1,8,64,1024,8192,65536,1048576,8388608",
        description = "Vector lengths in doubles (default: 8 bytes to 64 MB).")
    long[] sizes;

    @Option(names = "--rounds", defaultValue = "5", description = "Timing loops per point; the best counts.")
    int rounds;

    @Option(names = "--out", defaultValue = "results/collectives", description = "Output directory.")
    Path out;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Option(names = "--fixed-values", defaultValue = "1000000",
        description = "Values in the vector of the fixed-point sums (default ${DEFAULT-VALUE}); 0 skips them.")
    int fixedValues;

    @Option(names = "--fixed-ranks", defaultValue = "2", description = "Ranks for the fixed-point sums (default "
        + "${DEFAULT-VALUE}).")
    int fixedRanks;

    @Option(names = "--fixed-allreduce", defaultValue = "ring", description = "The allreduce under every sum of that "
        + "comparison (default ${DEFAULT-VALUE}).")
    String fixedAllreduce;

    @Option(names = "--fixed-only", description = "Only the fixed-point sums: no sweep, no fit, no files.")
    boolean fixedOnly;

    @Override
    public void run() {
        for (int p : nodes) {
            if (p < 1 || p > 64) {
                throw new IllegalArgumentException("--nodes must be in [1, 64], got " + p);
            }
        }
        for (long n : sizes) {
            if (n < 1 || n > 16_777_216) {
                throw new IllegalArgumentException("--sizes must be in [1, 16777216] doubles, got " + n);
            }
        }
        OptionChecks.range("--rounds", rounds, 1, 1000);
        OptionChecks.range("--fixed-values", fixedValues, 0, 100_000_000);
        OptionChecks.range("--fixed-ranks", fixedRanks, 1, 64);
        if (!Allreduces.portableNames().contains(fixedAllreduce)) {
            throw new IllegalArgumentException("--fixed-allreduce must be one of "
                + String.join(", ", Allreduces.portableNames()) + ", got '" + fixedAllreduce + "'");
        }
        if (fixedOnly) {
            fixedSums();
            return;
        }
        OutputPaths.directory("--out", out);
        List<String> algorithms = Allreduces.portableNames();
        List<CostModel.Measurement> data;
        try (ConsoleProgress progress = new ConsoleProgress(quiet)) {
            data = Calibration.allreduce(algorithms, nodes, sizes, rounds,
                done -> progress.update("collectives", done, nodes.length * algorithms.size()));
        }
        int cores = Runtime.getRuntime().availableProcessors();
        List<CostModel.Measurement> fitted = data.stream().filter(m -> m.ranks() <= cores).toList();
        Allreduce.Machine machine = CostModel.fit(fitted.isEmpty() ? data : fitted);
        double rate1 = Calibration.computeRate(1);
        double copy = Calibration.copyBandwidth();
        report(data, machine, cores, copy);
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(out)) {
            Path stage = staged.dir();
            AtomicFiles.writeText(stage.resolve("collectives.csv"), w -> {
                w.write("algorithm,ranks,doubles,bytes,seconds,predicted_seconds\n");
                for (CostModel.Measurement m : data) {
                    w.write(m.algorithm() + "," + m.ranks() + "," + m.doubles() + "," + 8 * m.doubles() + ","
                        + m.seconds() + "," + Allreduces.create(m.algorithm()).cost(m.ranks(), m.doubles(), machine)
                        + "\n");
                }
            });
            MachineFile.write(stage.resolve("machine.json"), machine, rate1, cores, "local");
            // The plot shows the largest rank count the model was fitted on (the cores), where it should hold.
            int plotRanks = java.util.Arrays.stream(nodes).filter(p -> p <= cores).max().orElse(nodes[0]);
            Plots.save(Plots.collectives(data, plotRanks, machine), stage, "collectives");
            staged.publish(List.of("collectives.csv", "machine.json", "collectives.png",
                "collectives.svg"));
        }
        spec.commandLine().getOut().println("wrote " + out.resolve("collectives.csv") + ", machine.json and "
            + "collectives.png/.svg");
        fixedSums();
    }

    /** The reproducible sums beside the double allreduce, conversions included. */
    private void fixedSums() {
        if (fixedValues == 0) {
            return;
        }
        List<FixedSumBenchmark.Line> lines = FixedSumBenchmark.run(fixedRanks, fixedValues, fixedAllreduce, rounds);
        printFixed(spec.commandLine().getOut(), lines, fixedValues, fixedRanks + " ranks (" + fixedAllreduce + ")", rounds);
    }

    /** Prints the fixed-point sums' table: {@code where} says how many ranks, on what. */
    static void printFixed(java.io.PrintWriter o, List<FixedSumBenchmark.Line> lines, int values, String where,
                           int rounds) {
        o.printf(Locale.ROOT, "fixed-point sums: allreduce of %,d values at %s, conversions included, "
            + "best of %d loops each, interleaved%n", values, where, rounds);
        o.println("| sum | ms | ratio to double | words sent per value | observe + agree (ms) | deposit (ms) "
            + "| allreduce (ms) | convert (ms) |");
        o.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        double base = lines.get(0).seconds();
        for (FixedSumBenchmark.Line l : lines) {
            o.printf(Locale.ROOT, "| %s | %.3f | %.2f | %.6f | %s | %s | %.3f | %s |%n", l.name(), l.seconds() * 1e3,
                l.seconds() / base, l.wordsPerValue(), ms(l.agree()), ms(l.deposit()), l.reduce() * 1e3,
                ms(l.convert()));
        }
        o.println("A fixed sum's words are its values' words plus one (the block count); the grid is agreed "
            + "beforehand by a maximum allreduce of one word, or (guessed) taken from the step before and checked "
            + "by one more word a segment inside the same allreduce, with no pass over the values but the deposit; by "
            + "halves, the check words go first and each rank converts its own chunk; in one ring, the ring's "
            + "reduce-scatter deposits as it combines (\"in it\": phases inside the allreduce's loop).");
        o.println("Every way of one format gave the same bits on every rank (checked after the timing).");
    }

    /** Milliseconds, or a dash for a phase done inside the allreduce's loop. */
    private static String ms(double seconds) {
        return Double.isNaN(seconds) ? "in it" : String.format(Locale.ROOT, "%.3f", seconds * 1e3);
    }

    private void report(List<CostModel.Measurement> data, Allreduce.Machine m, int cores, double copy) {
        var o = spec.commandLine().getOut();
        o.printf(Locale.ROOT, "fitted on p <= %d (the cores): alpha %.3f us per message, beta %.3f ns per byte "
            + "(%.2f GB/s), gamma %.3f ns per byte reduced (%.2f GB/s)%n", cores, m.alpha() * 1e6, m.beta() * 1e9,
            m.beta() > 0 ? 1e-9 / m.beta() : Double.POSITIVE_INFINITY, m.gamma() * 1e9,
            m.gamma() > 0 ? 1e-9 / m.gamma() : Double.POSITIVE_INFINITY);
        o.println("The model is fitted on rank counts up to the cores only; with more ranks than cores its error is "
            + "shown, not hidden.");
        o.println("| ranks | algorithm | 8 B (us) | 8 KB (us) | 8 MB (ms) | median error of the model | worst |");
        o.println("|---:|---|---:|---:|---:|---:|---:|");
        for (int p : nodes) {
            for (String name : Allreduces.portableNames()) {
                List<Double> errors = new ArrayList<>();
                double small = Double.NaN;
                double mid = Double.NaN;
                double large = Double.NaN;
                for (CostModel.Measurement x : data) {
                    if (x.ranks() != p || !x.algorithm().equals(name)) {
                        continue;
                    }
                    double pred = Allreduces.create(name).cost(p, x.doubles(), m);
                    errors.add(Math.abs(pred - x.seconds()) / x.seconds());
                    small = x.doubles() == 1 ? x.seconds() : small;
                    mid = x.doubles() == 1024 ? x.seconds() : mid;
                    large = x.doubles() == 1_048_576 ? x.seconds() : large;
                }
                errors.sort(null);
                o.printf(Locale.ROOT, "| %d | %s | %.2f | %.2f | %.3f | %.0f%% | %.0f%% |%n", p, name, small * 1e6,
                    mid * 1e6, large * 1e3, 100 * errors.get(errors.size() / 2), 100 * errors.get(errors.size() - 1));
            }
        }
        o.printf(Locale.ROOT, "memory bandwidth measured now: %.2f GB/s (bytes read + written per second by "
            + "System.arraycopy of 8 MB)%n", copy / 1e9);
        for (CostModel.Measurement x : data) {
            if (x.ranks() == 2 && x.doubles() == 1_048_576) {
                // At least: read the own vector and the peer's, write the sum.
                double traffic = 3.0 * 8 * x.doubles() / x.seconds();
                o.printf(Locale.ROOT, "allreduce of 1,048,576 doubles at 2 ranks, %-18s %.3f ms, %.2f GB/s of the least "
                    + "memory traffic it needs (read both vectors, write the sum) = %.0f%% of the memory bandwidth%n",
                    x.algorithm() + ":", x.seconds() * 1e3, traffic / 1e9, 100 * traffic / copy);
            }
        }
    }
}
