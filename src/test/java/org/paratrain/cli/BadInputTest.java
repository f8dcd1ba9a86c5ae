package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input, as a new user gives it: each case runs a command in process on a fresh directory
 * of good files plus the case's bad one, and checks the error contract: the exit status (2 for
 * a bad option, 1 for bad data or a failed run), exactly one line on standard error that names
 * the file (and line) or the option, no stack trace, and nothing written or left behind.
 */
class BadInputTest {
    /** 20 samples of 2 features, y = x0 + 2 x1: the good data every case starts from. */
    static final String X = rows(i -> (i % 5) + " " + (i % 3));
    static final String Y = rows(i -> String.valueOf((i % 5) + 2 * (i % 3)));
    static final String LABELS = rows(i -> String.valueOf(i % 2));
    static final String CSV = "a,b,y\n" + rows(i -> (i % 5) + "," + (i % 3) + "," + (i % 2));
    static final String SVM = rows(i -> (i % 2) + " 1:" + (i % 5) + " 2:" + (i % 3));
    static final String MODEL = """
        {"format": "paratrain-model", "version": 1, "model": "linear", "features": 2, "classes": 0,
         "intercept": false, "params": [1.0, 2.0]}
        """;
    static final String BIG = "1".repeat(5 << 20);

    record Case(String name, int status, List<String> mentions, Map<String, byte[]> files, List<String> args) {
        @Override
        public String toString() {
            return name;
        }

        /** The same case with {@code name} holding {@code content}. */
        Case file(String file, String content) {
            return file(file, content.getBytes(StandardCharsets.UTF_8));
        }

        Case file(String file, byte[] content) {
            Map<String, byte[]> f = new LinkedHashMap<>(files);
            f.put(file, content);
            return new Case(name, status, mentions, f, args);
        }
    }

    /** A case: {@code mentions} is what stderr must name, "|"-separated; "@NAME" in args is a file of the directory. */
    static Case bad(String name, int status, String mentions, String... args) {
        return new Case(name, status, List.of(mentions.split("\\|")), Map.of(), List.of(args));
    }

    static String[] train(String... extra) {
        return with(new String[] {"train", "--x", "@X.in", "--y", "@y.in", "--epochs", "3", "--lr", "0.01"}, extra);
    }

    static String[] evaluate(String... extra) {
        return with(new String[] {"evaluate", "--model-file", "@model.json", "--x", "@X.in", "--y", "@y.in"}, extra);
    }

    /** {@code base} (a command and options with values) with {@code extra} added, replacing options of the same name. */
    static String[] with(String[] base, String... extra) {
        List<String> given = Arrays.asList(extra);
        List<String> kept = new ArrayList<>(List.of(base[0]));
        for (int i = 1; i < base.length; i += 2) {
            if (!given.contains(base[i])) {
                kept.add(base[i]);
                kept.add(base[i + 1]);
            }
        }
        kept.addAll(given);
        return kept.toArray(String[]::new);
    }

    static Stream<Case> cases() {
        List<Case> c = new ArrayList<>();
        options(c);
        paperFiles(c);
        tableFiles(c);
        idxFiles(c);
        modelFiles(c);
        runs(c);
        return c.stream();
    }

    /** Options with values that cannot work, or that would be ignored. */
    static void options(List<Case> c) {
        c.add(bad("nodes -1", 2, "--nodes", train("--nodes", "-1")));
        c.add(bad("nodes 0", 2, "--nodes", train("--nodes", "0")));
        c.add(bad("nodes 4097", 2, "--nodes", train("--nodes", "4097")));
        c.add(bad("nodes not a number", 2, "--nodes", train("--nodes", "four")));
        c.add(bad("lr of 5 MB", 2, "--lr", train("--lr", BIG)));
        c.add(bad("lr of 5 MB, not a number", 2, "--lr|xxxx...", train("--lr", "x".repeat(5 << 20))));
        c.add(bad("model of 5 MB", 2, "--model|mmmm...", train("--model", "m".repeat(5 << 20))));
        c.add(bad("option of 5 MB", 2, "--zzzz", train("--" + "z".repeat(5 << 20))));
        c.add(bad("lr NaN", 2, "--lr", train("--lr", "NaN")));
        c.add(bad("lr with a line break", 2, "--lr", train("--lr", "0.1\nrm -rf /")));
        c.add(bad("epochs 0", 2, "--epochs", train("--epochs", "0")));
        c.add(bad("epochs too many", 2, "--epochs", train("--epochs", "20000000")));
        c.add(bad("block size -1", 2, "--block-size", train("--block-size", "-1")));
        c.add(bad("batch size -5", 2, "--batch-size", train("--batch-size", "-5")));
        c.add(bad("batch size beyond the samples", 2, "--batch-size", train("--batch-size", "1000")));
        c.add(bad("classes -1", 2, "--classes", train("--model", "softmax", "--classes", "-1")));
        c.add(bad("classes 1", 2, "--classes", train("--model", "softmax", "--classes", "1")));
        c.add(bad("allreduce native on local", 2, "--allreduce native|--backend mpi", train("--allreduce", "native")));
        c.add(bad("allreduce unknown", 2, "--allreduce", train("--allreduce", "butterfly")));
        c.add(bad("schedule step every 0", 2, "--schedule", train("--schedule", "step:0:0.5")));
        c.add(bad("schedule step factor 2", 2, "--schedule", train("--schedule", "step:10:2")));
        c.add(bad("schedule step not numbers", 2, "--schedule", train("--schedule", "step:ten:half")));
        c.add(bad("schedule step huge interval", 2, "--schedule", train("--schedule", "step:99999999999999999999:0.5")));
        c.add(bad("schedule unknown", 2, "--schedule", train("--schedule", "linear")));
        c.add(bad("test fraction 1.5", 2, "--test-fraction", train("--test-fraction", "1.5")));
        c.add(bad("test fraction and test data", 2, "--test-fraction|--test-data", train("--test-fraction", "0.5",
            "--test-data", "@X.in", "--test-labels", "@y.in")));
        c.add(bad("loss reduction median", 2, "--loss-reduction", train("--loss-reduction", "median")));
        c.add(bad("optimizer sgd", 2, "--optimizer", train("--optimizer", "sgd")));
        c.add(bad("model forest", 2, "--model", train("--model", "forest")));
        c.add(bad("momentum 1.5", 2, "--momentum", train("--optimizer", "momentum", "--momentum", "1.5")));
        c.add(bad("layers 0", 2, "--layers", train("--model", "mlp", "--layers", "0")));
        c.add(bad("format xyz", 2, "--format", train("--format", "xyz")));
        c.add(bad("backend gpu", 2, "--backend", train("--backend", "gpu")));
        c.add(bad("unknown option", 2, "--epoch", train("--epoch", "3")));
        c.add(bad("missing required option", 2, "--data", "train", "--y", "@y.in"));
        c.add(bad("layers without an MLP", 2, "--layers", train("--layers", "5")));
        c.add(bad("activation without an MLP", 2, "--activation", train("--model", "logistic", "--y", "@labels.in",
            "--activation", "tanh")));
        c.add(bad("momentum with gd", 2, "--momentum", train("--momentum", "0.5")));
        c.add(bad("momentum with adam", 2, "--momentum", train("--optimizer", "adam", "--momentum", "0.5")));
        c.add(bad("classes with linear", 2, "--classes", train("--classes", "3")));
        c.add(bad("intercept with an MLP", 2, "--intercept", train("--model", "mlp", "--y", "@labels.in",
            "--intercept")));
        c.add(bad("test labels without test data", 2, "--test-labels", train("--test-labels", "@y.in")));
        c.add(bad("seed without effect", 2, "--seed", train("--seed", "3")));
        c.add(bad("warm-up beyond the run", 2, "--warmup-steps", train("--warmup-steps", "500")));
        c.add(bad("warm-up beyond a mini-batch run", 2, "--warmup-steps", train("--batch-size", "5",
            "--warmup-steps", "13")));
        c.add(bad("hostfile with local", 2, "--hostfile", train("--hostfile", "@X.in")));
        c.add(bad("hostfile is a directory", 2, "--hostfile|directory", train("--backend", "mpi", "--nodes", "2",
            "--hostfile", "@sub")));
        c.add(bad("hostfile missing", 2, "--hostfile|no such file", "scale", "--samples", "10", "--features", "1",
            "--backend", "mpi", "--hostfile", "@nohosts", "--out", "@scale"));
        c.add(bad("label column with paper", 2, "--label", train("--label", "y")));
        c.add(bad("labels file with csv", 2, "--labels", "train", "--format", "csv", "--x", "@d.csv",
            "--labels", "@y.in"));
        c.add(bad("out is a file", 2, "--out|not a directory", train("--out", "@X.in")));
        c.add(bad("out under a file", 2, "--out|not a directory", train("--out", "@X.in/run")));
        c.add(bad("out read-only", 2, "--out|permission denied", train("--out", "@READONLY/run")));
        c.add(bad("predict out is a directory", 2, "--out|directory", "predict", "--model-file", "@model.json",
            "--x", "@X.in", "--out", "@sub"));
        c.add(bad("predict labels with paper", 2, "--labels", "predict", "--model-file", "@model.json",
            "--x", "@X.in", "--y", "@y.in", "--out", "@p.txt"));
        c.add(bad("evaluate label column with paper", 2, "--label", evaluate("--label", "y")));
        c.add(bad("generate samples 0", 2, "--samples", "generate", "regression", "--samples", "0", "--features", "1",
            "--out", "@gen"));
        c.add(bad("generate out is a file", 2, "--out", "generate", "regression", "--samples", "5", "--features", "1",
            "--out", "@X.in"));
        c.add(bad("generate bias inf", 2, "--bias", "generate", "regression", "--samples", "5", "--features", "1",
            "--bias", "inf", "--out", "@gen"));
        c.add(bad("plan nodes-max 0", 2, "--nodes-max", "plan", "--samples", "10", "--features", "1", "--nodes-max",
            "0", "--out", "@plan"));
        c.add(bad("plan out is a file", 2, "--out", "plan", "--samples", "10", "--features", "1", "--out", "@X.in"));
        c.add(bad("scale nodes 0", 2, "--nodes", "scale", "--samples", "10", "--features", "1", "--nodes", "0",
            "--out", "@scale"));
        c.add(bad("scale hostfile with local", 2, "--hostfile", "scale", "--samples", "10", "--features", "1",
            "--hostfile", "@X.in", "--out", "@scale"));
        c.add(bad("paper repeats 0", 2, "--repeats", "paper", "--repeats", "0", "--out", "@paper"));
        c.add(bad("bench collectives rounds 0", 2, "--rounds", "bench", "collectives", "--rounds", "0", "--out",
            "@bench"));
        c.add(bad("bench kernels shape", 2, "--shapes", "bench", "kernels", "--shapes", "3x0"));
        c.add(bad("bench kernels repeats 0", 2, "--repeats", "bench", "kernels", "--repeats", "0"));
        c.add(bad("paper out under a file", 2, "--out|not a directory", "paper", "--out", "@X.in/paper"));
    }

    /** The paper's X.in and y.in, broken in the ways files break. */
    static void paperFiles(List<Case> c) {
        c.add(bad("not a number", 1, "X.in:3", train()).file("X.in", "1 2\n3 4\nabc 5\n" + tail(3)));
        c.add(bad("ragged row", 1, "X.in:2", train()).file("X.in", "1 2\n3\n" + tail(2)));
        c.add(bad("NaN", 1, "X.in:2", train()).file("X.in", "1 2\nNaN 4\n" + tail(2)));
        c.add(bad("inf", 1, "X.in:2", train()).file("X.in", "1 2\n3 -inf\n" + tail(2)));
        c.add(bad("overflowing number", 1, "X.in:1", train()).file("X.in", "1e999 2\n" + tail(1)));
        c.add(bad("blank line inside", 1, "X.in:2", train()).file("X.in", "1 2\n\n3 4\n" + tail(2)));
        c.add(bad("empty file", 1, "X.in", train()).file("X.in", ""));
        c.add(bad("only blank lines", 1, "X.in", train()).file("X.in", "\n \n\t\n"));
        c.add(bad("invalid UTF-8", 1, "X.in:2", train()).file("X.in", concat("1 2\n".getBytes(StandardCharsets.UTF_8),
            new byte[] {(byte) 0xff, (byte) 0xc3, '\n'})));
        c.add(bad("UTF-16", 1, "X.in:1|UTF-16", train()).file("X.in", concat(new byte[] {(byte) 0xff, (byte) 0xfe},
            "1 2\n".getBytes(StandardCharsets.UTF_16LE))));
        c.add(bad("binary file", 1, "X.in:1", train()).file("X.in", new byte[] {0, 1, 2, (byte) 0x80, 10}));
        c.add(bad("directory as a file", 1, "sub|directory", "train", "--x", "@sub", "--y", "@y.in"));
        c.add(bad("missing file", 1, "nope.in|no such file", "train", "--x", "@nope.in", "--y", "@y.in"));
        c.add(bad("missing test file", 1, "nope.in|no such file", train("--test-data", "@X.in", "--test-labels",
            "@nope.in")));
        c.add(bad("fewer targets", 1, "y.in", train()).file("y.in", "1\n2\n"));
        c.add(bad("two targets a line", 1, "y.in:1", train()).file("y.in", "1 2\n" + Y));
        c.add(bad("value of 5 MB", 1, "X.in:1", train()).file("X.in", BIG + "x 2\n" + tail(1)));
        c.add(bad("float suffix", 1, "X.in:1", train()).file("X.in", "2f 1\n" + tail(1)));
        c.add(bad("hexadecimal", 1, "X.in:1", train()).file("X.in", "0x1p3 1\n" + tail(1)));
        c.add(bad("commas in the paper format", 1, "X.in:1|CSV", train()).file("X.in", "1,2\n" + tail(1)));
        c.add(bad("test data of other features", 1, "X3.in|features", train("--test-data", "@X3.in",
            "--test-labels", "@y.in")).file("X3.in", rows(i -> "1 2 3")));
        c.add(bad("stray label makes a million classes", 1, "labels.in|--classes", train("--model", "softmax", "--y",
            "@labels.in")).file("labels.in", "0\n1\n1000000\n" + rows(i -> "0").substring(6)));
        c.add(bad("predict on a ragged file", 1, "X.in:2", "predict", "--model-file", "@model.json", "--x", "@X.in",
            "--out", "@p.txt").file("X.in", "1 2\n3\n"));
        c.add(bad("label not a class", 1, "labels.in", train("--model", "logistic", "--y", "@labels.in"))
            .file("labels.in", "0\n1\n3\n" + rows(i -> "0").substring(6)));
    }

    /** CSV and LibSVM files. */
    static void tableFiles(List<Case> c) {
        String[] csv = {"train", "--format", "csv", "--x", "@d.csv", "--epochs", "3", "--lr", "0.01"};
        String[] svm = {"train", "--format", "libsvm", "--x", "@d.svm", "--epochs", "3", "--lr", "0.01"};
        c.add(bad("csv ragged", 1, "d.csv:3", csv).file("d.csv", "a,b,y\n1,2,0\n3,4\n"));
        c.add(bad("csv cell of 5 MB", 1, "d.csv:2", csv).file("d.csv", "a,b,y\n1," + BIG + "z,0\n"));
        c.add(bad("csv header of one column", 1, "d.csv:1", csv).file("d.csv", "a;b;y\n1;2;0\n"));
        c.add(bad("csv header only", 1, "d.csv", csv).file("d.csv", "a,b,y\n"));
        c.add(bad("csv header missing", 1, "d.csv:1|header", csv).file("d.csv", "1,2,0\n3,4,1\n"));
        c.add(bad("csv empty", 1, "d.csv", csv).file("d.csv", ""));
        c.add(bad("csv unknown label column", 1, "d.csv|zzz", concat(csv, "--label", "zzz")));
        c.add(bad("csv NaN", 1, "d.csv:2", csv).file("d.csv", "a,b,y\nnan,2,0\n"));
        c.add(bad("csv empty cell", 1, "d.csv:2", csv).file("d.csv", "a,b,y\n,2,0\n"));
        c.add(bad("csv invalid UTF-8", 1, "d.csv:2", csv).file("d.csv", concat("a,b,y\n".getBytes(
            StandardCharsets.UTF_8), new byte[] {'1', ',', (byte) 0xe9, ',', '0', '\n'})));
        c.add(bad("libsvm repeated index", 1, "d.svm:2|index 3", svm).file("d.svm", "1 1:2\n0 3:1 2:4 3:5\n"));
        c.add(bad("libsvm index 0", 1, "d.svm:1", svm).file("d.svm", "1 0:2\n"));
        c.add(bad("libsvm index past int", 1, "d.svm:2|too large", svm).file("d.svm", "1 1:2\n0 99999999999:1\n"));
        c.add(bad("libsvm n x d overflows", 1, "d.svm", svm).file("d.svm", "1 2147483647:2\n0 1:1\n"));
        c.add(bad("libsvm beyond the heap", 1, "d.svm|PARATRAIN_JAVA_OPTS=-Xmx", svm).file("d.svm",
            "1 1000000000:2\n"));
        c.add(bad("libsvm label NaN", 1, "d.svm:1", svm).file("d.svm", "NaN 1:2\n"));
        c.add(bad("libsvm not index:value", 1, "d.svm:1", svm).file("d.svm", "1 abc\n"));
        c.add(bad("libsvm empty", 1, "d.svm", svm).file("d.svm", "\n\n"));
    }

    /** IDX images and labels with headers that lie. */
    static void idxFiles(List<Case> c) {
        String[] idx = {"train", "--format", "idx", "--x", "@img", "--y", "@lab", "--model", "softmax", "--classes",
            "10", "--epochs", "2", "--lr", "0.01"};
        c.add(bad("idx dimension 0", 1, "img", idx).file("img", idx(new int[] {4, 0, 2}, new byte[0])));
        c.add(bad("idx negative dimensions", 1, "img", idx).file("img", idx(new int[] {4, -1, -2}, new byte[8])));
        c.add(bad("idx dimensions overflow", 1, "img", idx).file("img", idx(new int[] {65536, 65536, 65536, 65536},
            new byte[0])));
        c.add(bad("idx trailing bytes", 1, "img|bytes after", idx).file("img", idx(new int[] {4, 2, 2},
            new byte[20])));
        c.add(bad("idx truncated", 1, "img|ends before", idx).file("img", idx(new int[] {4, 2, 2}, new byte[10])));
        c.add(bad("idx truncated gzip", 1, "img", idx).file("img", Arrays.copyOf(gzip(idx(new int[] {4, 2, 2},
            new byte[16])), 20)));
        c.add(bad("idx header too short", 1, "img", idx).file("img", new byte[] {0, 0}));
        c.add(bad("idx wrong magic", 1, "img|magic", idx).file("img", "not an idx file"));
        c.add(bad("idx count mismatch", 1, "img|lab", idx).file("lab", idx(new int[] {3}, new byte[3])));
        c.add(bad("idx labels of 2 dimensions", 1, "lab", idx).file("lab", idx(new int[] {4, 1}, new byte[4])));
    }

    /** model.json damaged or edited by hand. */
    static void modelFiles(List<Case> c) {
        c.add(bad("model param NaN", 1, "model.json|params", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[\"NaN\", 2.0]")));
        c.add(bad("model param abc", 1, "model.json|params", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[\"abc\", 2.0]")));
        c.add(bad("model kind unknown", 1, "model.json|forest", evaluate()).file("model.json",
            MODEL.replace("\"linear\"", "\"forest\"")));
        c.add(bad("model field missing", 1, "model.json|features", evaluate()).file("model.json",
            MODEL.replace("\"features\": 2,", "")));
        c.add(bad("model malformed JSON", 1, "model.json:", evaluate()).file("model.json", MODEL.substring(0, 60)));
        c.add(bad("model parameter count", 1, "model.json", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[1.0, 2.0, 3.0]")));
        c.add(bad("model empty", 1, "model.json", evaluate()).file("model.json", ""));
        c.add(bad("model not a model", 1, "model.json", evaluate()).file("model.json", "[1, 2, 3]"));
        c.add(bad("model is a directory", 1, "sub|directory", "evaluate", "--model-file", "@sub", "--x", "@X.in",
            "--y", "@y.in"));
        c.add(bad("evaluate wrong features", 1, "X3.in|features", evaluate("--x", "@X3.in")).file("X3.in",
            rows(i -> "1 2 3")));
        c.add(bad("evaluate labels out of range", 1, "labels.in", evaluate("--y", "@labels.in")).file("model.json",
            MODEL.replace("\"linear\"", "\"logistic\"").replace("\"classes\": 0", "\"classes\": 2"))
            .file("labels.in", "0\n1\n7\n" + rows(i -> "0").substring(6)));
        c.add(bad("plan machine file malformed", 1, "m.json", "plan", "--samples", "10", "--features", "1",
            "--machine", "@m.json", "--out", "@plan").file("m.json", "{\"alpha_seconds\": "));
    }

    /** Runs that cannot work: divergence, memory. */
    static void runs(List<Case> c) {
        c.add(bad("adam oscillating at lr 1e6", 1, "diverged|--lr", train("--optimizer", "adam", "--lr", "1e6",
            "--loss-reduction", "mean", "--epochs", "100")));
        c.add(bad("blow-up shorter than the patience", 1, "diverged|--lr", train("--lr", "1e3", "--epochs", "3")));
        c.add(bad("network too large for an array", 2, "--layers", train("--model", "mlp-regression", "--layers",
            "100000,100000")));
        c.add(bad("exchange table too large", 2, "--block-size", train("--model", "mlp-regression", "--layers",
            "20000,20000")));
        c.add(bad("training beyond the heap", 1, "PARATRAIN_JAVA_OPTS=-Xmx", train("--model", "mlp-regression",
            "--layers", "20000,20000", "--block-size", "20")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isOneLineNamingTheCauseAndWritesNothing(Case c, @TempDir Path dir) throws IOException {
        write(dir, c);
        Map<String, String> before = snapshot(dir);
        String[] args = c.args().stream().map(a -> a.startsWith("@") ? resolve(dir, a.substring(1)) : a)
            .toArray(String[]::new);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        String e = err.toString();
        assertEquals(c.status(), status, e);
        assertEquals(1, e.lines().count(), "one line: " + e);
        assertTrue(e.endsWith("\n") && e.startsWith("paratrain"), e);
        assertTrue(e.length() < 1500, "no value echoed whole: " + e.length() + " characters");
        for (String m : c.mentions()) {
            assertTrue(e.contains(m), "names " + m + ": " + e);
        }
        for (String noise : List.of("Exception", "at org.", "at java.", "REDACTED", "internal error")) {
            assertFalse(e.contains(noise), noise + ": " + e);
        }
        assertEquals(before, snapshot(dir), "nothing written");
    }

    static void write(Path dir, Case c) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("X.in", X.getBytes(StandardCharsets.UTF_8));
        files.put("y.in", Y.getBytes(StandardCharsets.UTF_8));
        files.put("labels.in", LABELS.getBytes(StandardCharsets.UTF_8));
        files.put("d.csv", CSV.getBytes(StandardCharsets.UTF_8));
        files.put("d.svm", SVM.getBytes(StandardCharsets.UTF_8));
        files.put("img", idx(new int[] {4, 2, 2}, new byte[16]));
        files.put("lab", idx(new int[] {4}, new byte[] {0, 1, 2, 3}));
        files.put("model.json", MODEL.getBytes(StandardCharsets.UTF_8));
        files.putAll(c.files());
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Files.write(dir.resolve(f.getKey()), f.getValue());
        }
        Files.createDirectories(dir.resolve("sub"));
        Path ro = Files.createDirectories(dir.resolve("READONLY"));
        ro.toFile().setWritable(false, false);
    }

    /** {@code @READONLY} is a directory nobody may write in; as root (who may), a sysfs directory. */
    static String resolve(Path dir, String name) {
        if (name.startsWith("READONLY") && "root".equals(System.getProperty("user.name"))) {
            return Path.of("/sys", name.substring("READONLY".length())).toString();
        }
        return dir.resolve(name).toString();
    }

    /** Every path under {@code dir} with its size and modification time. */
    static Map<String, String> snapshot(Path dir) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                // A directory's time changes when a file is made and removed in it (the check that --out
                // may be written does that); what counts is the files.
                m.put(dir.relativize(p).toString(), Files.isDirectory(p) ? "directory"
                    : Files.size(p) + "@" + Files.getLastModifiedTime(p));
            }
        }
        return m;
    }

    static String rows(java.util.function.IntFunction<String> row) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            sb.append(row.apply(i)).append('\n');
        }
        return sb.toString();
    }

    /** The good X.in from row {@code from} on, so a broken file keeps 20 rows. */
    static String tail(int from) {
        return X.lines().skip(from).map(l -> l + "\n").reduce("", String::concat);
    }

    static byte[] idx(int[] dims, byte[] values) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0x00000800 | dims.length);
            for (int d : dims) {
                out.writeInt(d);
            }
            out.write(values);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] gzip(byte[] data) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
                out.write(data);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String[] concat(String[] a, String... b) {
        String[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
