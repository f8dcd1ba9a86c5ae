package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a new user sees when the MPI launcher cannot start the job (an option it does not know, a
 * host it cannot resolve, a launcher that is no launcher): one line of paratrain's own, naming
 * what was given and the launcher's reason, and none of the launcher's lines. And what
 * result.json records of a restart after a rank was killed. Real commands, on Open MPI and,
 * where installed, MPICH; skipped without mpirun unless PARATRAIN_REQUIRE_MPI is set.
 */
class MpiLaunchErrorsTest {
    @TempDir
    static Path data;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @BeforeAll
    static void needMpi() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        StringBuilder x = new StringBuilder();
        StringBuilder y = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            x.append(i % 7).append(' ').append(i % 5).append('\n');
            y.append(i % 7 + 2 * (i % 5)).append('\n');
        }
        Files.writeString(data.resolve("X.in"), x);
        Files.writeString(data.resolve("y.in"), y);
    }

    @AfterEach
    void killEverythingStarted() throws InterruptedException {
        for (Process p : started) {
            Set<ProcessHandle> all = new LinkedHashSet<>(p.descendants().toList());
            all.forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The launchers to try: the default one, and MPICH's where it is installed. */
    static List<String> launchers() {
        List<String> l = new ArrayList<>(List.of("mpirun"));
        if (Files.isExecutable(Path.of("/usr/bin/mpiexec.mpich"))
            && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12"))) {
            l.add("mpiexec.mpich");
        }
        return l;
    }

    record Proc(int status, String err) { }

    private Process start(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"),
            Main.class.getName(), "train", "--backend", "mpi", "--nodes", "2", "--x", data.resolve("X.in").toString(),
            "--y", data.resolve("y.in").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(dir.resolve("front.err").toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        started.add(p);
        return p;
    }

    private Proc run(Map<String, String> env, String... args) throws Exception {
        Process p = start(env, args);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the command did not end within 60 s: " + err());
        return new Proc(p.exitValue(), err());
    }

    private String err() throws IOException {
        return Files.readString(dir.resolve("front.err"), StandardCharsets.UTF_8);
    }

    /** Exit status 1 and exactly one line on stderr, paratrain's, holding every one of {@code mentions}. */
    private static void oneLine(Proc p, String... mentions) {
        assertEquals(1, p.status(), p.err());
        assertEquals(1, p.err().lines().count(), p.err());
        assertTrue(p.err().startsWith("paratrain train: error: "), p.err());
        for (String m : mentions) {
            assertTrue(p.err().contains(m), m + ": " + p.err());
        }
        assertFalse(p.err().contains("Exception") || p.err().contains("\tat "), p.err());
    }

    @ParameterizedTest
    @MethodSource("launchers")
    void anOptionTheLauncherDoesNotKnowIsOneLine(String launcher) throws Exception {
        Proc p = run(Map.of("PARATRAIN_MPIRUN", launcher), "--mpirun-args", "--bogus-option");
        // Open MPI: "mpirun: Error: unknown option "--bogus-option""; hydra: "unrecognized argument bogus-option"
        oneLine(p, "--mpirun-args '--bogus-option': ", "could not start the job: ", "bogus-option");
        assertTrue(p.err().contains("unknown option") || p.err().contains("unrecognized argument"), p.err());
    }

    /** MPICH's hydra waits forever for the process ssh could not start; paratrain ends it. */
    @ParameterizedTest
    @MethodSource("launchers")
    void aHostThatCannotBeResolvedIsOneLine(String launcher) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/ssh")), "ssh is not installed");
        Path hosts = dir.resolve("hosts");
        Files.writeString(hosts, "no-such-host.invalid\n");
        long t0 = System.nanoTime();
        Proc p = run(Map.of("PARATRAIN_MPIRUN", launcher), "--hostfile", hosts.toString());
        oneLine(p, "--hostfile " + hosts + ": ", "Could not resolve hostname no-such-host");
        double took = (System.nanoTime() - t0) / 1e9;
        assertTrue(took < 30, "took " + took + " s");
    }

    @Test
    void aLauncherThatFailsSilentlyIsOneLine() throws Exception {
        oneLine(run(Map.of("PARATRAIN_MPIRUN", "/bin/false")), "PARATRAIN_MPIRUN=/bin/false: ",
            "false ended with status 1 before starting any rank");
    }

    @Test
    void aLauncherThatFailsGivesItsFirstLine() throws Exception {
        Path script = dir.resolve("launcher.sh");
        Files.writeString(script, "#!/bin/sh\necho 'launcher: no licence for this cluster' >&2\n"
            + "echo 'second line nobody needs' >&2\nexit 1\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        oneLine(run(Map.of("PARATRAIN_MPIRUN", script.toString())), "PARATRAIN_MPIRUN=" + script + ": ",
            "launcher.sh could not start the job: launcher: no licence for this cluster");
    }

    /**
     * Rank 1, slowed until it is killed, dies by SIGKILL; the restart's entry in result.json
     * names the rank, its host and pid, the signal and the epoch, with the front's line as reason,
     * and nothing but paratrain's lines reached stderr (no MPI noise after the fault).
     */
    @Test
    void aRestartRecordsTheRankItsSignalAndEpoch() throws Exception {
        Path ck = dir.resolve("ck");
        Path out = dir.resolve("out");
        Process front = start(Map.of(), "--epochs", "400", "--lr", "1e-5", "--checkpoint-dir", ck.toString(), "--checkpoint-every",
            "20", "--max-restarts", "1", "--inject-failure", "1:1:slow=200", "--out", out.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (checkpoints(ck) < 1 && front.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(front.isAlive(), "the run ended before a rank could be killed: " + err());
        String before = err();
        ProcessHandle rank = front.descendants().filter(h -> rankOf(h) == 1).findFirst()
            .orElseThrow(() -> new AssertionError("no rank 1 found: " + before));
        rank.destroyForcibly();
        assertTrue(front.waitFor(120, TimeUnit.SECONDS), "the restarted run did not end: " + err());
        String err = err();
        assertEquals(0, front.exitValue(), err);
        assertTrue(err.lines().allMatch(l -> l.startsWith("paratrain: ")), err);
        JsonNode restarts = new ObjectMapper().readTree(out.resolve("result.json").toFile()).get("restarts");
        assertEquals(1, restarts.size(), String.valueOf(restarts));
        JsonNode r = restarts.get(0);
        assertEquals(1, r.get("rank").asInt(), r.toString());
        assertEquals(rank.pid(), r.get("pid").asLong(), r.toString());
        assertEquals("SIGKILL", r.get("signal").asText(), r.toString());
        assertTrue(r.get("epoch").asLong() > 0, r.toString());
        assertFalse(r.get("host").isNull(), r.toString());
        assertTrue(r.get("reason").asText().startsWith("rank 1 (pid " + rank.pid() + " on ")
            && r.get("reason").asText().contains("was killed by SIGKILL in epoch " + r.get("epoch").asLong()), r.toString());
        assertTrue(err.contains("paratrain: " + r.get("reason").asText()), err);
    }

    private static long checkpoints(Path ck) throws IOException {
        if (!Files.isDirectory(ck)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(ck)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".ckpt")).count();
        }
    }

    private static int rankOf(ProcessHandle h) {
        return org.paratrain.RankProcesses.rankOf(h);
    }
}
