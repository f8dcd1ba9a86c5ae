package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.data.PaperFormat;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/** The command line end to end, in process: files written, exit codes, one-line errors. */
class CliTest {
    @TempDir
    Path dir;

    record Run(int status, String out, String err) { }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void generateWritesScikitLearnsNumbers() {
        Path data = dir.resolve("data");
        Run r = run("generate", "regression", "--samples", "101", "--features", "5", "--informative", "3",
            "--noise", "1.0", "--random-state", "7", "--out", data.toString());
        assertEquals(0, r.status(), r.err());
        Dataset d = PaperFormat.read(data.resolve("X.in"), data.resolve("y.in"));
        MakeRegression.Result ref = new MakeRegression(101, 5, 3, 0.0, 1.0, true).generate(new NumpyRandomState(7));
        assertArrayEquals(ref.data().x(), d.x(), 0.0);
        assertArrayEquals(ref.data().y(), d.y(), 0.0);
        assertEquals(5, d.features());
        assertTrue(Files.exists(data.resolve("coef.txt")));
    }

    @Test
    void trainWritesResultAndHistoryEqualToTheApi() throws IOException {
        Path data = dir.resolve("data");
        assertEquals(0, run("generate", "regression", "--samples", "500", "--features", "1", "--noise", "5",
            "--random-state", "3", "--out", data.toString()).status());
        Path out = dir.resolve("run");
        Run r = run("train", "--x", data.resolve("X.in").toString(), "--y", data.resolve("y.in").toString(),
            "--nodes", "4", "--epochs", "300", "--lr", "1e-4", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("final loss"), r.out());
        JsonNode json = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        TrainingResult api = Training.local(PaperFormat.read(data.resolve("X.in"), data.resolve("y.in")),
            TrainSpec.paper().withNodes(4));
        assertEquals(api.params()[0], json.get("params").get(0).asDouble(), 0.0);
        assertEquals(api.finalLoss(), json.get("final_loss").asDouble(), 0.0);
        for (String field : List.of("epochs", "nodes", "backend", "algorithm", "train_seconds", "compute_seconds",
            "comm_seconds", "config", "provenance")) {
            assertTrue(json.has(field), "result.json lacks " + field);
        }
        assertEquals(4, json.get("nodes").asInt());
        List<String> history = Files.readAllLines(out.resolve("history.csv"));
        assertEquals("epoch,elapsed_seconds,loss,lr,compute_seconds,comm_seconds", history.get(0));
        assertEquals(301, history.size());
        assertEquals(api.history().loss()[299], Double.parseDouble(history.get(300).split(",")[2]), 0.0);
    }

    @Test
    void withoutATerminalALongRunPrintsTimedLinesAndAShortOneNone() throws IOException {
        Path data = dir.resolve("data");
        assertEquals(0, run("generate", "regression", "--samples", "500", "--features", "1", "--noise", "5",
            "--random-state", "3", "--out", data.toString()).status());
        String[] train = {"train", "--x", data.resolve("X.in").toString(), "--y", data.resolve("y.in").toString(),
            "--nodes", "2", "--epochs", "300", "--lr", "1e-4"};
        Run quick = run(train);
        assertEquals(0, quick.status(), quick.err());
        assertTrue(!quick.err().contains("epoch"), "a run shorter than the period prints no line: " + quick.err());
        System.setProperty("paratrain.progress.seconds", "0");      // every epoch is "long enough"
        try {
            Path out = dir.resolve("timed");
            String[] withOut = java.util.Arrays.copyOf(train, train.length + 2);
            withOut[train.length] = "--out";
            withOut[train.length + 1] = out.toString();
            Run timed = run(withOut);
            assertEquals(0, timed.status(), timed.err());
            List<String> lines = timed.err().lines().filter(l -> l.startsWith("paratrain: epoch")).toList();
            assertEquals(299, lines.size(), "a line an epoch but the last, which the summary reports");
            List<String> history = Files.readAllLines(out.resolve("history.csv"));
            for (int epoch : new int[] {1, 150, 299}) {
                String line = lines.get(epoch - 1);
                assertTrue(line.startsWith("paratrain: epoch " + epoch + "/300  loss "), line);
                assertTrue(line.endsWith(" left"), line);
                double loss = Double.parseDouble(line.split("\\s+")[4]);
                assertEquals(Double.parseDouble(history.get(epoch).split(",")[2]), loss,
                    1e-5 * Math.abs(loss), "the line's loss is the epoch's: " + line);
            }
            Run quiet = run(java.util.stream.Stream.concat(java.util.Arrays.stream(train), java.util.stream.Stream.of(
                "--quiet")).toArray(String[]::new));
            assertTrue(!quiet.err().contains("epoch"), quiet.err());
            Run every = run(java.util.stream.Stream.concat(java.util.Arrays.stream(train), java.util.stream.Stream.of(
                "--log-every", "100")).toArray(String[]::new));
            assertTrue(!every.err().contains("epoch"), "--log-every replaces the timed lines: " + every.err());
            assertEquals(3, every.out().lines().filter(l -> l.startsWith("epoch ")).count(), every.out());
        } finally {
            System.clearProperty("paratrain.progress.seconds");
        }
    }

    @Test
    void badDataIsOneLineNamingFileAndLineAndWritesNothing() throws IOException {
        Files.writeString(dir.resolve("X.in"), "1\n2\nabc\n");
        Files.writeString(dir.resolve("y.in"), "1\n2\n3\n");
        Path out = dir.resolve("run");
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--out", out.toString());
        assertEquals(1, r.status());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("X.in:3: value 1 is 'abc', expected a number"), r.err());
        assertFalse(Files.exists(out));
    }

    /**
     * The same train command, without --sum, ends with the same parameters whatever runs it:
     * the default exchange at 1 and 3 ranks, ring, tree, shared and auto (whatever the cost model
     * picks on this machine), for a classifier on mini-batches.
     */
    @Test
    void theDefaultSumKeepsTheBitsWithEveryExchangeAndAuto() throws IOException {
        Path data = dir.resolve("cls");
        assertEquals(0, run("generate", "classification", "--samples", "240", "--features", "5", "--informative",
            "3", "--out", data.toString()).status());
        String reference = null;
        for (String how : List.of("--nodes=1", "--nodes=3", "--allreduce=ring", "--allreduce=tree",
            "--allreduce=shared", "--allreduce=auto")) {
            Path out = dir.resolve("run" + how.replace("=", "-"));
            Run r = run("train", "--x", data.resolve("X.in").toString(), "--y", data.resolve("y.in").toString(),
                "--model", "logistic", "--optimizer", "adam", "--lr", "0.01", "--batch-size", "32", "--epochs", "5",
                how.startsWith("--nodes") ? how : "--nodes=2", how.startsWith("--nodes") ? "--quiet" : how,
                "--out", out.toString());
            assertEquals(0, r.status(), how + ": " + r.err());
            JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
            String params = result.get("params").toString() + " " + result.get("final_loss").asText();
            assertEquals("fixed:1", result.at("/config/sum").asText(), how);
            if (reference == null) {
                reference = params;
            }
            assertEquals(reference, params, how + " gives the bits of one rank (" + result.get("algorithm") + ")");
        }
    }

    @Test
    void divergenceExitsNonZeroWithAdviceAndWritesTheHistoryBesideAnUntouchedOut() throws IOException {
        PaperFormat.write(new MakeRegression(500, 1, 1, 0, 0, true).generate(new NumpyRandomState(1)).data(), dir);
        Path out = dir.resolve("run");
        Run good = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--epochs", "5", "--out", out.toString());
        assertEquals(0, good.status(), good.err());
        java.util.Map<String, byte[]> before = new java.util.TreeMap<>();
        for (String f : List.of("history.csv", "result.json", "model.json")) {
            before.put(f, Files.readAllBytes(out.resolve(f)));
        }
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--lr", "0.01", "--nodes", "3", "--out", out.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("diverged") && r.err().contains("smaller learning rate"), r.err());
        // The older run's files are as they were, and nothing was added to them.
        try (var files = Files.list(out)) {
            assertEquals(before.keySet(), files.map(f -> f.getFileName().toString())
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)));
        }
        before.forEach((f, bytes) -> assertArrayEquals(bytes, readBytes(out.resolve(f)), f));
        // The losses up to the divergence went beside it, and the message says where.
        Path failed = dir.resolve("run.failed").resolve("history.csv");
        List<String> lines = Files.readAllLines(failed);
        assertTrue(r.err().contains(failed.toString()), r.err());
        double last = Double.parseDouble(lines.get(lines.size() - 1).split(",")[2]);
        double first = Double.parseDouble(lines.get(1).split(",")[2]);
        assertTrue(!(last <= first), "the last loss shows the divergence: " + lines);
    }

    private static byte[] readBytes(Path f) {
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--nodes=0", "--nodes=5000", "--epochs=0", "--lr=-1", "--lr=NaN",
        "--loss-reduction=median", "--block-size=-2", "--backend=gpu"})
    void impossibleOptionsAreNamed(String option) throws IOException {
        Files.writeString(dir.resolve("X.in"), "1\n");
        Files.writeString(dir.resolve("y.in"), "1\n");
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(), option);
        assertEquals(2, r.status(), r.err());
        String name = option.substring(0, option.indexOf('='));
        assertTrue(r.err().contains(name), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void generateRejectsImpossibleArguments() {
        for (String[] bad : List.of(new String[] {"--samples", "0"}, new String[] {"--noise", "-1"},
            new String[] {"--random-state", "-5"}, new String[] {"--random-state", "4294967296"})) {
            String[] args = {"generate", "regression", "--samples", "5", "--features", "1", "--out",
                dir.resolve("g").toString(), bad[0], bad[1]};
            Run r = run(args);
            assertEquals(2, r.status(), String.join(" ", bad) + ": " + r.err());
            assertTrue(r.err().contains(bad[0]), r.err());
        }
        assertFalse(Files.exists(dir.resolve("g")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "generate", "generate regression", "train", "bench", "bench paper", "paper", "scale",
        "plan", "evaluate", "predict", "bench collectives", "bench mpi", "bench kernels", "bench balance"})
    void everyCommandHasHelp(String command) {
        String[] words = command.isEmpty() ? new String[0] : command.split(" ");
        String[] args = java.util.Arrays.copyOf(words, words.length + 1);
        args[words.length] = "--help";
        Run r = run(args);
        assertEquals(0, r.status());
        assertTrue(r.out().contains("Usage:"), r.out());
    }

    @Test
    void versionAndUsageErrors() {
        Run v = run("--version");
        assertEquals(0, v.status());
        assertTrue(v.out().startsWith("paratrain "), v.out());
        Run none = run();
        assertEquals(2, none.status());
        Run unknown = run("train", "--bogus");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().startsWith("paratrain train: error:"), unknown.err());
    }

    /** {@code --allreduce auto} with a sum chooses among exchanges of that sum, and says which it took. */
    @Test
    void autoKeepsTheSumAskedFor() throws IOException {
        PaperFormat.write(new MakeRegression(2000, 3, 3, 0, 1, true).generate(new NumpyRandomState(5)).data(), dir);
        Path out = dir.resolve("auto");
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(), "--nodes",
            "2", "--allreduce", "auto", "--sum", "float", "--epochs", "5", "--lr", "1e-5", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().matches("(?s).*auto: 2 nodes, [a-z-]+/float .*"), r.out());
        JsonNode config = new ObjectMapper().readTree(out.resolve("result.json").toFile()).get("config");
        assertEquals("float", config.get("sum").asText());
    }

    /**
     * {@code --allreduce auto} with {@code --rebalance}: the run goes through whichever exchange the
     * cost model takes; when it takes the shared step, which has no boundaries to move, it says
     * that --rebalance does not apply and records none.
     */
    @Test
    void autoWithRebalanceRunsWhicheverExchangeItTakes() throws IOException {
        PaperFormat.write(new MakeRegression(2000, 3, 3, 0, 1, true).generate(new NumpyRandomState(5)).data(), dir);
        Path out = dir.resolve("auto-rebalance");
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(), "--nodes",
            "2", "--allreduce", "auto", "--sum", "blocks", "--rebalance", "10", "--epochs", "50", "--lr", "1e-5",
            "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        JsonNode config = new ObjectMapper().readTree(out.resolve("result.json").toFile()).get("config");
        boolean shared = config.get("exchange").asText().equals("shared");
        assertEquals(shared, r.out().contains("--rebalance does not apply to shared"), r.out());
        assertEquals(shared ? 0 : 10, config.get("rebalance_steps").asInt(), r.out());
    }

    /** Classification end to end: split, standardise, train, model.json, evaluate, predict. */
    @Test
    void logisticTrainEvaluatePredict() throws IOException {
        java.util.Random rnd = new java.util.Random(5);
        StringBuilder xs = new StringBuilder();
        StringBuilder ys = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            int label = i % 2;
            double a = 100 + 10 * (label == 1 ? 1 : -1) + 5 * rnd.nextGaussian();   // far from 0: needs scaling
            xs.append(a).append(' ').append(rnd.nextGaussian()).append('\n');
            ys.append(label).append('\n');
        }
        Files.writeString(dir.resolve("X.in"), xs);
        Files.writeString(dir.resolve("y.in"), ys);
        Path out = dir.resolve("run");
        Run r = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--model", "logistic", "--intercept", "--standardize", "--test-fraction", "0.25", "--seed", "3",
            "--loss-reduction", "mean", "--lr", "0.5", "--epochs", "500", "--nodes", "3", "--optimizer", "momentum",
            "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("test       accuracy"), r.out());
        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertTrue(result.get("test_metrics").get("accuracy").asDouble() > 0.95, result.toString());
        assertEquals(300, result.get("data").get("samples").asInt());
        JsonNode model = new ObjectMapper().readTree(out.resolve("model.json").toFile());
        assertEquals("paratrain-model", model.get("format").asText());
        assertEquals(2, model.get("standardizer").get("mean").size());

        Run ev = run("evaluate", "--model-file", out.resolve("model.json").toString(), "--x",
            dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString());
        assertEquals(0, ev.status(), ev.err());
        assertTrue(ev.out().contains("accuracy 9") && ev.out().contains("confusion matrix"), ev.out());
        Run pr = run("predict", "--model-file", out.resolve("model.json").toString(), "--x",
            dir.resolve("X.in").toString(), "--out", dir.resolve("pred.txt").toString());
        assertEquals(0, pr.status(), pr.err());
        List<String> preds = Files.readAllLines(dir.resolve("pred.txt"));
        assertEquals(400, preds.size());
        long right = 0;
        for (int i = 0; i < 400; i++) {
            right += Integer.parseInt(preds.get(i)) == i % 2 ? 1 : 0;
        }
        assertTrue(right > 380, right + " of 400");

        Files.writeString(dir.resolve("bad.json"), "{\"format\": \"something else\"}");
        Run bad = run("evaluate", "--model-file", dir.resolve("bad.json").toString(), "--x",
            dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString());
        assertEquals(1, bad.status());
        assertTrue(bad.err().contains("not a paratrain model file"), bad.err());
        Run labels = run("train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("X.in").toString());
        assertEquals(1, labels.status());
    }

}
