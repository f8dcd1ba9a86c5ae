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
import java.util.TreeMap;
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
 * A job dies with its launcher: kill -9 of the launching {@code paratrain train --backend mpi}
 * (the front, a JVM of its own as a user starts it) while its ranks train ends mpirun, its
 * daemons (MPICH's hydra_pmi_proxy) and every rank within a few seconds, and {@code --out} keeps
 * the older run it held, byte for byte, with nothing added. On Open MPI and on MPICH.
 *
 * <p>The job's processes are those below the front just before the kill, and any process whose
 * command line or environment names this test's directory (the ranks' {@code --out}, the
 * progress directory in mpirun's environment): once the front is dead they belong to init and
 * are no longer found below it. Each is killed afterwards, whatever happened. Skipped where
 * mpirun is missing, unless PARATRAIN_REQUIRE_MPI is set.
 */
class LauncherDeathTest {
    /** The bound the issue sets: "within a few seconds". */
    private static final double WITHIN_SECONDS = 5;

    @TempDir
    static Path data;

    @TempDir
    Path dir;

    private final Set<ProcessHandle> job = new LinkedHashSet<>();

    @BeforeAll
    static void needMpi() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        PaperFormat.write(PaperSetup.data(), data);
    }

    @AfterEach
    void killEverythingOfTheJob() {
        job.addAll(marked());
        job.forEach(ProcessHandle::destroyForcibly);
    }

    @Test
    void onOpenMpiKillingTheFrontEndsTheJobAndLeavesOutAlone() throws Exception {
        killTheFront(Map.of(), "Open MPI", "--mpirun-args", "--mca btl_vader_backing_directory " + dir);
    }

    @Test
    void onMpichKillingTheFrontEndsTheJobAndLeavesOutAlone() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/mpiexec.mpich"))
            && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")), "MPICH is not installed");
        killTheFront(Map.of("PARATRAIN_MPIRUN", "mpiexec.mpich"), "MPICH");
    }

    /** Kills the front of a job on {@code mpi} once its ranks train; {@code args} add to its command line. */
    private void killTheFront(Map<String, String> env, String mpi, String... args) throws Exception {
        Path out = dir.resolve("out");
        Map<String, String> older = olderRun(out);
        Process front = start(env, out, args);
        awaitTraining(front);
        job.addAll(front.descendants().toList());
        job.addAll(marked());
        // The front, mpirun (and MPICH's proxy) and two ranks, of which three are JVMs.
        assertTrue(job.size() >= 4 && job.stream().filter(h -> h.info().command().orElse("").endsWith("/java"))
            .count() >= 3, "the job seen: " + job.stream().map(h -> h.info().commandLine().orElse("?")).toList());
        long t0 = System.nanoTime();
        front.destroyForcibly();    // SIGKILL: none of the front's clean-up runs
        double took = awaitNoneLeft();
        System.out.printf(java.util.Locale.ROOT, "LauncherDeathTest: on %s every process of the job (%d) ended"
            + " %.2f s after kill -9 of the front%n", mpi, job.size(), took);
        assertEquals(older, files(out), "--out changed after the front died");
    }

    /** An older run's three files in {@code out}; {@return every file there, by name} */
    private static Map<String, String> olderRun(Path out) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("result.json"), "{\"from\": \"an earlier run\"}\n");
        Files.writeString(out.resolve("history.csv"), "epoch,elapsed_seconds,loss\n1,0.1,2.5\n");
        Files.writeString(out.resolve("model.json"), "{\"model\": \"the earlier one\"}\n");
        return files(out);
    }

    /**
     * Every file in {@code out} (hidden ones too, such as a temporary file), by name, with its
     * bytes as ISO-8859-1 text: one character a byte, so that equal strings are equal bytes.
     */
    private static Map<String, String> files(Path out) throws IOException {
        Map<String, String> all = new TreeMap<>();
        try (Stream<Path> files = Files.list(out)) {
            for (Path f : files.toList()) {
                all.put(f.getFileName().toString(), new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
            }
        }
        return all;
    }

    /**
     * The front, as a user starts it: a long run, so that only the front's death can end it. Open
     * MPI's files for the job (its session directory, through TMPDIR, and its shared memory) go to
     * this test's directory: an mpirun killed outright leaves them behind, about 12 MB a job.
     */
    private Process start(Map<String, String> env, Path out, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"),
            Main.class.getName(), "train", "--backend", "mpi", "--nodes", "2", "--x", data.resolve("X.in").toString(),
            "--y", data.resolve("y.in").toString(), "--epochs", "10000000", "--out", out.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("front.out").toFile())
            .redirectError(dir.resolve("front.err").toFile());
        pb.environment().put("TMPDIR", dir.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        job.add(p.toHandle());
        return p;
    }

    /** Waits until both ranks' progress records show them training. */
    private void awaitTraining(Process front) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (epoch(0) > 0 && epoch(1) > 0) {
                return;
            }
            if (!front.isAlive()) {
                fail("the job ended before training: " + Files.readString(dir.resolve("front.err")));
            }
            Thread.sleep(100);
        }
        fail("the ranks did not start training within 60 s: " + Files.readString(dir.resolve("front.err")));
    }

    /** The epoch in rank {@code rank}'s progress record, in the job directory the front made. */
    private long epoch(int rank) throws IOException {
        try (Stream<Path> jobs = Files.list(dir)) {
            for (Path d : jobs.filter(p -> p.getFileName().toString().startsWith(".paratrain-job.partial-")).toList()) {
                RankRecord.Snapshot s = RankRecord.read(d, rank);
                if (s != null) {
                    return s.epoch();
                }
            }
        }
        return 0;
    }

    /** Waits until no process of the job runs (zombies do not count); {@return the seconds it took} */
    private double awaitNoneLeft() throws Exception {
        long t0 = System.nanoTime();
        long end = t0 + (long) (WITHIN_SECONDS * 1e9);
        while (true) {
            job.addAll(marked());
            List<String> left = job.stream().filter(JobSupervisor::running)
                .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
            if (left.isEmpty()) {
                return (System.nanoTime() - t0) / 1e9;
            }
            if (System.nanoTime() > end) {
                fail("processes of the job left " + WITHIN_SECONDS + " s after the front died: " + left);
            }
            Thread.sleep(10);
        }
    }

    /** Processes whose command line or environment names this test's directory: the job's, whoever their parent is. */
    private Set<ProcessHandle> marked() {
        byte[] marker = dir.toString().getBytes(StandardCharsets.UTF_8);
        Set<ProcessHandle> found = new LinkedHashSet<>();
        long self = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().filter(h -> h.pid() != self).forEach(h -> {
            for (String file : List.of("cmdline", "environ")) {
                try {
                    if (contains(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), file)), marker)) {
                        found.add(h);
                        return;
                    }
                } catch (IOException e) {
                    // Gone, or not ours to read.
                }
            }
        });
        return found;
    }

    private static boolean contains(byte[] text, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= text.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (text[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
