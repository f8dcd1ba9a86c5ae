package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.paratrain.cli.Main;
import org.paratrain.data.PaperFormat;
import org.paratrain.cli.experiment.PaperSetup;

/**
 * Faults on the MPI backend, with real processes really stopped, killed and cancelled: the
 * launching {@code paratrain} runs as a process of its own, as a user starts it, and the test
 * signals it or its ranks (found below it, by the rank number in their environment). Every
 * process a test started is continued and killed afterwards, whatever happened. Skipped where
 * mpirun is missing, unless PARATRAIN_REQUIRE_MPI is set.
 */
class MpiFaultTest {
    @TempDir
    static Path data;

    @TempDir
    Path dir;

    private final List<ProcessHandle> started = new ArrayList<>();

    @BeforeAll
    static void needMpi() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        PaperFormat.write(PaperSetup.data(), data);
    }

    @AfterEach
    void killEverythingStarted() {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        for (ProcessHandle h : started) {
            all.addAll(h.descendants().toList());
            all.add(h);
        }
        for (ProcessHandle h : all) {
            signal(h, "CONT");
            h.destroyForcibly();
        }
    }

    /** The launching process, with its output in files; {@code env} adds to its environment. */
    record Front(Process process, Path err) {
        String stderr() throws IOException {
            return Files.readString(err, StandardCharsets.UTF_8);
        }
    }

    private Front start(Map<String, String> env, String... args) throws IOException {
        return start(2, env, args);
    }

    private Front start(int nodes, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"),
            Main.class.getName(), "train", "--backend", "mpi", "--nodes", Integer.toString(nodes), "--x",
            data.resolve("X.in").toString(),
            "--y", data.resolve("y.in").toString(), "--epochs", "10000000"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("front.out").toFile())
            .redirectError(dir.resolve("front.err").toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        started.add(p.toHandle());
        return new Front(p, dir.resolve("front.err"));
    }

    /** Rank {@code rank} of the job below {@code front}, once its progress record shows it is training. */
    private ProcessHandle trainingRank(Front front, int rank) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            for (ProcessHandle h : front.process().descendants().toList()) {
                if (rankOf(h) == rank && epoch(rank) > 0) {
                    return h;
                }
            }
            if (!front.process().isAlive()) {
                fail("the job ended before training: " + front.stderr());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("rank " + rank + " did not start training within 20 s: " + front.stderr());
    }

    private static int rankOf(ProcessHandle h) {
        return org.paratrain.RankProcesses.rankOf(h);
    }

    /** The epoch in rank {@code rank}'s progress record, in the job directory the launching process made. */
    private long epoch(int rank) throws IOException {
        try (Stream<Path> jobs = Files.list(dir)) {
            for (Path job : jobs.filter(p -> p.getFileName().toString().startsWith(".paratrain-job.partial-")).toList()) {
                RankRecord.Snapshot s = RankRecord.read(job, rank);
                if (s != null) {
                    return s.epoch();
                }
            }
        }
        return 0;
    }

    private static void signal(ProcessHandle h, String name) {
        try {
            new ProcessBuilder("kill", "-s", name, Long.toString(h.pid())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("cannot send SIG" + name + " to " + h.pid(), e);
        }
    }

    /** Waits for the launching process to end; returns its status and the seconds since {@code t0}. */
    private static double awaitEnd(Front front, long t0, int seconds) throws Exception {
        if (!front.process().waitFor(seconds, TimeUnit.SECONDS)) {
            fail("the job did not end within " + seconds + " s: " + front.stderr());
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Asserts that no process of {@code tree} runs a few seconds after the job ended (zombies do not count). */
    private static void noneLeft(Set<ProcessHandle> tree, double within) throws InterruptedException {
        long end = System.nanoTime() + (long) (within * 1e9);
        while (tree.stream().anyMatch(JobSupervisor::running) && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        List<Long> left = tree.stream().filter(JobSupervisor::running).map(ProcessHandle::pid).toList();
        assertTrue(left.isEmpty(), "processes left: " + left);
    }

    private static Set<ProcessHandle> tree(Front front) {
        Set<ProcessHandle> t = new LinkedHashSet<>(front.process().descendants().toList());
        t.add(front.process().toHandle());
        return t;
    }

    private static long count(String s, String what) {
        return s.lines().filter(l -> l.contains(what)).count();
    }

    @Test
    void aStoppedRankEndsTheJobWithOneLineNamingIt() throws Exception {
        stopped(start(Map.of(), "--comm-timeout", "3"),
            "rank 0 waited \\d+ s for rank 1 \\(receive, tag \\d+\\) in epoch \\d+; ending the job");
    }

    /**
     * Stops the process of rank 1 (MPI's) once it trains: the job ends within 15 s with one line,
     * "paratrain: " then {@code line} (a pattern), and nothing of it is left.
     */
    private void stopped(Front front, String line) throws Exception {
        ProcessHandle victim = trainingRank(front, 1);
        Set<ProcessHandle> tree = tree(front);
        long t0 = System.nanoTime();
        signal(victim, "STOP");
        double took = awaitEnd(front, t0, 25);
        String err = front.stderr();
        assertEquals(1, front.process().exitValue(), err);
        assertTrue(err.matches("(?s).*paratrain: " + line + ".*"), err);
        assertEquals(1, count(err, "paratrain:"), "one line: " + err);
        assertTrue(took < 15, "took " + took + " s");
        noneLeft(tree, 5);
    }

    @Test
    void aKilledRankIsNamedWithItsSignal() throws Exception {
        killedRankIsNamed(Map.of());
    }

    /**
     * Hydra names one process, at times one its own clean-up killed after rank 1 died: then the
     * line names rank 1 from the order of the deaths ({@link DeathOrder}), without a signal,
     * which hydra did not report for it.
     */
    @Test
    void onMpichAKilledRankIsNamedWithItsSignal() throws Exception {
        assumeMpich();
        killed(start(Map.of("PARATRAIN_MPIRUN", "mpiexec.mpich")),
            pid -> "rank 1 \\(pid " + pid + " on \\S+\\) (was killed by SIGKILL|ended before the others)");
    }

    @Test
    void onMpichAStoppedRankIsNamed() throws Exception {
        assumeMpich();
        Front front = start(Map.of("PARATRAIN_MPIRUN", "mpiexec.mpich"), "--comm-timeout", "3");
        ProcessHandle victim = trainingRank(front, 1);
        Set<ProcessHandle> tree = tree(front);
        signal(victim, "STOP");
        awaitEnd(front, System.nanoTime(), 25);
        String err = front.stderr();
        assertEquals(1, front.process().exitValue(), err);
        assertTrue(err.contains("paratrain: rank 0 waited ") && err.contains(" for rank 1 (receive"), err);
        noneLeft(tree, 5);
    }

    /** A process holding ranks 2 and 3 as threads, killed: the line names both ranks and the process. */
    @Test
    void aKilledProcessOfThreadedRanksNamesItsRanks() throws Exception {
        Front front = start(4, Map.of(), "--ranks-per-process", "2", "--allreduce", "ring");
        killed(front, pid -> "ranks 2-3 \\(process 1, pid " + pid + " on \\S+\\) were killed by SIGKILL");
    }

    /** A stopped process of threaded ranks: the other process's line names the ranks it waited for. */
    @Test
    void aStoppedProcessOfThreadedRanksIsNamed() throws Exception {
        stopped(start(4, Map.of(), "--ranks-per-process", "2", "--allreduce", "ring", "--comm-timeout", "3"),
            "ranks 0-1 \\(process 0\\) waited \\d+ s for ranks 2-3 \\(process 1\\) \\(.*\\) in epoch \\d+; ending the job");
    }

    private void killedRankIsNamed(Map<String, String> env) throws Exception {
        killed(start(env), pid -> "rank 1 \\(pid " + pid + " on \\S+\\) was killed by SIGKILL");
    }

    /**
     * Kills the process of rank 1 (MPI's) once it trains: the job ends within 5 s with one line,
     * {@code who} (given the victim's pid) then "in epoch E; the job was ended", and nothing left.
     */
    private void killed(Front front, java.util.function.LongFunction<String> who) throws Exception {
        ProcessHandle victim = trainingRank(front, 1);
        Set<ProcessHandle> tree = tree(front);
        long t0 = System.nanoTime();
        victim.destroyForcibly();
        double took = awaitEnd(front, t0, 20);
        String err = front.stderr();
        assertEquals(1, front.process().exitValue(), err);
        assertTrue(err.matches("(?s).*paratrain: " + who.apply(victim.pid()) + " in epoch \\d+; the job was ended.*"), err);
        assertEquals(1, count(err, "paratrain:"), "one line: " + err);
        assertTrue(took < 5, "took " + took + " s");
        noneLeft(tree, 5);
    }

    @Test
    void sigtermToTheFrontEndsEveryProcessAndLeavesOutAlone() throws Exception {
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("result.json"), "{\"from\": \"an earlier run\"}");
        Front front = start(Map.of(), "--out", out.toString());
        trainingRank(front, 1);
        Set<ProcessHandle> tree = tree(front);
        long t0 = System.nanoTime();
        front.process().toHandle().destroy();   // SIGTERM
        awaitEnd(front, t0, 10);
        noneLeft(tree, 5 - (System.nanoTime() - t0) / 1e9);
        assertEquals(143, front.process().exitValue(), front.stderr());
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(List.of(out.resolve("result.json")), files.toList());
        }
        assertEquals("{\"from\": \"an earlier run\"}", Files.readString(out.resolve("result.json")));
        try (Stream<Path> files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".paratrain-job")),
                "the job's directory was removed");
        }
    }

    private static void assumeMpich() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/mpiexec.mpich"))
            && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")), "MPICH is not installed");
    }
}
