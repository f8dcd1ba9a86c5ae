package org.paratrain.cli.bench;


import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.cli.bench.BenchBalanceCommand.Mode;
import org.paratrain.cli.bench.BenchBalanceCommand.Row;
import org.paratrain.cli.experiment.Plots;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.AtomicFiles;

/** What {@code bench balance} prints and writes: the table, the ratios against the targets, files and a plot. */
final class BalanceReport {
    /** With both cores free, 2 ranks at least this much faster than 1. */
    static final double FREE_TARGET = 1.5;
    /** With one core busy, 2 ranks at most this much slower than 1. */
    static final double BUSY_TARGET = 1.1;

    private BalanceReport() { }

    static void print(PrintWriter out, List<Row> rows, int samples, int features, int epochs, int rounds,
                      Map<String, Double> loss, String backend) {
        out.printf(Locale.ROOT, "linear regression, full batch, %,d x %d, %,d epochs, %s; each run a fresh %s,"
            + " medians of %d; %d cores%n", samples, features, epochs, ranks(backend),
            backend.equals("mpi") ? "MPI job" : "JVM", rounds, Runtime.getRuntime().availableProcessors());
        out.print(markdown(rows));
        for (String line : verdicts(rows)) {
            out.println(line);
        }
        out.println(sameBits(loss));
        out.flush();
    }

    /** The table in Markdown. */
    static String markdown(List<Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| cores | ranks | exchange | first run ms (median, min-max) | JIT compiling during it, ms "
            + "| later run ms |\n");
        md.append("|---|---:|---|---:|---:|---:|\n");
        for (Row r : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %.1f (%.1f-%.1f) | %.0f | %.1f |%n", label(r.mode()),
                r.ranks(), r.exchange(), 1e3 * r.coldSeconds(), 1e3 * r.coldMin(), 1e3 * r.coldMax(), r.compileMs(),
                1e3 * r.warmSeconds()));
        }
        return md.toString();
    }

    /** One line per mode and 2-rank exchange: 2 ranks against 1, first and later runs, against the target. */
    static List<String> verdicts(List<Row> rows) {
        List<String> lines = new java.util.ArrayList<>();
        for (Mode m : Mode.values()) {
            Row one = find(rows, m, 1).stream().findFirst().orElse(null);
            if (one == null) {
                continue;
            }
            for (Row two : find(rows, m, 2)) {
                lines.add(switch (m) {
                    case FREE -> verdict("both cores free: 2 ranks (" + two.exchange() + ") are %.2fx as fast as 1",
                        one.coldSeconds() / two.coldSeconds(), one.warmSeconds() / two.warmSeconds(), ">=", FREE_TARGET);
                    case BUSY -> verdict("one core busy: 2 ranks (" + two.exchange() + ") take %.2fx one rank's time",
                        two.coldSeconds() / one.coldSeconds(), two.warmSeconds() / one.warmSeconds(), "<=", BUSY_TARGET);
                    case SLOW -> String.format(Locale.ROOT, "rank 1 half as fast: 2 ranks (%s) take %.2fx one rank's "
                        + "time on the first run, %.2fx on later runs (no target; with no cost to exchange, an even "
                        + "split takes 1.00x, a split by speed 0.67x)", two.exchange(),
                        two.coldSeconds() / one.coldSeconds(), two.warmSeconds() / one.warmSeconds());
                });
            }
        }
        return lines;
    }

    /** {@code what} with the first run's ratio, then the later runs', each marked against the target. */
    private static String verdict(String what, double first, double later, String relation, double target) {
        java.util.function.DoublePredicate met = v -> relation.equals(">=") ? v >= target : v <= target;
        return String.format(Locale.ROOT, what + " on the first run, %.2fx on later runs (target %s %.1f, set for "
            + "20,000 x 10 over 3,000 epochs: %s, %s)", first, later, relation, target, mark(met.test(first)),
            mark(met.test(later)));
    }

    /** The line that says every run ended with this JVM's final loss for the same training, by exchange. */
    static String sameBits(Map<String, Double> loss) {
        StringBuilder sb = new StringBuilder("every run, at 1 and 2 ranks, ended with the final loss of the same "
            + "training in this JVM, to the bit: ");
        String sep = "";
        for (Map.Entry<String, Double> e : loss.entrySet()) {
            sb.append(sep).append(e.getValue()).append(" (").append(e.getKey()).append(')');
            sep = ", ";
        }
        return sb.toString();
    }

    static void write(Path dir, List<Row> rows, int samples, int features, int epochs, int rounds,
                      Map<String, Double> loss, String backend) {
        StringBuilder csv = new StringBuilder();
        org.apache.commons.csv.CSVPrinter printer;
        try {
            // Commons CSV quotes what needs it: an exchange may read "master-worker, rebalance 100".
            printer = new org.apache.commons.csv.CSVPrinter(csv, org.apache.commons.csv.CSVFormat.DEFAULT.builder()
                .setRecordSeparator('\n').setHeader("cores", "ranks", "exchange", "first_run_ms", "first_run_min_ms",
                    "first_run_max_ms", "jit_compiling_ms", "later_run_ms").get());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);    // a StringBuilder does not fail
        }
        var json = RunWriter.json().createObjectNode();
        json.put("backend", backend).put("samples", samples).put("features", features).put("epochs", epochs)
            .put("rounds", rounds)
            .put("cores", Runtime.getRuntime().availableProcessors())
            .put("final_loss", loss.values().iterator().next());    // the 1-rank exchange's
        var losses = json.putObject("final_losses");
        loss.forEach(losses::put);
        var array = json.putArray("rows");
        for (Row r : rows) {
            try {
                printer.printRecord(r.mode().name().toLowerCase(Locale.ROOT), r.ranks(), r.exchange(),
                    ms(r.coldSeconds()), ms(r.coldMin()), ms(r.coldMax()), String.format(Locale.ROOT, "%.0f",
                        r.compileMs()), ms(r.warmSeconds()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            array.addObject().put("cores", r.mode().name().toLowerCase(Locale.ROOT)).put("ranks", r.ranks())
                .put("exchange", r.exchange())
                .put("first_run_ms", 1e3 * r.coldSeconds()).put("first_run_min_ms", 1e3 * r.coldMin())
                .put("first_run_max_ms", 1e3 * r.coldMax()).put("jit_compiling_ms", r.compileMs())
                .put("later_run_ms", 1e3 * r.warmSeconds());
        }
        var verdicts = json.putArray("verdicts");
        verdicts(rows).forEach(verdicts::add);
        String md = markdown(rows) + "\n" + String.join("\n", verdicts(rows)) + "\n" + sameBits(loss) + "\n";
        // All five files or none: they are written into a staging directory and moved together.
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(dir)) {
            Path stage = staged.dir();
            AtomicFiles.writeText(stage.resolve("balance.csv"), w -> w.write(csv.toString()));
            AtomicFiles.writeText(stage.resolve("balance.md"), w -> w.write(md));
            AtomicFiles.writeBytes(stage.resolve("balance.json"), o -> RunWriter.json().writeValue(o, json));
            Plots.save(chart(rows, samples, features, epochs, backend), stage, "balance");
            staged.publish(List.of("balance.csv", "balance.md", "balance.json", "balance.png",
                "balance.svg"));
        }
    }

    private static org.knowm.xchart.CategoryChart chart(List<Row> rows, int samples, int features, int epochs,
                                                        String backend) {
        List<String> groups = new java.util.ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Mode m : Mode.values()) {
            List<Row> of = new java.util.ArrayList<>(find(rows, m, 1));
            of.addAll(find(rows, m, 2));
            if (of.size() < 2) {
                continue;
            }
            // Short: six groups' labels must fit side by side under the bars.
            String group = switch (m) {
                case FREE -> "free";
                case BUSY -> "one busy";
                case SLOW -> "one slow";
            };
            groups.add(group + ", first");
            groups.add(group + ", later");
            for (Row r : of) {
                List<Double> s = series.computeIfAbsent(r.ranks() == 1 ? "1 rank" : "2 ranks, " + r.exchange(),
                    k -> new java.util.ArrayList<>());
                s.add(1e3 * r.coldSeconds());
                s.add(1e3 * r.warmSeconds());
            }
        }
        return Plots.bars(groups, series, String.format(Locale.ROOT, "Linear regression, %,d x %d, %,d epochs: "
            + "1 and 2 %s", samples, features, epochs, ranks(backend)), "cores (both free, one busy, one rank half as fast), and which run of a fresh JVM",
            "training time (ms, median)");
    }

    /** Seconds as milliseconds with three decimals, as the CSV holds them. */
    private static String ms(double seconds) {
        return String.format(Locale.ROOT, "%.3f", 1e3 * seconds);
    }

    private static String mark(boolean met) {
        return met ? "met" : "missed";
    }

    private static String label(Mode m) {
        return switch (m) {
            case FREE -> "both free";
            case BUSY -> "one busy";
            case SLOW -> "one slow rank";
        };
    }

    private static String ranks(String backend) {
        return backend.equals("mpi") ? "MPI processes" : "local ranks";
    }

    private static List<Row> find(List<Row> rows, Mode m, int ranks) {
        return rows.stream().filter(r -> r.mode() == m && r.ranks() == ranks).toList();
    }
}
