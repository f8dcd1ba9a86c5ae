package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeClassification;
import org.paratrain.data.NumpyRandomState;

/**
 * {@code train --init-from} and {@link Trainer#initFrom}: a run started from a file's parameters
 * gives the same bits at any node count (every rank starts from the same parameters), the
 * float64 export round trip is exact (a run that cannot change a parameter ends with the
 * exported ones, bit for bit), the record says which file (and its SHA-256) the run started
 * from, and a checkpoint to resume wins over the file.
 */
class InitFromTest {
    private static final String IRIS = "core/src/test/resources/fixtures/iris.csv";
    private static final Dataset BLOBS = new MakeClassification(240, 6, 3, 1, 0, 3, 1, null, 0.0, 1.5, true, null, null,
        true).generate(new NumpyRandomState(7));

    @TempDir
    Path dir;

    /** The iris MLP trained for a few epochs, exported as safetensors: the file the runs start from. */
    private Path trainedAndExported(String name, long seed) {
        Path run = dir.resolve(name);
        cli(iris("--epochs", "15", "--seed", Long.toString(seed), "--nodes", "2", "--out", run.toString()));
        Path st = run.resolve("model.safetensors");
        cli("export", "--model-file", run.resolve("model.json").toString(), "--format", "safetensors", "--out",
            st.toString());
        return st;
    }

    @Test
    void theSameBitsAtOneTwoAndThreeNodes() throws IOException {
        Path st = trainedAndExported("a", 42);
        List<double[]> results = new ArrayList<>();
        for (String nodes : List.of("1", "2", "3")) {
            for (String exchange : List.of("master-worker", "ring")) {
                Path out = dir.resolve("b" + nodes + exchange);
                String said = cli(iris("--init-from", st.toString(), "--epochs", "5", "--nodes", nodes, "--allreduce",
                    exchange, "--out", out.toString()));
                assertTrue(said.contains("starting from the parameters of " + st + " (safetensors)"), said);
                results.add(params(out.resolve("result.json")));
            }
        }
        for (double[] r : results) {
            assertArrayEquals(results.getFirst(), r, "every node count and exchange");
        }
        Path fresh = dir.resolve("fresh");
        cli(iris("--epochs", "5", "--nodes", "2", "--out", fresh.toString()));
        assertFalse(Arrays.equals(results.getFirst(), params(fresh.resolve("result.json"))), "the init mattered");
        Path fromJson = dir.resolve("json");
        cli(iris("--init-from", dir.resolve("a/model.json").toString(), "--epochs", "5", "--nodes", "3", "--out",
            fromJson.toString()));
        assertArrayEquals(results.getFirst(), params(fromJson.resolve("result.json")), "model.json: the same start");
    }

    @Test
    void anUpdateThatChangesNothingEndsWithTheExportedBitsAndTheRecordSaysWhence() throws Exception {
        Path st = trainedAndExported("a", 42);
        Path z = dir.resolve("z");
        // Gradient descent at the smallest positive learning rate: each update is below half an ulp of every weight.
        cli(iris("--init-from", st.toString(), "--optimizer", "gd", "--lr", "4.9E-324", "--batch-size", "0",
            "--epochs", "1", "--nodes", "3", "--out", z.toString()));
        double[] a = params(dir.resolve("a/result.json"));
        double[] back = params(z.resolve("result.json"));
        for (int i = 0; i < a.length; i++) {
            assertEquals(Double.doubleToRawLongBits(a[i]), Double.doubleToRawLongBits(back[i]), "parameter " + i);
        }
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(st)));
        JsonNode result = new ObjectMapper().readTree(z.resolve("result.json").toFile()).get("init_from");
        JsonNode model = new ObjectMapper().readTree(z.resolve("model.json").toFile()).path("training").get("init_from");
        for (JsonNode record : List.of(result, model)) {
            assertEquals(st.toString(), record.get("file").asText());
            assertEquals("safetensors", record.get("format").asText());
            assertEquals(sha, record.get("sha256").asText());
            assertTrue(record.get("applied").asBoolean());
        }
    }

    @Test
    void aCheckpointToResumeWinsOverTheFile() throws IOException {
        Path st = trainedAndExported("a", 42);
        Path other = trainedAndExported("other", 7);
        Path ck = dir.resolve("ck");
        List<String> job = List.of("--checkpoint-dir", ck.toString(), "--checkpoint-every", "2", "--resume",
            ck.toString(), "--resume-if-present", "--epochs", "6");
        Path first = dir.resolve("first");
        String said = cli(iris(concat(job, "--init-from", st.toString(), "--nodes", "2", "--out", first.toString())));
        assertTrue(said.contains("no checkpoint in") && said.contains("starting from the parameters of"), said);
        Path plain = dir.resolve("plain");
        cli(iris("--init-from", st.toString(), "--epochs", "6", "--nodes", "2", "--out", plain.toString()));
        assertArrayEquals(params(plain.resolve("result.json")), params(first.resolve("result.json")),
            "no checkpoint yet: started from the file");
        Path again = dir.resolve("again");
        said = cli(iris(concat(job, "--init-from", other.toString(), "--nodes", "3", "--out", again.toString())));
        assertTrue(said.contains("resuming from") && said.contains("not applied"), said);
        assertArrayEquals(params(first.resolve("result.json")), params(again.resolve("result.json")),
            "the checkpoint's parameters, not the other file's");
        assertFalse(new ObjectMapper().readTree(again.resolve("result.json").toFile()).get("init_from").get("applied")
            .asBoolean());
    }

    @Test
    void theJavaApiStartsFromAFileOrFromNumbersWithTheSameBitsAtAnyNodeCount() {
        TrainedModel a = Trainer.on(BLOBS).mlp(8).activation("tanh").adam(0.01).epochs(4).batchSize(16).fit();
        Path st = dir.resolve("a.safetensors");
        a.exportSafetensors(st);
        double[] start = org.paratrain.export.InitialParameters.read(st, Trainer.on(BLOBS).mlp(8).spec().model(),
            6, 3).params();
        List<double[]> results = new ArrayList<>();
        for (int nodes = 1; nodes <= 3; nodes++) {
            results.add(Trainer.on(BLOBS).mlp(8).activation("tanh").adam(0.01).epochs(3).batchSize(16).nodes(nodes)
                .initFrom(st).run().params());
            results.add(Trainer.on(BLOBS).mlp(8).activation("tanh").adam(0.01).epochs(3).batchSize(16).nodes(nodes)
                .initialParameters(start).run().params());
        }
        for (double[] r : results) {
            assertArrayEquals(results.getFirst(), r);
        }
        assertFalse(Arrays.equals(results.getFirst(), Trainer.on(BLOBS).mlp(8).activation("tanh").adam(0.01).epochs(3)
            .batchSize(16).run().params()), "the init mattered");
        DataFormatException e = assertThrows(DataFormatException.class, () -> Trainer.on(BLOBS).mlp(9).epochs(1)
            .initFrom(st).run());
        assertTrue(e.getMessage().contains("0.weight") && e.getMessage().contains("[9, 6]")
            && e.getMessage().contains("[8, 6]"), e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Trainer.on(BLOBS).mlp(8)
            .epochs(1).initialParameters(new double[3]).run());
        assertTrue(bad.getMessage().contains("initialParameters"), bad.getMessage());
    }

    @Test
    void theJavaApiResumesRatherThanStartingFromTheFile() {
        Path st = dir.resolve("a.safetensors");
        Trainer.on(BLOBS).mlp(8).epochs(2).fit().exportSafetensors(st);
        Path other = dir.resolve("other.safetensors");
        Trainer.on(BLOBS).mlp(8).epochs(2).seed(3).fit().exportSafetensors(other);
        Path ck = dir.resolve("ck");
        double[] first = Trainer.on(BLOBS).mlp(8).epochs(4).initFrom(st).checkpoints(ck, 2).run().params();
        double[] resumed = Trainer.on(BLOBS).mlp(8).epochs(4).initFrom(other).resumeFrom(ck).nodes(2).run().params();
        assertArrayEquals(first, resumed);
    }

    /** A CSV of iris with its columns in {@code order} (indices into the original's, the label last). */
    private Path irisColumns(String name, int... order) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(IRIS))) {
            String[] f = line.split(",");
            List<String> row = new ArrayList<>();
            for (int i : order) {
                row.add(f[i]);
            }
            out.add(String.join(",", row));
        }
        return Files.write(dir.resolve(name), out);
    }

    /** The first layer's weights {@code [out, in]} of a run's model, through its safetensors export. */
    private double[] firstLayer(Path run) {
        Path st = run.resolve("model.safetensors");
        cli("export", "--model-file", run.resolve("model.json").toString(), "--format", "safetensors", "--out",
            st.toString());
        return org.paratrain.export.Safetensors.read(st).tensors().get("0.weight").values();
    }

    @Test
    void columnsInAnotherOrderAreMatchedByName() throws IOException {
        Path st = trainedAndExported("named", 3);
        Path reversed = irisColumns("reversed.csv", 3, 2, 1, 0, 4);
        List<String> still = List.of("--init-from", st.toString(), "--optimizer", "gd", "--lr", "4.9E-324",
            "--epochs", "1", "--no-standardize");
        Path same = dir.resolve("same");
        cli(iris(concat(still, "--out", same.toString())));
        Path other = dir.resolve("other");
        List<String> args = new ArrayList<>(List.of("train", "--format", "csv", "--data", reversed.toString(), "--label",
            "species", "--model", "mlp", "--layers", "8", "--activation", "tanh"));
        args.addAll(still);
        args.addAll(List.of("--out", other.toString()));
        cli(args.toArray(String[]::new));
        double[] a = firstLayer(same);
        double[] b = firstLayer(other);
        assertEquals(32, a.length);
        for (int o = 0; o < 8; o++) {
            for (int j = 0; j < 4; j++) {
                assertEquals(a[o * 4 + (3 - j)], b[o * 4 + j], 0.0, "unit " + o + ", column " + j + " by name");
            }
        }
    }

    @Test
    void otherFeatureNamesOrAnotherKindAreRefusedInOneLine() throws IOException {
        Path st = trainedAndExported("k", 4);
        Path renamed = Files.writeString(dir.resolve("renamed.csv"), Files.readString(Path.of(IRIS))
            .replace("\"petal width (cm)\"", "\"petal area\""));
        String err = cliFails("train", "--format", "csv", "--data", renamed.toString(), "--label", "species", "--model",
            "mlp", "--layers", "8", "--activation", "tanh", "--init-from", st.toString(), "--out",
            dir.resolve("x").toString());
        assertTrue(err.contains(st + ": was trained on the features") && err.contains("new: petal area")
            && err.contains("gone: petal width (cm)"), err);
        for (Path file : List.of(st, dir.resolve("k/model.json"))) {
            err = cliFails("train", "--format", "csv", "--data", IRIS, "--label", "species", "--model", "softmax",
                "--init-from", file.toString(), "--out", dir.resolve("y").toString());
            assertTrue(err.contains(file + ": holds the parameters of a model of kind mlp; this run trains kind softmax"), err);
        }
        assertFalse(Files.exists(dir.resolve("x")) || Files.exists(dir.resolve("y")), "nothing written");
    }

    private static String cliFails(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(1, status, String.join(" ", args) + "\n" + out + err);
        String e = err.toString().strip();
        assertEquals(1, e.lines().count(), e);
        assertFalse(e.contains("Exception") || e.contains("\tat "), e);
        return e;
    }

    private static String[] iris(String... extra) {
        return concat(List.of("train", "--format", "csv", "--data", IRIS, "--label", "species", "--model", "mlp",
            "--layers", "8", "--activation", "tanh"), extra).toArray(String[]::new);
    }

    private static List<String> concat(List<String> base, String... extra) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(extra));
        return all;
    }

    private static String[] iris(List<String> extra) {
        return iris(extra.toArray(String[]::new));
    }

    private static double[] params(Path resultJson) throws IOException {
        JsonNode p = new ObjectMapper().readTree(resultJson.toFile()).get("params");
        double[] v = new double[p.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = p.get(i).asDouble();
        }
        return v;
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(0, status, String.join(" ", args) + "\n" + out + err);
        return out.toString();
    }
}
