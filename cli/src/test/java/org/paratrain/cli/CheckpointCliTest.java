package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpoints, resume, restarts and hang detection from the command line, with real faults:
 * a training process killed with SIGKILL part-way, a rank that stops answering. The
 * reference for every resumed or restarted run is the same run, uninterrupted.
 */
class CheckpointCliTest {
    @TempDir
    static Path dir;
    static Path x;
    static Path y;
    static final ObjectMapper JSON = new ObjectMapper();
    /** Slow enough (a few ms an epoch) to be killed part-way, small enough for a test. */
    static final List<String> RUN = List.of("--epochs", "600", "--lr", "1e-7", "--intercept", "--block-size", "1000");

    @BeforeAll
    static void data() {
        assertEquals(0, CliTest.run("generate", "regression", "--samples", "100000", "--features", "20", "--noise",
            "1", "--out", dir.resolve("data").toString()).status());
        x = dir.resolve("data/X.in");
        y = dir.resolve("data/y.in");
    }

    static List<String> train(String... more) {
        List<String> a = new ArrayList<>(List.of("train", "--x", x.toString(), "--y", y.toString()));
        a.addAll(RUN);
        a.addAll(List.of(more));
        return a;
    }

    static CliTest.Run run(List<String> args) {
        return CliTest.run(args.toArray(String[]::new));
    }

    static JsonNode result(Path out) throws IOException {
        return JSON.readTree(out.resolve("result.json").toFile());
    }

    static List<String> losses(Path out) throws IOException {
        return Files.readAllLines(out.resolve("history.csv")).stream().map(l -> l.split(",")[2]).toList();
    }

    static void assertSameRun(Path expected, Path got) throws IOException {
        assertEquals(result(expected).get("params"), result(got).get("params"));
        assertEquals(result(expected).get("final_loss"), result(got).get("final_loss"));
        assertEquals(losses(expected), losses(got));
    }

    static Path reference() throws IOException {
        Path out = dir.resolve("reference");
        if (!Files.exists(out.resolve("result.json"))) {
            assertEquals(0, run(train("--nodes", "1", "--out", out.toString())).status());
        }
        return out;
    }

    /** Starts {@code paratrain train ...} as a process of its own, as a user would. */
    static Process start(List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    static long checkpoints(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".ckpt")).count();
        }
    }

    /** SIGKILL part-way through, then --resume at another node count: the bits of the uninterrupted run. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aKilledRunResumesAtAnotherNodeCountWithTheSameBits(int resumeNodes) throws Exception {
        Path ck = dir.resolve("ck-kill-" + resumeNodes);
        Path out = dir.resolve("killed-" + resumeNodes);
        Process p = start(train("--nodes", "2", "--checkpoint-dir", ck.toString(), "--checkpoint-every", "20",
            "--out", out.toString()), dir.resolve("killed-" + resumeNodes + ".log"));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (checkpoints(ck) < 2 && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive(), "the run ended before it could be killed: "
                + Files.readString(dir.resolve("killed-" + resumeNodes + ".log")));
        } finally {
            p.destroyForcibly();      // SIGKILL: no shutdown hook, no goodbye
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertFalse(Files.exists(out.resolve("result.json")), "a killed run wrote a result");
        CliTest.Run r = run(train("--nodes", Integer.toString(resumeNodes), "--resume", ck.toString(), "--out",
            out.toString()));
        assertEquals(0, r.status(), r.err());
        assertSameRun(reference(), out);
    }

    /** A failed rank, then two restarts from the newest checkpoint, the second on one rank fewer. */
    @Test
    void restartsFromTheNewestCheckpointAndRecordsThem() throws IOException {
        Path ck = dir.resolve("ck-restart");
        Path out = dir.resolve("restarted");
        CliTest.Run r = run(train("--nodes", "3", "--checkpoint-dir", ck.toString(), "--checkpoint-every", "50",
            "--inject-failure", "2:130", "--max-restarts", "1", "--out", out.toString()));
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains("rank 2 failed") && r.err().contains("restarting from epoch 100 on 3 nodes"),
            r.err());
        JsonNode restarts = result(out).get("restarts");
        assertEquals(1, restarts.size(), restarts.toString());
        assertEquals("epoch 100", restarts.get(0).get("resumed_from").asText());
        assertSameRun(reference(), out);
    }

    /** A rank that stops answering is named, within about the timeout, and the history so far is kept. */
    @Test
    void aHungRankIsNamedAfterTheTimeout() throws IOException {
        Path out = dir.resolve("hung");
        long start = System.nanoTime();
        CliTest.Run r = run(train("--nodes", "3", "--comm-timeout", "1", "--inject-failure", "1:5:hang", "--out",
            out.toString()));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("rank 1 stopped answering") && r.err().contains("epoch 5"), r.err());
        assertTrue(seconds < 15, "took " + seconds + " s");
        Path failed = dir.resolve("hung.failed");
        assertEquals(4 + 1, Files.readAllLines(failed.resolve("history.csv")).size(), "header and 4 epochs");
        assertTrue(r.err().contains(failed.resolve("history.csv").toString()), r.err());
        assertFalse(Files.exists(out), "--out is not made for a run that failed");
    }

    /** A checkpoint of other settings or other data is refused, naming every difference, and nothing is written. */
    @Test
    void aCheckpointOfAnotherRunIsRefused() throws IOException {
        Path ck = dir.resolve("ck-other");
        CliTest.Run made = run(List.of("train", "--x", x.toString(), "--y", y.toString(), "--epochs", "3", "--lr",
            "1e-7", "--checkpoint-dir", ck.toString(), "--checkpoint-every", "1"));
        assertEquals(0, made.status(), made.err());
        Path out = dir.resolve("refused");
        CliTest.Run r = run(List.of("train", "--x", x.toString(), "--y", y.toString(), "--epochs", "3", "--lr",
            "1e-6", "--resume", ck.toString(), "--out", out.toString()));
        assertEquals(2, r.status());
        assertTrue(r.err().contains("learning_rate: was 1.0E-7, now 1.0E-6"), r.err());
        Files.writeString(dir.resolve("y2.in"), Files.readString(y).replaceFirst("\n", "0\n"));
        r = run(List.of("train", "--x", x.toString(), "--y", dir.resolve("y2.in").toString(), "--epochs", "3",
            "--lr", "1e-7", "--resume", ck.toString(), "--out", out.toString()));
        assertEquals(2, r.status());
        assertTrue(r.err().contains("y2.in is not the file the checkpoint was made from"), r.err());
        assertFalse(Files.exists(out));
    }
}
