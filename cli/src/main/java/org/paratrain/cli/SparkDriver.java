package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import org.paratrain.cli.bench.SparkModule;
import org.paratrain.comm.BackendException;
import org.paratrain.data.DataFormatException;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.ResultCodec;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;

/**
 * The driver's side of {@code train --backend spark}: starts the Spark module's driver on the job
 * {@link SparkTrain} made, and reports what it returns; apart so that the options' checks and the
 * driver's process each stay a class of their own size, as {@link WholeDataTraining} is apart from
 * {@link TrainCommand}.
 */
final class SparkDriver {
    private SparkDriver() { }

    /**
     * {@return the driver's command: spark-submit in client mode with paratrain's jars, or a JVM
     * on the Spark module's class path}
     */
    private static List<String> driverCommand(Path target, ObjectNode job, String submit, String heap,
                                              Path jobFile, Path resultFile) throws java.io.IOException {
        String main = "org.paratrain.spark.SparkTrainJob";
        if (submit == null) {
            return SparkModule.command(target, heap, main, jobFile.toString(), resultFile.toString());
        }
        List<String> jars = new java.util.ArrayList<>();
        for (String e : SparkModule.notInSpark(target)) {
            jars.add(org.paratrain.io.DirectoryJar.of(Path.of(e)).toString());
        }
        List<String> cmd = new java.util.ArrayList<>(List.of(submit, "--master", job.path("master").asText(),
            "--deploy-mode", "client", "--name", "paratrain train", "--driver-memory", heap, "--class", main,
            "--jars", String.join(",", jars)));
        job.path("spark_conf").properties().forEach(e -> cmd.addAll(List.of("--conf", e.getKey() + "="
            + e.getValue().asText())));
        cmd.addAll(List.of(org.paratrain.io.DirectoryJar.of(SparkModule.module(target)).toString(),
            jobFile.toString(), resultFile.toString()));
        return cmd;
    }

    /** Runs the driver; its epoch lines pass through, the rest of its output is kept for a failure's message. */
    static JsonNode launch(TrainCommand c, ObjectNode job, String submit) {
        Path target = SparkModule.target("train --backend spark");
        PrintWriter err = c.command.commandLine().getErr();
        try {
            Path jobFile = Files.createTempFile("paratrain-spark-job-", ".json");
            Path resultFile = Files.createTempFile("paratrain-spark-result-", ".json");
            Path log = Files.createTempFile("paratrain-spark-driver-", ".log");
            boolean keepLog = false;
            try {
                Files.write(jobFile, RunWriter.json().writeValueAsBytes(job));
                long heap = Math.max(1L << 30, Runtime.getRuntime().maxMemory());
                List<String> cmd = driverCommand(target, job, submit, (heap >> 20) + "m", jobFile, resultFile);
                ProcessBuilder pb = SparkModule.builder(cmd).redirectErrorStream(true);
                Process p = pb.start();
                // The driver ends with this JVM: a killed command line leaves no Spark behind it.
                Thread reaper = new Thread(() -> {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);    // spark-submit's java, if it forked
                    p.destroyForcibly();
                }, "paratrain-spark-driver-reaper");
                Runtime.getRuntime().addShutdownHook(reaper);
                ArrayDeque<String> tail = new ArrayDeque<>();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8)); var w = Files.newBufferedWriter(log)) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        w.write(line);
                        w.newLine();
                        if (line.startsWith("paratrain: epoch ")) {
                            err.println(line);
                            err.flush();
                        } else if (!line.isBlank()) {
                            tail.addLast(line);
                            if (tail.size() > 40) {
                                tail.removeFirst();
                            }
                        }
                    }
                }
                int status = p.waitFor();
                try {
                    Runtime.getRuntime().removeShutdownHook(reaper);
                } catch (IllegalStateException ignored) {
                    // Shutting down already: the hook runs and finds the driver gone.
                }
                JsonNode result = Files.size(resultFile) > 0 ? RunWriter.json().readTree(resultFile.toFile()) : null;
                if (result != null && result.has("error")) {
                    String message = result.path("error").asText();
                    throw result.path("kind").asText().equals("data") ? new DataFormatException(message)
                        : new IllegalArgumentException(message);
                }
                if (status != 0 || result == null || !result.has("result")) {
                    keepLog = true;
                    throw new BackendException("the Spark driver failed (exit " + status + "): " + lastError(tail)
                        + "; its output is in " + log);
                }
                return result;
            } finally {
                Files.deleteIfExists(jobFile);
                Files.deleteIfExists(resultFile);
                if (!keepLog) {
                    Files.deleteIfExists(log);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("train --backend spark: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("train --backend spark: interrupted");
        }
    }

    /** The driver's own account of its failure: its last exception line, else its last line. */
    private static String lastError(ArrayDeque<String> tail) {
        String last = tail.isEmpty() ? "no output" : tail.getLast();
        for (String l : tail) {
            if (l.matches("^[A-Za-z.$]*(Exception|Error)\\b.*")) {
                return org.paratrain.io.Clip.message(l);
            }
        }
        return org.paratrain.io.Clip.message(last);
    }

    static void report(TrainCommand c, JsonNode result, String format, String data, String master) {
        TrainingResult r = ResultCodec.fromJson(result.path("result"));
        TrainSpec spec = SpecCodec.decode(result.path("spec"));
        ModelFile model = ModelFile.parse(result.path("model"), Path.of("model.json"));
        int samples = result.path("samples").asInt();
        int features = result.path("features").asInt();
        org.paratrain.train.Divergence.checkFinal(r, spec.optimizer().learningRate());
        PrintWriter out = c.out();
        TrainReport.print(out, c.learning.model, samples, features, r, spec.epochs());
        JsonNode spark = result.path("spark");
        out.printf(Locale.ROOT, "  spark      %s, master %s%s, %d tasks%s%n", spark.path("version").asText(),
            spark.path("master").asText(), c.backendOptions.sparkSubmit != null ? " (spark-submit)" : "", r.nodes(),
            result.path("stage_attempt").asInt() > 0
                ? ", stage retried " + result.path("stage_attempt").asInt() + " time(s), resumed at epoch "
                    + result.path("resumed_at_epoch").asInt() : "");
        if (c.out == null) {
            return;
        }
        ObjectNode d = RunWriter.json().createObjectNode();
        d.put("x", data);
        d.put("y", "");
        d.put("samples", samples);
        d.put("features", features);
        d.put("format", format);
        d.put("read_by", "spark");
        d.put("label", result.path("label").asText());
        d.put("standardized", model.standardizer() != null);
        ObjectNode extra = RunWriter.json().createObjectNode();
        ObjectNode s = extra.putObject("spark");
        s.setAll((ObjectNode) spark);
        s.put("stage_attempt", result.path("stage_attempt").asInt());
        s.put("resumed_at_epoch", result.path("resumed_at_epoch").asInt());
        Provenance provenance = Provenance.capture(List.of(
            c.command.commandLine().getParseResult().originalArgs().toArray(String[]::new)));
        TrainReport.write(out, c.out, r, spec, model, d, extra, provenance);
    }
}
