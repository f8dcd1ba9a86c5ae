package org.paratrain.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.paratrain.comm.BackendException;
import org.paratrain.experiment.RunWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench spark}: paratrain on Spark beside MLlib and beside paratrain's local
 * backend, on the same cached rows of one embedded Spark. The measuring runs in a JVM of its own
 * with the Spark module's class path (this command line never loads Spark); this side prints
 * the table and writes it with its plots.
 */
@Command(name = "spark", mixinStandardHelpOptions = true,
    description = {"paratrain on Spark against MLlib's LogisticRegression and MultilayerPerceptronClassifier",
        "and against paratrain's local backend, on the same rows of one embedded Spark (local[RANKS]):",
        "time per epoch (MLlib: per iteration), and wall time to the same training loss (the higher of the two",
        "final losses), each fit timed after a warm-up fit. Needs the Spark module built (mvn package builds it)."})
final class BenchSparkCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--ranks", defaultValue = "2", description = "Ranks (Spark tasks) and Spark's local threads "
        + "(default ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--epochs", defaultValue = "100", description = "paratrain's epochs and MLlib's iteration limit "
        + "(default ${DEFAULT-VALUE}).")
    int epochs;

    @Option(names = "--small", defaultValue = "500x2", description = "The small workload, ROWSxFEATURES "
        + "(default ${DEFAULT-VALUE}: the paper's 500 samples).")
    String small;

    @Option(names = "--large", defaultValue = "1000000x100", description = "The large workload, ROWSxFEATURES, or none "
        + "(default ${DEFAULT-VALUE}).")
    String large;

    @Option(names = "--from-json", description = "Write the tables and figures again from a bench-spark.json (or "
        + "the measurements a failed write kept) instead of measuring.")
    Path fromJson;

    @Option(names = "--heap", defaultValue = "14g", description = "The measuring JVM's heap (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--out", defaultValue = "results/bench-spark", description = "Where the table goes as "
        + "bench-spark.csv, .json and .md, with the figures as bench-spark.png/.svg (per epoch) and "
        + "bench-spark-loss.png/.svg (to the same loss) (default ${DEFAULT-VALUE}).")
    Path outDir;

    @Override
    public void run() {
        check(small, "--small");
        if (!large.equals("none")) {
            check(large, "--large");
        }
        if (ranks < 1 || ranks > 64) {
            throw new IllegalArgumentException("--ranks must be in [1, 64], got " + ranks);
        }
        if (epochs < 2) {
            throw new IllegalArgumentException("--epochs must be at least 2, got " + epochs);
        }
        PrintWriter out = spec.commandLine().getOut();
        JsonNode json;
        Path kept = null;
        if (fromJson != null) {
            json = org.paratrain.experiment.JsonFiles.read(fromJson, "a bench-spark.json");
        } else {
            Path module = SparkModule.target("bench spark");
            out.printf(Locale.ROOT, "bench spark: local[%d], %d ranks, %d epochs (MLlib: at most %d iterations); small "
                + "%s, large %s%n", ranks, ranks, epochs, epochs, small, large);
            out.flush();
            json = measure(module);
            kept = keep(json);
        }
        List<JsonNode> rows = new ArrayList<>();
        json.path("rows").forEach(rows::add);
        String md = table(rows);
        out.println();
        out.print(md);
        out.println();
        out.println("goal: paratrain on Spark / local per epoch within 1.3x on the large workload");
        try {
            write(rows, json, md);
        } catch (RuntimeException e) {
            throw kept == null ? e : new BackendException(e.getMessage() + "; the measurements are kept in " + kept
                + " (bench spark --from-json " + kept + " writes them again)");
        }
        if (kept != null) {
            try {
                Files.deleteIfExists(kept);
            } catch (java.io.IOException ignored) {
                // A leftover temporary file of a finished benchmark; the results are written.
            }
        }
        out.println("wrote " + outDir.resolve("bench-spark") + ".csv, .json, .md, .png, .svg and bench-spark-loss.png, .svg");
    }

    /** The measurements in a temporary file until the results are written: minutes of work, not lost to a bad write. */
    private static Path keep(JsonNode json) {
        try {
            Path p = Files.createTempFile("bench-spark-measured-", ".json");
            Files.write(p, RunWriter.json().writeValueAsBytes(json));
            return p;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static void check(String shape, String option) {
        if (!shape.matches("[1-9][0-9]{0,9}x[1-9][0-9]{0,5}")) {
            throw new IllegalArgumentException(option + " must be ROWSxFEATURES such as 500x2, got '" + shape + "'");
        }
        long rows = Long.parseLong(shape.substring(0, shape.indexOf('x')));
        long features = Long.parseLong(shape.substring(shape.indexOf('x') + 1));
        if (rows < 10 || rows * features > 400_000_000L) {
            throw new IllegalArgumentException(option + " must have at least 10 rows and at most 400,000,000 values, got '"
                + shape + "'");
        }
    }

    private JsonNode measure(Path target) {
        try {
            Path result = Files.createTempFile("bench-spark-", ".json");
            try {
                ProcessBuilder pb = ChildJvm.builder(SparkModule.command(target, heap,
                    "org.paratrain.spark.bench.SparkBench", result.toString(), String.valueOf(ranks),
                    String.valueOf(epochs), small, large)).redirectErrorStream(false);
                pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
                Process p = pb.start();
                // Spark's own log lines are warnings and worse; the benchmark's progress lines pass through.
                try (var err = new java.io.BufferedReader(new java.io.InputStreamReader(p.getErrorStream()))) {
                    String line;
                    while ((line = err.readLine()) != null) {
                        if (line.startsWith("  ")) {
                            System.err.println(line);
                        }
                    }
                }
                if (!p.waitFor(4, TimeUnit.HOURS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    throw new BackendException("bench spark: the measuring JVM failed (exit " + p.exitValue() + ")");
                }
                return RunWriter.json().readTree(result.toFile());
            } finally {
                Files.deleteIfExists(result);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("bench spark: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("bench spark: interrupted");
        }
    }

    private static String label(JsonNode r) {
        return r.path("model").asText() + " " + r.path("rows").asInt() + "x" + r.path("features").asInt();
    }

    private static String table(List<JsonNode> rows) {
        StringBuilder md = new StringBuilder("| model | rows x features | paratrain on Spark, ms/epoch | paratrain local, "
            + "ms/epoch | Spark / local | MLlib, ms/iteration | MLlib iterations | target loss | paratrain on Spark to "
            + "it, s | MLlib to it, s | MLlib / paratrain | same bits as local |\n"
            + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (JsonNode r : rows) {
            double spark = r.path("paratrain_spark_epoch_s").asDouble();
            double local = r.path("paratrain_local_epoch_s").asDouble();
            double ours = r.path("paratrain_spark_to_target_s").asDouble();
            double theirs = r.path("mllib_to_target_s").asDouble();
            md.append(String.format(Locale.ROOT, "| %s | %d x %d | %.3f | %.3f | %.2f | %.2f | %d | %.4f | %.2f | %.2f | "
                + "%.2f | %s |%n", r.path("model").asText(), r.path("rows").asInt(), r.path("features").asInt(),
                1e3 * spark, 1e3 * local, spark / local, 1e3 * r.path("mllib_iteration_s").asDouble(),
                r.path("mllib_iterations").asInt(), r.path("target_loss").asDouble(), ours, theirs, theirs / ours,
                r.path("same_bits_as_local").asBoolean() ? "yes" : "NO"));
        }
        return md.toString();
    }

    private void write(List<JsonNode> rows, JsonNode json, String md) {
        StringBuilder csv = new StringBuilder("model,rows,features,paratrain_spark_epoch_s,paratrain_local_epoch_s,"
            + "spark_over_local,mllib_iteration_s,mllib_iterations,target_loss,paratrain_spark_to_target_s,"
            + "mllib_to_target_s,mllib_over_paratrain,paratrain_spark_fit_s,mllib_fit_s,same_bits_as_local\n");
        List<String> labels = new ArrayList<>();
        List<Double> sparkOverLocal = new ArrayList<>();
        Map<String, List<Double>> toLoss = new LinkedHashMap<>();
        toLoss.put("paratrain on Spark", new ArrayList<>());
        toLoss.put("MLlib", new ArrayList<>());
        for (JsonNode r : rows) {
            double spark = r.path("paratrain_spark_epoch_s").asDouble();
            double local = r.path("paratrain_local_epoch_s").asDouble();
            double ours = r.path("paratrain_spark_to_target_s").asDouble();
            double theirs = r.path("mllib_to_target_s").asDouble();
            csv.append(String.format(Locale.ROOT, "%s,%d,%d,%.6g,%.6g,%.4f,%.6g,%d,%.8g,%.4f,%.4f,%.4f,%.4f,%.4f,%s%n",
                r.path("model").asText(), r.path("rows").asInt(), r.path("features").asInt(), spark, local,
                spark / local, r.path("mllib_iteration_s").asDouble(), r.path("mllib_iterations").asInt(),
                r.path("target_loss").asDouble(), ours, theirs, theirs / ours, r.path("paratrain_spark_fit_s").asDouble(),
                r.path("mllib_fit_s").asDouble(), r.path("same_bits_as_local").asBoolean()));
            labels.add(label(r));
            sparkOverLocal.add(spark / local);
            toLoss.get("paratrain on Spark").add(1e3 * ours);
            toLoss.get("MLlib").add(1e3 * theirs);
        }
        List<String> files = List.of("bench-spark.csv", "bench-spark.md", "bench-spark.json", "bench-spark.png",
            "bench-spark.svg", "bench-spark-loss.png", "bench-spark-loss.svg");
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(outDir)) {
            Path stage = staged.dir();
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-spark.csv"), w -> w.write(csv.toString()));
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-spark.md"), w -> w.write(md));
            org.paratrain.io.AtomicFiles.writeBytes(stage.resolve("bench-spark.json"),
                o -> RunWriter.json().writeValue(o, json));
            // The ratio the goal is about, beside its target: times per epoch span 0.2 ms to 3.7 s, too wide for bars.
            var ratios = org.paratrain.cli.experiment.Plots.ratios(labels, sparkOverLocal,
                rows.stream().map(r -> r.path("workload").asText().equals("large") ? 1.3 : Double.NaN).toList(),
                "paratrain on Spark / local, per epoch (" + json.path("ranks").asInt() + " ranks)",
                "Spark / local (large: at most 1.3)");
            ratios.setXAxisTitle("model, rows x features");
            org.paratrain.cli.experiment.Plots.save(ratios, stage, "bench-spark");
            org.paratrain.cli.experiment.Plots.save(org.paratrain.cli.experiment.Plots.bars(labels, toLoss,
                "Wall time to the same training loss, fit included", "model, rows x features", "milliseconds"), stage,
                "bench-spark-loss");
            staged.publish(files);
        }
    }
}
