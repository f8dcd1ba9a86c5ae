package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.experiment.RunWriter;

/**
 * {@code paratrain train --backend spark} as a user runs it: the command line's jar in a
 * process of its own, which starts the Spark driver in another; its model.json holds the bits
 * that {@code train} on the local backend gives on the same rows at another node count (the
 * parameters, the feature scaling fitted over the tasks in turn, the class names), and bad
 * input ends in one line naming it.
 */
class SparkTrainCommandTest {
    @TempDir
    static Path dir;

    /** The command line's jar, built by the reactor before this module. */
    static final Path JAR = Path.of("..", "cli", "target", "paratrain.jar").toAbsolutePath().normalize();

    static Path csv;

    @BeforeAll
    static void data() throws Exception {
        assertTrue(Files.isRegularFile(JAR), JAR + " is missing: build the command line first (mvn package)");
        csv = writeRows(dir.resolve("rows.csv"));
    }

    /** Three features on different scales and a named class: standardising and class names both matter. */
    static Path writeRows(Path file) throws java.io.IOException {
        SplittableRandom rnd = new SplittableRandom(5);
        StringBuilder sb = new StringBuilder("a,b,c,kind\n");
        for (int i = 0; i < 420; i++) {
            double a = rnd.nextGaussian();
            double b = 5 + 2 * rnd.nextGaussian();
            double c = 100 + 30 * rnd.nextGaussian();
            boolean yes = a + 0.3 * (b - 5) - 0.02 * (c - 100) + 0.5 * rnd.nextGaussian() > 0;
            sb.append(a).append(',').append(b).append(',').append(c).append(',').append(yes ? "yes" : "no").append('\n');
        }
        return Files.writeString(file, sb);
    }

    record Run(int status, String out, String err) { }

    static Run paratrain(String... args) throws Exception {
        return paratrain(List.of(), args);
    }

    /** Runs the command line with {@code jvm} options (system properties) before its jar. */
    static Run paratrain(List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            // Its temporary files (Spark's, lz4-java's) where the build keeps the tests', not in /tmp.
            "--enable-native-access=ALL-UNNAMED", "-Xmx1g", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "paratrain " + String.join(" ", args) + " did not end");
        } finally {
            p.destroyForcibly();
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static JsonNode model(Path run) throws Exception {
        return RunWriter.json().readTree(run.resolve("model.json").toFile());
    }

    /** The parts of model.json training decides, which must be the same bits (JSON writes doubles exactly). */
    static void assertSameModel(JsonNode expected, JsonNode got) {
        for (String k : List.of("model", "features", "classes", "class_names", "feature_names", "label_column", "params",
            "standardizer")) {
            assertEquals(expected.get(k), got.get(k), k);
        }
    }

    @Test
    void aCsvThroughSparkGivesTheBitsOfTheLocalBackend() throws Exception {
        Path local = dir.resolve("local");
        Path spark = dir.resolve("spark");
        Run l = paratrain("train", "--data", csv.toString(), "--model", "logistic", "--epochs", "30", "--nodes", "1",
            "--quiet", "--out", local.toString());
        assertEquals(0, l.status(), l.err());
        // No terminal here: a line with the time left every paratrain.progress.seconds (30 by default; 0 here,
        // so every epoch but the last), as the local backend prints.
        Run s = paratrain(List.of("-Dparatrain.progress.seconds=0"), "train", "--backend", "spark", "--master",
            "local[3]", "--nodes", "3", "--data", csv.toString(), "--model", "logistic", "--epochs", "30", "--out",
            spark.toString());
        assertEquals(0, s.status(), s.err());
        assertSameModel(model(local), model(spark));
        assertTrue(model(spark).get("standardizer").isObject(), "classifiers on tables are standardised by default");
        assertEquals("[\"no\",\"yes\"]", model(spark).get("class_names").toString());
        JsonNode r = RunWriter.json().readTree(spark.resolve("result.json").toFile());
        assertEquals("spark", r.path("backend").asText());
        assertEquals(3, r.path("nodes").asInt());
        assertEquals(RunWriter.json().readTree(local.resolve("result.json").toFile()).path("train_accuracy"),
            r.path("train_accuracy"));
        assertEquals(Files.readAllLines(local.resolve("history.csv")).size(),
            Files.readAllLines(spark.resolve("history.csv")).size());
        for (int e = 1; e < 30; e++) {
            assertTrue(java.util.regex.Pattern.compile("paratrain: epoch " + e + "/30  loss \\S+  \\S+ s, about \\d+ s left")
                .matcher(s.err()).find(), "epoch " + e + "'s line: " + s.err());
        }
        assertTrue(!s.err().contains("epoch 30/30"), "the last epoch's is the result: " + s.err());
        assertTrue(s.out().contains("master local[3], 3 tasks"), s.out());
    }

    /**
     * result.json from Spark has what the other backends' has: every rank's compute and exchange
     * seconds, and the steps whose guessed grid failed, as many as the local backend's at any
     * node count (whether a guess holds depends on the step's values alone).
     */
    @Test
    void sparksResultHasEveryRanksTimesAndTheLocalBackendsGuessMisses() throws Exception {
        Path local = dir.resolve("m-local");
        Path spark = dir.resolve("m-spark");
        List<String> common = List.of("--data", csv.toString(), "--model", "mlp", "--layers", "8", "--optimizer",
            "adam", "--lr", "0.05", "--batch-size", "16", "--epochs", "4", "--allreduce", "ring");
        List<String> l = new ArrayList<>(List.of("train", "--nodes", "1", "--quiet", "--out", local.toString()));
        l.addAll(common);
        Run lr = paratrain(l.toArray(String[]::new));
        assertEquals(0, lr.status(), lr.err());
        List<String> s = new ArrayList<>(List.of("train", "--backend", "spark", "--master", "local[3]", "--nodes", "3",
            "--out", spark.toString()));
        s.addAll(common);
        Run sr = paratrain(s.toArray(String[]::new));
        assertEquals(0, sr.status(), sr.err());
        assertSameModel(model(local), model(spark));
        JsonNode r = RunWriter.json().readTree(spark.resolve("result.json").toFile());
        JsonNode expected = RunWriter.json().readTree(local.resolve("result.json").toFile());
        assertTrue(expected.path("grid_guess_misses").asLong() > 0, expected.toString());
        assertEquals(expected.path("grid_guess_misses"), r.path("grid_guess_misses"));
        for (String k : List.of("compute_seconds_per_rank", "comm_seconds_per_rank")) {
            assertEquals(3, r.path(k).size(), k + ": " + r);
            for (JsonNode x : r.path(k)) {
                assertTrue(x.asDouble() > 0, k + ": " + r.path(k));
            }
        }
    }

    @Test
    void aWeightColumnThroughSparkGivesTheBitsOfTheLocalBackend() throws Exception {
        // rows.csv with a weight column w before the label: 0, 0.5, 1, 1.5, 2, 0, ...
        List<String> lines = Files.readAllLines(csv);
        StringBuilder sb = new StringBuilder("a,b,c,w,kind\n");
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",");
            sb.append(f[0]).append(',').append(f[1]).append(',').append(f[2]).append(',').append(0.5 * (i % 5))
                .append(',').append(f[3]).append('\n');
        }
        Path weighted = Files.writeString(dir.resolve("weighted.csv"), sb);
        Path local = dir.resolve("w-local");
        Path spark = dir.resolve("w-spark");
        Path plain = dir.resolve("w-plain");
        Run l = paratrain("train", "--data", weighted.toString(), "--sample-weight", "w", "--model", "logistic",
            "--epochs", "30", "--nodes", "1", "--quiet", "--out", local.toString());
        assertEquals(0, l.status(), l.err());
        Run s = paratrain("train", "--backend", "spark", "--master", "local[3]", "--nodes", "3", "--data",
            weighted.toString(), "--sample-weight", "w", "--model", "logistic", "--epochs", "30", "--out",
            spark.toString());
        assertEquals(0, s.status(), s.err());
        // Not --quiet, no terminal, a run of seconds: no progress line (one every 30 s).
        assertTrue(!s.err().contains("paratrain: epoch"), "a short run is silent: " + s.err());
        assertSameModel(model(local), model(spark));
        assertEquals("[\"a\",\"b\",\"c\"]", model(spark).get("feature_names").toString(), "the weight is no feature");
        Run p = paratrain("train", "--data", csv.toString(), "--model", "logistic", "--epochs", "30", "--nodes", "1",
            "--quiet", "--out", plain.toString());
        assertEquals(0, p.status(), p.err());
        assertTrue(!model(plain).get("params").equals(model(spark).get("params")), "the weights change training");

        Run bad = paratrain("train", "--backend", "spark", "--master", "local[1]", "--data", weighted.toString(),
            "--sample-weight", "nope", "--model", "logistic", "--out", dir.resolve("w-bad").toString());
        assertEquals(2, bad.status(), bad.err());
        assertOneLine(bad, "--sample-weight nope: " + weighted + " has no such column");
        Path negative = Files.writeString(dir.resolve("negative.csv"), sb.toString().replaceFirst(",1.5,", ",-1.5,"));
        bad = paratrain("train", "--backend", "spark", "--master", "local[1]", "--data", negative.toString(),
            "--sample-weight", "w", "--model", "logistic", "--out", dir.resolve("w-bad").toString());
        assertEquals(2, bad.status(), bad.err());
        assertOneLine(bad, "--sample-weight w: a row weighs -1.5");
        assertFalse(Files.exists(dir.resolve("w-bad")), "no output for a refused run");
    }

    @Test
    void parquetThroughSparkGivesTheBitsOfTheSameRowsAsCsv() throws Exception {
        // The same rows as Parquet, written by Spark (one file, in order), and as CSV for the local backend.
        SplittableRandom rnd = new SplittableRandom(9);
        List<Row> rows = new ArrayList<>();
        StringBuilder sb = new StringBuilder("x1,x2,y\n");
        for (int i = 0; i < 300; i++) {
            double x1 = rnd.nextGaussian();
            double x2 = rnd.nextGaussian();
            double y = Math.sin(x1) + 0.5 * x2 + 0.1 * rnd.nextGaussian();
            rows.add(RowFactory.create(x1, x2, y));
            sb.append(x1).append(',').append(x2).append(',').append(y).append('\n');
        }
        StructType schema = new StructType().add("x1", DataTypes.DoubleType).add("x2", DataTypes.DoubleType)
            .add("y", DataTypes.DoubleType);
        Dataset<Row> frame = SparkSessions.local3().createDataFrame(rows, schema).coalesce(1);
        Path parquet = dir.resolve("rows.parquet");
        frame.write().parquet(parquet.toString());
        Path sameCsv = dir.resolve("same.csv");
        Files.writeString(sameCsv, sb);
        Path local = dir.resolve("mlp-local");
        Path spark = dir.resolve("mlp-spark");
        String[] common = {"--model", "mlp-regression", "--layers", "8", "--epochs", "6", "--batch-size", "16", "--quiet"};
        List<String> a = new ArrayList<>(List.of("train", "--data", sameCsv.toString(), "--nodes", "1", "--out",
            local.toString()));
        a.addAll(List.of(common));
        Run l = paratrain(a.toArray(String[]::new));
        assertEquals(0, l.status(), l.err());
        List<String> b = new ArrayList<>(List.of("train", "--backend", "spark", "--master", "local[2]", "--nodes", "2",
            "--format", "parquet", "--data", parquet.toString(), "--label", "y", "--out", spark.toString()));
        b.addAll(List.of(common));
        Run s = paratrain(b.toArray(String[]::new));
        assertEquals(0, s.status(), s.err());
        assertSameModel(model(local), model(spark));
        assertFalse(s.err().contains("paratrain: epoch"), "--quiet: " + s.err());
    }

    @Test
    void badInputEndsInOneLineNamingItAndWritesNothing() throws Exception {
        Path bad = dir.resolve("strings.csv");
        Files.writeString(bad, "a,name,label\n1.5,x,0\n2.5,y,1\n0.5,z,0\n3.5,w,1\n");
        Path out = dir.resolve("bad-out");
        Run r = paratrain("train", "--backend", "spark", "--master", "local[1]", "--data", bad.toString(), "--model",
            "logistic", "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertOneLine(r, "column 'name' holds string values");
        assertFalse(Files.exists(out), "no output for a refused run");

        r = paratrain("train", "--backend", "spark", "--master", "local[1]", "--data", csv.toString(), "--label",
            "nope", "--model", "logistic");
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "--label nope: " + csv + " has no such column; its columns are a, b, c, kind");

        // Refused before any Spark starts.
        r = paratrain("train", "--backend", "spark", "--data", csv.toString(), "--test-fraction", "0.2");
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "--test-fraction is not available with --backend spark");
        r = paratrain("train", "--backend", "spark", "--data", dir.resolve("absent.parquet").toString());
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "absent.parquet: no such file or directory");
        r = paratrain("train", "--backend", "spark", "--data", csv.toString(), "--spark-conf", "executor.memory=4g");
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "--spark-conf executor.memory=4g: expected KEY=VALUE with a Spark key (spark.*)");
        r = paratrain("train", "--backend", "spark", "--data", csv.toString(), "--spark-submit="
            + dir.resolve("no-spark/bin/spark-submit"));
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "no-spark/bin/spark-submit: no such executable file");
        r = paratrain("train", "--data", csv.toString(), "--spark-conf", "spark.executor.memory=4g");
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "--spark-conf has no effect without --backend spark");
        r = paratrain("paper", "--backend", "spark");
        assertEquals(2, r.status(), r.err());
        assertOneLine(r, "--backend spark is for paratrain train");
    }

    private static void assertOneLine(Run r, String part) {
        String err = r.err().strip();
        List<String> lines = err.lines().filter(l -> !l.startsWith("paratrain: preparing")).toList();
        assertEquals(1, lines.size(), "one line, got:\n" + err);
        assertTrue(lines.get(0).toLowerCase(Locale.ROOT).contains(part.toLowerCase(Locale.ROOT)),
            "'" + part + "' in: " + lines.get(0));
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }
}
