package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command's outputs against the files a user might point them at: links, FIFOs, devices
 * (made here, never the system's own under /dev), the command's own inputs, names taken by
 * directories. Each case checks the exit status, the one line of error, and every file of the
 * working directory afterwards: what may change, changed as it should; everything else,
 * inputs and older results above all, is byte for byte and kind for kind as it was.
 */
class OutputSafetyTest {
    @TempDir
    static Path shared;
    static Path data;
    static Path model;

    @TempDir
    Path dir;

    /**
     * One case: what to make first, the command (with {@code @D} for the data directory,
     * {@code @M} for a trained model.json, {@code @W} for the case's own directory), the
     * status and error it must end with, and the paths (relative to @W) it may change.
     */
    record Case(String name, String setup, List<String> args, int status, String error, Set<String> changes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Case ok(String name, String setup, String args, String... changes) {
        return new Case(name, setup, List.of(args.split(" ")), 0, null, Set.of(changes));
    }

    private static Case refused(String name, String setup, String args, int status, String error) {
        return new Case(name, setup, List.of(args.split(" ")), status, error, Set.of());
    }

    static Stream<Case> cases() {
        String predict = "predict --model-file @M --x @D/X.in --out ";
        String evaluate = "evaluate --model-file @M --x @D/X.in --y @D/y.in --out ";
        String train = "train --x @D/X.in --y @D/y.in --epochs 3 ";
        return Stream.of(
            ok("predict through a link", "file real.txt; link out.txt real.txt", predict + "@W/out.txt", "real.txt"),
            ok("predict through a dangling link", "link out.txt made.txt", predict + "@W/out.txt", "made.txt"),
            ok("predict into a FIFO", "fifo pipe", predict + "@W/pipe"),
            ok("predict into a character device", "null sink", predict + "@W/sink"),
            ok("predict into a link to a character device", "null sink; link out sink", predict + "@W/out"),
            ok("predict to standard output", "", predict + "-"),
            refused("predict into a block device", "disk disk", predict + "@W/disk", 2,
                "--out @W/disk is a block device, expected a file"),
            refused("predict into a directory", "dir d", predict + "@W/d", 2, "--out @W/d is a directory"),
            refused("predict over its features", "", predict + "@D/X.in", 2,
                "--out @D/X.in is one of this command's inputs"),
            refused("predict over its model", "", predict + "@M", 2, "--out @M is one of this command's inputs"),
            refused("predict over its model through a link", "link m.json @M", predict + "@W/m.json", 2,
                "--out @W/m.json is one of this command's inputs (@M)"),
            refused("evaluate over its model", "", evaluate + "@M", 2, "--out @M is one of this command's inputs"),
            refused("evaluate over its labels", "", evaluate + "@D/y.in", 2,
                "--out @D/y.in is one of this command's inputs"),
            ok("evaluate through a link", "file real.json; link m.json real.json", evaluate + "@W/m.json", "real.json"),
            refused("train into an empty --out", "", train + "--out=", 2, "--out is empty; expected a path"),
            refused("train into --out -", "", train + "--out -", 2, "--out - would be standard output"),
            refused("train over its own data", "dir run; file run/model.json", "train --x @W/run/model.json --y @D/y.in --format paper --epochs 3 "
                + "--out @W/run", 2, "--out @W/run would overwrite @W/run/model.json, one of this command's inputs"),
            refused("train where result.json is a directory", "dir run/result.json; file run/history.csv",
                train + "--out @W/run", 2, "@W/run/result.json is a directory, where the result's result.json would go"),
            refused("train where model.json is a link", "file real.json; dir run; link run/model.json ../real.json",
                train + "--out @W/run", 2, "@W/run/model.json is a symbolic link"),
            refused("train under a file", "file f", train + "--out @W/f/run", 2, "@W/f is a file, not a directory"),
            ok("train through a link to a directory", "dir real; link run real", train + "--out @W/run",
                "real/result.json", "real/history.csv", "real/model.json"),
            ok("train into a new nested directory", "", train + "--out @W/a/b/run", "a", "a/b", "a/b/run",
                "a/b/run/result.json", "a/b/run/history.csv", "a/b/run/model.json"),
            refused("train with a file as --checkpoint-dir", "file ck", train + "--checkpoint-dir @W/ck "
                + "--checkpoint-every 1000", 2, "--checkpoint-dir @W/ck is a file, not a directory"),
            refused("train with --epochs -1", "", "train --x @D/X.in --y @D/y.in --epochs -1", 2,
                "--epochs must be at least 1, got -1"),
            refused("generate where y.in is a directory", "dir g/y.in; file g/X.in",
                "generate regression --samples 20 --features 1 --out @W/g", 2,
                "@W/g/y.in is a directory, where the result's y.in would go"));
    }

    @BeforeAll
    static void trainAModel() {
        data = shared.resolve("data");
        model = shared.resolve("run").resolve("model.json");
        assertEquals(0, CliTest.run("generate", "regression", "--samples", "40", "--features", "2",
            "--out", data.toString()).status());
        assertEquals(0, CliTest.run("train", "--x", data.resolve("X.in").toString(), "--y",
            data.resolve("y.in").toString(), "--epochs", "3", "--out", shared.resolve("run").toString()).status());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void outputsNeverClobber(Case c) throws Exception {
        List<Process> readers = setup(c.setup());
        Map<String, String> before = snapshot(dir);
        Map<String, String> inputsBefore = snapshot(shared);
        String[] args = c.args().stream().map(this::expand).toArray(String[]::new);
        CliTest.Run r = CliTest.run(args);
        for (Process p : readers) {
            // A FIFO replaced by a file leaves its reader waiting for a writer: a failure, not a hang.
            boolean ended = p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            p.destroyForcibly();
            assertTrue(ended, "the FIFO's reader saw the output end");
        }
        assertEquals(c.status(), r.status(), r.out() + r.err());
        if (c.error() != null) {
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().contains(expand(c.error())), r.err());
            assertTrue(!r.err().contains("Exception"), r.err());
        }
        assertEquals(inputsBefore, snapshot(shared), "the data and the model are as they were");
        Map<String, String> after = snapshot(dir);
        for (Map.Entry<String, String> e : before.entrySet()) {
            if (!c.changes().contains(e.getKey())) {
                assertEquals(e.getValue(), after.get(e.getKey()), e.getKey() + " is as it was");
            }
        }
        for (String p : after.keySet()) {
            assertTrue(before.containsKey(p) || c.changes().contains(p), "nothing new but what was asked for: " + p);
        }
        for (String p : c.changes()) {
            assertTrue(after.containsKey(p) && after.get(p).startsWith(before.containsKey(p) ? "file" : ""),
                p + " was written: " + after.get(p));
            assertTrue(!after.get(p).equals(before.get(p)), p + " changed");
        }
        if (c.args().get(0).equals("predict") && c.args().contains("-")) {
            assertEquals(40, r.out().lines().count(), "the predictions, one a line, on standard output");
        }
    }

    private String expand(String s) {
        return s.replace("@W", dir.toString()).replace("@D", data.toString()).replace("@M", model.toString());
    }

    /** Makes what a case starts from: files, directories, links, FIFOs (with a reader) and device nodes. */
    private List<Process> setup(String spec) throws Exception {
        List<Process> readers = new ArrayList<>();
        for (String step : spec.split(";")) {
            String[] w = step.strip().split(" ");
            if (w[0].isEmpty()) {
                continue;
            }
            Path p = dir.resolve(w[1]);
            Files.createDirectories(p.getParent());
            switch (w[0]) {
                case "file" -> Files.writeString(p, "older content of " + w[1] + "\n");
                case "dir" -> Files.createDirectories(p);
                case "link" -> Files.createSymbolicLink(p, Path.of(expand(w[2])));
                case "fifo" -> {
                    run("mkfifo", p.toString());
                    readers.add(new ProcessBuilder("cat", p.toString()).redirectOutput(
                        ProcessBuilder.Redirect.DISCARD).start());
                }
                case "null" -> mknod(p, "c", "1", "3");     // a node of our own with /dev/null's numbers
                case "disk" -> mknod(p, "b", "7", "250");   // a loop device's numbers; never opened
                default -> throw new IllegalArgumentException(step);
            }
        }
        return readers;
    }

    private static void mknod(Path p, String type, String major, String minor) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "device nodes need root");
        run("mknod", p.toString(), type, major, minor);
    }

    private static void run(String... cmd) throws Exception {
        assertEquals(0, new ProcessBuilder(cmd).inheritIO().start().waitFor(), String.join(" ", cmd));
    }

    /** Every entry under {@code root}, not following links: its kind and content (or link target, or mode). */
    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(p -> !p.equals(root)).toList()) {
                String rel = root.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    m.put(rel, "link " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    m.put(rel, "dir");
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    m.put(rel, "file " + java.util.HexFormat.of().formatHex(java.security.MessageDigest
                        .getInstance("SHA-256").digest(Files.readAllBytes(p))));
                } else {
                    m.put(rel, "node " + Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) + " "
                        + Files.getAttribute(p, "unix:rdev", LinkOption.NOFOLLOW_LINKS));
                }
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        return m;
    }
}
