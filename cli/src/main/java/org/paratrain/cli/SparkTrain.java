package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code train --backend spark}: the command line's options become a job for the Spark module's
 * driver ({@code org.paratrain.spark.SparkTrainJob}), run in a JVM of its own on that module's
 * class path (this command line never loads Spark); Spark reads the data, the ranks train as
 * one barrier stage, and this side prints and writes the run's usual files from what the
 * driver returns. Options that need the whole data on this machine (held-out splits, resuming
 * from a file) are refused by name. This class checks the options and makes the job;
 * {@link SparkDriver} starts the driver and reports.
 */
final class SparkTrain {
    private SparkTrain() { }

    /** Options the Spark backend does not take, each with what to do instead. */
    private static final Map<String, String> REFUSED = Map.ofEntries(
        Map.entry("--labels", "Spark reads one table: --label names the label column"),
        Map.entry("--test-data", "evaluate the model on test data afterwards (paratrain evaluate, or the Spark API)"),
        Map.entry("--test-labels", "evaluate the model on test data afterwards"),
        Map.entry("--test-fraction", "split the table in Spark (randomSplit) and evaluate afterwards"),
        Map.entry("--val-fraction", "validation needs the held-out rows on this machine; use --backend local"),
        Map.entry("--val-data", "validation needs the held-out rows on this machine; use --backend local"),
        Map.entry("--val-labels", "validation needs the held-out rows on this machine; use --backend local"),
        Map.entry("--validate-every", "there is no validation data with --backend spark"),
        Map.entry("--early-stop", "there is no validation data with --backend spark"),
        Map.entry("--resume", "a retried Spark stage resumes from --checkpoint-dir by itself"),
        Map.entry("--resume-if-present", "a retried Spark stage resumes from --checkpoint-dir by itself"),
        Map.entry("--init-from", "not built for --backend spark yet"),
        Map.entry("--max-restarts", "Spark retries the stage itself (spark.stage.maxConsecutiveAttempts)"),
        Map.entry("--min-nodes", "Spark retries the stage itself, on as many tasks"),
        Map.entry("--checkpoint-every-seconds", "use --checkpoint-every N (epochs)"),
        Map.entry("--checkpoint-every-steps", "use --checkpoint-every N (epochs)"),
        Map.entry("--keep-checkpoints", "the Spark backend keeps the newest two"),
        Map.entry("--hostfile", "Spark places the tasks; give --master"),
        Map.entry("--mpirun-args", "no mpirun is started"),
        Map.entry("--ranks-per-process", "each Spark task is one rank"),
        Map.entry("--rebalance", "the ranks hold fixed shards of the table"),
        Map.entry("--shard-optimizer", "not built for --backend spark yet"),
        Map.entry("--n-features", "Spark reads tables, not LibSVM files"),
        Map.entry("--zero-based", "Spark reads tables, not LibSVM files"),
        Map.entry("--npz-x", "Spark reads tables, not NumPy archives"),
        Map.entry("--npz-y", "Spark reads tables, not NumPy archives"),
        Map.entry("--inject-failure", "kill a Spark task instead"));

    /** Formats the command line reads itself and Spark does not. */
    private static final List<String> LOCAL_FORMATS = List.of("paper", "idx", "libsvm", "npy", "npz");

    static void run(TrainCommand c) {
        ParseResult given = c.command.commandLine().getParseResult();
        c.backendOptions.isMpi();    // checks the deadline and --master
        for (var e : REFUSED.entrySet()) {
            if (given.hasMatchedOption(e.getKey())) {
                throw new IllegalArgumentException(e.getKey() + " is not available with --backend spark: "
                    + e.getValue());
            }
        }
        String data = given.matchedOption("--data").stringValues().get(0);   // as typed: hdfs://... stays whole
        String format = format(c.dataFormat.format, data);
        boolean remote = data.matches("[a-zA-Z][a-zA-Z0-9+.-]*://.*");
        if (!remote) {
            Path p = Path.of(data);
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("--data " + data + ": no such file or directory");
            }
            data = p.toAbsolutePath().normalize().toString();
        }
        if (c.epochs < 1) {
            throw new IllegalArgumentException("--epochs must be at least 1, got " + c.epochs);
        }
        String allreduce = c.exchange.allreduce;
        if (List.of("auto", "native", "shared").contains(allreduce)) {
            throw new IllegalArgumentException("--allreduce " + allreduce + " is not available with --backend spark: "
                + "the tasks talk over TCP; give master-worker (default), ring, rabenseifner or another point-to-point "
                + "algorithm");
        }
        int nodes = 0;
        if (given.hasMatchedOption("--nodes")) {
            if (c.nodesText.equals("auto")) {
                throw new IllegalArgumentException("--nodes auto is not available with --backend spark: give a number "
                    + "of tasks, or leave --nodes out for the cluster's default parallelism");
            }
            nodes = ((RunSpec.Nodes.Count) RunSpec.Nodes.parse(c.nodesText)).n();
        }
        if (c.out != null) {
            OutputPaths.directoryFor("--out", c.out, TrainReport.FILES);
            if (!remote) {
                OutputPaths.notIntoInputs("--out", c.out, TrainReport.FILES, Path.of(data));
            }
        }
        if (c.checkpoints.dir != null) {
            OutputPaths.directory("--checkpoint-dir", c.checkpoints.dir);
        }
        TrainSpec spec = c.spec(false);
        if (spec.exchange().scheme() == ExchangeSpec.Scheme.SHARDED) {
            throw new IllegalArgumentException("--shard-optimizer is not available with --backend spark");
        }
        if (c.backendOptions.sparkConf != null) {
            for (var e : c.backendOptions.sparkConf.entrySet()) {
                if (!e.getKey().startsWith("spark.") || e.getKey().length() == "spark.".length()) {
                    throw new IllegalArgumentException("--spark-conf " + e.getKey() + "=" + e.getValue()
                        + ": expected KEY=VALUE with a Spark key (spark.*), e.g. spark.executor.memory=4g");
                }
            }
        }
        String submit = sparkSubmit(c.backendOptions.sparkSubmit);
        String master = c.backendOptions.master != null ? c.backendOptions.master
            : nodes > 0 ? "local[" + nodes + "]" : "local[*]";
        ObjectNode job = job(c, given, spec, format, data, master, nodes);
        JsonNode result = SparkDriver.launch(c, job, submit);
        SparkDriver.report(c, result, format, data, master);
    }

    /** The Spark source: --format as given, else from the name of --data. */
    private static String format(String given, String data) {
        if (given != null) {
            String f = given.toLowerCase(Locale.ROOT);
            if (LOCAL_FORMATS.contains(f)) {
                throw new IllegalArgumentException("--format " + f + " is read by the command line, not by Spark: use "
                    + "--backend local, or a table format Spark reads (parquet, csv, json, orc)");
            }
            return f;
        }
        String name = data.toLowerCase(Locale.ROOT).replaceAll("/+$", "");
        for (String ext : List.of("parquet", "csv", "tsv", "json", "jsonl", "orc")) {
            if (name.endsWith("." + ext)) {
                return ext.equals("tsv") ? "csv" : ext.equals("jsonl") ? "json" : ext;
            }
        }
        throw new IllegalArgumentException("--data " + data + ": give --format (parquet, csv, json, orc or another "
            + "source Spark reads); the name does not say which");
    }

    private static ObjectNode job(TrainCommand c, ParseResult given, TrainSpec spec, String format, String data,
                                  String master, int nodes) {
        ObjectNode job = RunWriter.json().createObjectNode();
        job.put("master", master);
        job.put("format", format);
        job.put("path", data);
        ObjectNode options = job.putObject("options");
        if (format.equals("csv")) {
            options.put("header", String.valueOf(!c.dataFormat.noHeader));
            options.put("inferSchema", "true");
            char d = c.dataFormat.delimiter == null && data.toLowerCase(Locale.ROOT).endsWith(".tsv") ? '\t'
                : DataFormatOptions.delimiter(c.dataFormat.delimiter);
            options.put("sep", String.valueOf(d));
        }
        String label = c.dataFormat.label;
        if (label != null && c.dataFormat.noHeader) {
            label = label.matches("[0-9]+") ? "_c" + label : label;     // Spark's names of unnamed columns
        }
        job.put("label", label == null ? "" : label);
        if (c.input.features != null) {
            ArrayNode f = job.putArray("features");
            c.input.features.forEach(f::add);
        }
        if (c.input.sampleWeight != null) {
            String w = c.input.sampleWeight;
            job.put("sample_weight", c.dataFormat.noHeader && w.matches("[0-9]+") ? "_c" + w : w);
        }
        if (c.input.dropColumns != null) {
            ArrayNode d = job.putArray("drop");
            c.input.dropColumns.forEach(n -> d.add(c.dataFormat.noHeader && n.matches("[0-9]+") ? "_c" + n : n));
        }
        job.put("standardize", c.input.standardize(spec.model(), org.paratrain.train.spec.DataSpec.Format.CSV));
        job.set("spec", SpecCodec.encode(spec));
        job.put("epochs_given", c.epochsGiven != null);
        job.put("batch_given", c.batchGiven != null);
        job.put("seed", c.seed);
        job.put("ranks", nodes);
        job.put("checkpoint_dir", c.checkpoints.dir == null ? "" : c.checkpoints.dir.toAbsolutePath().toString());
        job.put("checkpoint_every", c.checkpoints.everyEpochs == null ? 10 : c.checkpoints.everyEpochs);
        job.put("timeout_seconds", (int) Math.ceil(c.backendOptions.commTimeout));
        int every = c.monitor.quiet ? 0 : c.monitor.logEvery > 0 ? c.monitor.logEvery : 0;
        job.put("log_every", every);
        // Without --log-every, as the other backends: a tenth of the run a line on a terminal (Spark's driver
        // shows no bar), and where the output is no terminal a line with the time left every 30 s.
        boolean lines = !c.monitor.quiet && c.monitor.logEvery == 0;
        boolean terminal = ConsoleProgress.onTerminal();
        job.put("log_tenths", lines && terminal);
        job.put("log_seconds", lines && !terminal ? MonitorOptions.logPeriodSeconds() : -1);
        ObjectNode conf = job.putObject("spark_conf");
        if (c.backendOptions.sparkConf != null) {
            c.backendOptions.sparkConf.forEach(conf::put);
        }
        job.put("submitted", c.backendOptions.sparkSubmit != null);
        return job;
    }

    /** {@return the spark-submit to start the driver with, or null for a JVM of this command's own} */
    private static String sparkSubmit(String given) {
        if (given == null) {
            return null;
        }
        String path = given;
        if (path.isEmpty()) {
            String home = System.getenv("SPARK_HOME");
            if (home == null || home.isBlank()) {
                throw new IllegalArgumentException("--spark-submit without a PATH needs SPARK_HOME set (to a Spark "
                    + "installation); give --spark-submit=PATH otherwise");
            }
            path = Path.of(home, "bin", "spark-submit").toString();
        }
        if (!Files.isRegularFile(Path.of(path)) || !Files.isExecutable(Path.of(path))) {
            throw new IllegalArgumentException("--spark-submit " + path + ": no such executable file (expected "
                + "a Spark installation's bin/spark-submit)");
        }
        return path;
    }
}
