package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * What {@link BadOptionInputTest} and {@link BadFileInputTest} share with their case lists: the
 * good files every case starts from, the case, the argument builders and the directory checks,
 * in one class so that neither test holds them for the other.
 *
 * <p>Bad input, as a new user gives it: each case runs a command in process on a fresh directory
 * of good files plus the case's bad one, and checks the error contract: the exit status (2 for
 * a bad option, 1 for bad data or a failed run), exactly one line on standard error that names
 * the file (and line) or the option, no stack trace, and nothing written or left behind.
 */
final class BadInput {
    private BadInput() { }

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

    /**
     * Runs {@code c} in process on {@code dir} (its good files and the case's bad one) and checks
     * the contract above: the exit status, one line naming what the case says, no stack trace or
     * internal error, and the directory as it was.
     */
    static void check(Case c, Path dir) throws IOException {
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

    static void write(Path dir, Case c) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("X.in", X.getBytes(StandardCharsets.UTF_8));
        files.put("y.in", Y.getBytes(StandardCharsets.UTF_8));
        files.put("labels.in", LABELS.getBytes(StandardCharsets.UTF_8));
        files.put("big.in", "1.5\n".repeat(20_000).getBytes(StandardCharsets.UTF_8));
        files.put("bigy.in", "3\n".repeat(20_000).getBytes(StandardCharsets.UTF_8));
        files.put("d.csv", CSV.getBytes(StandardCharsets.UTF_8));
        files.put("d.svm", SVM.getBytes(StandardCharsets.UTF_8));
        files.put("img", BadInputFiles.idx(new int[] {4, 2, 2}, new byte[16]));
        files.put("lab", BadInputFiles.idx(new int[] {4}, new byte[] {0, 1, 2, 3}));
        files.put("model.json", MODEL.getBytes(StandardCharsets.UTF_8));
        files.put("X.npy", BadInputArrays.X_NPY);
        files.put("y.npy", BadInputArrays.Y_NPY);
        files.put("d.npz", BadInputArrays.NPZ);
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

    static String[] concat(String[] a, String... b) {
        String[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
