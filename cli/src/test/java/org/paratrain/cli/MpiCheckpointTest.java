package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints across backends, with a real fault: an MPI rank killed with SIGKILL part-way
 * through a 2-rank MPI run; the run resumed on MPI (2 ranks) and on the local backend (3
 * ranks) ends with the bits of the uninterrupted 1-rank run. Skipped where mpirun is missing
 * unless PARATRAIN_REQUIRE_MPI is set.
 */
class MpiCheckpointTest {
    @org.junit.jupiter.api.io.TempDir
    static Path tmp;

    @BeforeAll
    static void needMpi() {
        org.paratrain.NeedMpi.mpirun();
        CheckpointCliTest.dir = tmp;      // the same data and reference run, made in this class's directory
        CheckpointCliTest.data();
    }

    @Test
    void aRankKilledPartWayThenResumedOnEitherBackendGivesTheSameBits() throws Exception {
        Path dir = CheckpointCliTest.dir;
        Path ck = dir.resolve("ck-mpi");
        Path log = dir.resolve("mpi-killed.log");
        Process front = CheckpointCliTest.start(CheckpointCliTest.train("--backend", "mpi", "--nodes", "2",
            "--checkpoint-dir", ck.toString(), "--checkpoint-every", "20", "--out", dir.resolve("mpi-out").toString()),
            log);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (CheckpointCliTest.checkpoints(ck) < 2 && front.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(front.isAlive(), "the run ended before a rank could be killed: " + Files.readString(log));
            ProcessHandle rank = front.descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(Main.class.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no rank process found"));
            rank.destroyForcibly();   // SIGKILL, as the OOM killer does
            assertTrue(front.waitFor(30, TimeUnit.SECONDS), "the job did not end after a rank was killed");
            assertNotEquals(0, front.exitValue(), Files.readString(log));
        } finally {
            front.descendants().forEach(ProcessHandle::destroyForcibly);
            front.destroyForcibly();
            front.waitFor(10, TimeUnit.SECONDS);
        }
        assertEquals(0, front.descendants().count(), "processes of the killed job are left");
        assertFalse(Files.exists(dir.resolve("mpi-out/result.json")));
        for (List<String> where : List.of(List.of("--backend", "mpi", "--nodes", "2"), List.of("--nodes", "3"))) {
            Path out = dir.resolve("mpi-resumed-" + where.size());
            List<String> args = new java.util.ArrayList<>(CheckpointCliTest.train(where.toArray(String[]::new)));
            args.addAll(List.of("--resume", ck.toString(), "--out", out.toString()));
            CliTest.Run r = CheckpointCliTest.run(args);
            assertEquals(0, r.status(), r.err());
            CheckpointCliTest.assertSameRun(CheckpointCliTest.reference(), out);
        }
    }
    /**
     * {@code --allreduce auto} on MPI without {@code --sum}: the ranks choose after the launcher
     * has read the settings, and a checkpoint written by that run resumes under the same command
     * (the launcher records auto's sum as the default every candidate has), to the same bits.
     */
    @Test
    void autoOnMpiResumesUnderTheSameCommand() throws Exception {
        Path dir = CheckpointCliTest.dir;
        Path ck = dir.resolve("ck-auto");
        List<String> args = new java.util.ArrayList<>(CheckpointCliTest.train("--backend", "mpi", "--nodes", "2",
            "--allreduce", "auto", "--checkpoint-dir", ck.toString(), "--checkpoint-every", "20"));
        List<String> first = new java.util.ArrayList<>(args);
        first.addAll(List.of("--out", dir.resolve("auto-first").toString()));
        CliTest.Run r = CheckpointCliTest.run(first);
        assertEquals(0, r.status(), r.err());
        CheckpointCliTest.assertSameRun(CheckpointCliTest.reference(), dir.resolve("auto-first"));
        args.addAll(List.of("--resume", ck.toString(), "--out", dir.resolve("auto-resumed").toString()));
        r = CheckpointCliTest.run(args);
        assertEquals(0, r.status(), r.err());
        CheckpointCliTest.assertSameRun(CheckpointCliTest.reference(), dir.resolve("auto-resumed"));
    }
}
