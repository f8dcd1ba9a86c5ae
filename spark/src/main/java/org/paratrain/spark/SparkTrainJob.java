package org.paratrain.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.DataFormatException;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.ResultCodec;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The Spark driver of {@code paratrain train --backend spark}: it reads a table through Spark
 * (Parquet, CSV, JSON, ORC: any source Spark reads by path), picks the label and feature
 * columns, turns class names into indices as the command line's own readers do, fits as one
 * barrier stage ({@link SparkTraining}, the same bits as one local rank) and writes what the
 * command line needs to report: the result, the model file, and the data's facts.
 *
 * <p>Run as {@code SparkTrainJob JOB.json RESULT.json} on the Spark module's class path; the
 * command line writes the job (its spec as {@link SpecCodec} writes it, the source, the columns)
 * and reads the result. A refusal of the input ends the job with the result file holding
 * {@code {"error": ..., "kind": "input" | "data"}}, and exit status 2; any other failure exits 1.
 */
public final class SparkTrainJob {
    private SparkTrainJob() { }

    /** Columns pandas writes for its index: Spark names an unnamed CSV header field {@code _c0}. */
    private static final List<String> PANDAS_INDEX = List.of("__index_level_0__");

    /** The most distinct labels a classifier's label column may have. */
    private static final int MAX_CLASSES = 10_000;

    /**
     * Runs a job.
     *
     * @param args the job file and where the result goes
     * @throws Exception if the job cannot be read or the result written
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: SparkTrainJob JOB.json RESULT.json");
            System.exit(2);
        }
        JsonNode job = RunWriter.json().readTree(Path.of(args[0]).toFile());
        Path resultFile = Path.of(args[1]);
        int status = 0;
        ObjectNode result;
        SparkSession spark = session(job);
        try {
            result = run(spark, job);
        } catch (IllegalArgumentException | DataFormatException e) {
            result = RunWriter.json().createObjectNode();
            result.put("error", e.getMessage());
            result.put("kind", e instanceof DataFormatException ? "data" : "input");
            status = 2;
        } finally {
            spark.stop();
        }
        Files.write(resultFile, RunWriter.json().writeValueAsBytes(result));
        System.exit(status);
    }

    private static SparkSession session(JsonNode job) throws java.io.IOException {
        String master = job.path("master").asText();
        SparkSession.Builder b = SparkSession.builder().master(master).appName("paratrain train")
            .config("spark.ui.enabled", job.path("spark_ui").asBoolean(false));
        if (!master.startsWith("local") && !job.path("submitted").asBoolean()) {
            b.config("spark.jars", String.join(",", shippedJars()));
        }
        job.path("spark_conf").properties().forEach(e -> b.config(e.getKey(), e.getValue().asText()));
        SparkSession s = b.getOrCreate();
        s.sparkContext().setLogLevel("WARN");
        return s;
    }

    /**
     * {@return the jars a cluster's executors need from this driver's class path: paratrain's own
     * (a directory of classes, as in a build tree, made a jar) and Commons CSV}; Spark brings its
     * own libraries, and {@code spark-submit --jars} ships these when it starts the driver.
     *
     * @throws java.io.IOException if a directory cannot be made a jar
     */
    static List<String> shippedJars() throws java.io.IOException {
        List<String> jars = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            String name = p.getFileName() == null ? "" : p.getFileName().toString();
            boolean ours = Files.isDirectory(p) ? Files.isDirectory(p.resolve("org/paratrain"))
                : name.endsWith(".jar") && (name.startsWith("paratrain") || name.startsWith("commons-csv"));
            if (ours) {
                jars.add(org.paratrain.io.DirectoryJar.of(p).toString());
            }
        }
        return jars;
    }

    /** The job's steps, on the driver: read, choose columns, check, label, assemble, fit. */
    static ObjectNode run(SparkSession spark, JsonNode job) {
        String format = job.path("format").asText();
        String path = job.path("path").asText();
        Dataset<Row> table = read(spark, job, format, path);
        List<String> names = new ArrayList<>(Arrays.asList(table.columns()));
        boolean csv = format.equals("csv");
        if (csv && job.path("options").path("header").asText("true").equals("true") && !names.isEmpty()
            && names.get(0).equals("_c0") && !job.path("features").isArray()) {
            names.remove(0);      // an empty first header field: pandas' index, dropped as the command line's reader does
        }
        names.removeAll(PANDAS_INDEX);
        String label = label(job, names, path);
        String weight = weight(job, names, label, path);
        names.remove(weight);                                    // a weight is never a feature
        List<String> features = features(job, names, label, weight, path);
        Map<String, DataType> types = new LinkedHashMap<>();
        for (var f : table.schema().fields()) {
            types.put(f.name(), f.dataType());
        }
        for (String f : features) {
            DataType t = types.get(f);
            if (!(t instanceof NumericType) && !(t instanceof BooleanType)) {
                throw new DataFormatException(path + ": column '" + f + "' holds " + t.simpleString() + " values; "
                    + "features must be numbers (leave it out with --drop-columns " + f + ")");
            }
        }
        TrainSpec spec = decode(job.path("spec"));
        boolean classifier = spec.model().classifier();
        DataType labelType = types.get(label);
        if (!(labelType instanceof NumericType) && !(classifier && labelType instanceof StringType)) {
            throw new DataFormatException(path + ": label column '" + label + "' holds " + labelType.simpleString()
                + " values; " + (classifier ? "a classifier's labels are numbers or names" : "a regression's targets "
                + "are numbers"));
        }
        if (weight != null && !(types.get(weight) instanceof NumericType)) {
            throw new DataFormatException(path + ": weight column '" + weight + "' holds "
                + types.get(weight).simpleString() + " values; sample weights are numbers");
        }
        List<String> checked = new ArrayList<>(features);
        if (weight != null) {
            checked.add(weight);
        }
        long total = nulls(table, checked, label, path);
        if (total == 0) {
            throw new DataFormatException(path + ": no rows to train on");
        }
        // The command line's defaults that depend on the data's size, now that it is known.
        int samples = (int) Math.min(Integer.MAX_VALUE, total);
        int batch = job.path("batch_given").asBoolean() ? spec.run().batchSize()
            : org.paratrain.train.spec.Defaults.batchSize(spec.model(), samples);
        int epochs = job.path("epochs_given").asBoolean() ? spec.epochs()
            : org.paratrain.train.spec.Defaults.epochs(spec.model(), samples, batch);
        spec = spec.withBatches(batch, job.path("seed").asLong(42)).withEpochs(epochs);
        int logEvery = job.path("log_every").asInt(0) > 0 ? job.path("log_every").asInt()
            : job.path("log_tenths").asBoolean() ? Math.max(1, epochs / 10) : 0;
        long logSeconds = logEvery > 0 ? -1 : job.path("log_seconds").asLong(-1);
        ClassNames classNames = null;
        Column y = functions.col(label).cast("double");
        if (classifier) {
            Object[] distinct = distinctLabels(table, label, path);
            if (labelType instanceof StringType) {
                classNames = ClassNames.ofLabels(Arrays.stream(distinct).map(String::valueOf).toArray(String[]::new));
                if (classNames != null) {
                    y = functions.array_position(functions.lit(classNames.names().toArray(new String[0])),
                        functions.col(label)).minus(1).cast("double");
                }
            } else {
                classNames = ClassNames.ofSignedOrOneBased(Arrays.stream(distinct)
                    .mapToDouble(v -> ((Number) v).doubleValue()).toArray());
                if (classNames != null) {
                    // -1/+1 or 1/2: the smaller is class 0, as the command line's readers map them.
                    double low = classNames.name(0).equals("-1") ? -1 : 1;
                    y = functions.when(functions.col(label).cast("double").equalTo(low), 0.0).otherwise(1.0);
                }
            }
        }
        Dataset<Row> assembled = new VectorAssembler().setInputCols(features.toArray(new String[0]))
            .setOutputCol("paratrain_features").transform(table.withColumn("paratrain_label", y));
        Dataset<Row> rows = weight == null ? assembled.select("paratrain_features", "paratrain_label")
            : assembled.withColumn("paratrain_weight", functions.col(weight).cast("double"))
                .select("paratrain_features", "paratrain_label", "paratrain_weight");
        SparkTraining.Settings settings = new SparkTraining.Settings("paratrain_features", "paratrain_label", "",
            "auto", "", "relu", "adam", 1, 1, 0, 0, job.path("ranks").asInt(), false,
            job.path("checkpoint_dir").asText(""), job.path("checkpoint_every").asInt(10),
            job.path("timeout_seconds").asInt(300), false, "", 0, -1, "", 0.0, weight == null ? "" : "paratrain_weight")
            .with(SpecCodec.encode(spec).toString(), job.path("standardize").asBoolean(), logEvery, logSeconds);
        SparkTraining.Fitted fitted;
        try {
            fitted = SparkTraining.fit(rows, settings, classifier);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace("numRanks ", "--nodes ")
                .replace("weight column paratrain_weight", "--sample-weight " + weight)
                .replace("checkpointDir ", "--checkpoint-dir ").replace("batchSize ", "--batch-size "), e);
        }
        TrainingResult r = fitted.outcome().result();
        ModelFile model = new ModelFile(fitted.spec().model(), fitted.features(), fitted.classes(), r.params(),
            fitted.outcome().standardizer(), classNames, new Columns(features, true, label),
            csv ? DataSpec.Format.CSV : null);
        ObjectNode out = RunWriter.json().createObjectNode();
        out.set("result", ResultCodec.toJson(r));
        out.set("spec", SpecCodec.encode(fitted.spec()));
        out.set("model", model.toJson(RunWriter.json().createObjectNode(),
            Provenance.capture(List.of("paratrain train --backend spark"))));
        out.put("samples", fitted.rows());
        out.put("features", fitted.features());
        out.put("label", label);
        out.put("stage_attempt", fitted.outcome().stageAttempt());
        out.put("resumed_at_epoch", fitted.outcome().resumedAtEpoch());
        ObjectNode sp = out.putObject("spark");
        sp.put("version", spark.version());
        sp.put("master", spark.sparkContext().master());
        sp.put("application_id", spark.sparkContext().applicationId());
        return out;
    }

    private static Dataset<Row> read(SparkSession spark, JsonNode job, String format, String path) {
        var reader = spark.read().format(format);
        job.path("options").properties().forEach(e -> reader.option(e.getKey(), e.getValue().asText()));
        try {
            return reader.load(path);
        } catch (Exception e) {
            // Spark's analysis errors say what is wrong in their first line ([PATH_NOT_FOUND] ..., [DATA_SOURCE_NOT_FOUND] ...).
            String first = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName());
            throw new DataFormatException(path + ": Spark cannot read it as " + format + ": " + first);
        }
    }

    private static String label(JsonNode job, List<String> names, String path) {
        if (names.isEmpty()) {
            throw new DataFormatException(path + ": no columns");
        }
        String label = job.path("label").asText("");
        if (label.isEmpty()) {
            return names.get(names.size() - 1);
        }
        if (!names.contains(label)) {
            throw new IllegalArgumentException("--label " + label + ": " + path + " has no such column; its columns are "
                + org.paratrain.io.Clip.message(String.join(", ", names)));
        }
        return label;
    }

    /** {@return the sample weights' column ({@code --sample-weight}), or null for none} */
    private static String weight(JsonNode job, List<String> names, String label, String path) {
        String weight = job.path("sample_weight").asText("");
        if (weight.isEmpty()) {
            return null;
        }
        if (!names.contains(weight) || weight.equals(label)) {
            throw new IllegalArgumentException("--sample-weight " + weight + ": " + (weight.equals(label) ? "it is the "
                + "label column" : path + " has no such column; its columns are "
                + org.paratrain.io.Clip.message(String.join(", ", names))));
        }
        for (JsonNode f : job.path("features")) {
            if (f.asText().equals(weight)) {
                throw new IllegalArgumentException("--features " + weight + ": it is the --sample-weight column");
            }
        }
        return weight;
    }

    private static List<String> features(JsonNode job, List<String> names, String label, String weight,
                                         String path) {
        List<String> chosen = new ArrayList<>();
        if (job.path("features").isArray()) {
            for (JsonNode n : job.path("features")) {
                String f = n.asText();
                if (!names.contains(f) || f.equals(label)) {
                    throw new IllegalArgumentException("--features " + f + ": " + (f.equals(label) ? "it is the label "
                        + "column" : path + " has no such column; its columns are "
                        + org.paratrain.io.Clip.message(String.join(", ", names))));
                }
                chosen.add(f);
            }
        } else {
            List<String> drop = new ArrayList<>();
            job.path("drop").forEach(n -> drop.add(n.asText()));
            for (String d : drop) {
                if (!names.contains(d) && !d.equals(weight)) {      // dropping the weight column too is no error
                    throw new IllegalArgumentException("--drop-columns " + d + ": " + path + " has no such column; its "
                        + "columns are " + org.paratrain.io.Clip.message(String.join(", ", names)));
                }
            }
            for (String n : names) {
                if (!n.equals(label) && !drop.contains(n)) {
                    chosen.add(n);
                }
            }
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException(path + ": no feature columns are left beside the label " + label);
        }
        return chosen;
    }

    /**
     * One pass counting the rows and the empty cells of every column used; the first column with
     * any is named.
     *
     * @return the rows
     */
    private static long nulls(Dataset<Row> table, List<String> features, String label, String path) {
        List<String> used = new ArrayList<>(features);
        used.add(label);
        Column[] counts = used.stream().map(c -> functions.count(functions.when(functions.col(c).isNull(), 1)))
            .toArray(Column[]::new);
        Column[] rest = Arrays.copyOf(counts, counts.length);
        rest[rest.length - 1] = functions.count(functions.lit(1));
        Row r = table.agg(counts[counts.length - 1], rest).first();
        // r: the label's empty cells, then the features' (in order), then the rows.
        long[] empty = new long[used.size()];
        empty[used.size() - 1] = r.getLong(0);
        for (int i = 0; i < features.size(); i++) {
            empty[i] = r.getLong(1 + i);
        }
        for (int i = 0; i < used.size(); i++) {
            if (empty[i] > 0) {
                throw new DataFormatException(path + ": column '" + used.get(i) + "' has " + empty[i] + " empty "
                    + "value" + (empty[i] == 1 ? "" : "s") + " (null); every row needs " + (i == used.size() - 1
                    ? "a label" : "every feature"));
            }
        }
        return r.getLong(used.size());
    }

    private static Object[] distinctLabels(Dataset<Row> table, String label, String path) {
        List<Row> d = table.select(label).distinct().limit(MAX_CLASSES + 1).collectAsList();
        if (d.size() > MAX_CLASSES) {
            throw new DataFormatException(path + ": label column '" + label + "' has more than " + MAX_CLASSES
                + " distinct values; is it a regression's target (--model linear or an MLP regressor)?");
        }
        return d.stream().map(r -> r.get(0)).toArray();
    }

    private static TrainSpec decode(JsonNode spec) {
        return SpecCodec.decode(spec);
    }
}
