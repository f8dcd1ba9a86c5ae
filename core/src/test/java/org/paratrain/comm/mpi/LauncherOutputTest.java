package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Launchers' banners as Open MPI 4.1 and MPICH 4.0 print them, recorded on this kind of machine. */
class LauncherOutputTest {
    private static final String DASHES = "-".repeat(74);
    private static final String EQUALS = "=".repeat(83);

    record Seen(String printed, List<RankEnd> ends, boolean explained) { }

    private static Seen read(String... lines) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LauncherOutput out = new LauncherOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        out.copy(new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
        return new Seen(bytes.toString(StandardCharsets.UTF_8), out.ends(), out.explained());
    }

    @Test
    void openMpiSignalNoticeBecomesARankEnd() {
        Seen s = read("rank output", DASHES, "Primary job  terminated normally, but 1 process returned",
            "a non-zero exit code. Per user-direction, the job has been aborted.", DASHES, DASHES,
            "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).", DASHES);
        assertEquals("rank output\n", s.printed());
        assertEquals(List.of(new RankEnd(1, 0, "vm", 9, -1)), s.ends());
        assertFalse(s.explained());
        assertEquals("paratrain: rank 1 (pid 4242 on vm) was killed by SIGKILL in epoch 57; the job was ended",
            s.ends().get(0).with(-1, 4242).message(57));
    }

    @Test
    void openMpiNonZeroExitGivesRankAndStatus() {
        Seen s = read(DASHES, "mpirun detected that one or more processes exited with non-zero status, thus "
            + "causing", "the job to be terminated. The first process to do so was:", "", "  Process name: [[19509,1],3]",
            "  Exit code:    143", DASHES);
        assertEquals("", s.printed());
        assertEquals(List.of(new RankEnd(3, 0, null, 0, 143)), s.ends());
        assertEquals("paratrain: rank 3 ended on SIGTERM (exit status 143); the job was ended",
            s.ends().get(0).message(0));
    }

    @Test
    void hydraBannerGivesPidHostAndSignal() {
        Seen s = read("", EQUALS, "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "=   PID 8559 RUNNING AT vm",
            "=   EXIT CODE: 9", "=   CLEANING UP REMAINING PROCESSES", "=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES",
            EQUALS, "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)",
            "This typically refers to a problem with your application.",
            "Please see the FAQ page for debugging suggestions");
        assertEquals("", s.printed());
        assertEquals(List.of(new RankEnd(-1, 8559, "vm", 9, -1)), s.ends());
    }

    @Test
    void aRankThatSaysWhyExplainsTheEndAndAbortBannersAreDropped() {
        Seen s = read("paratrain: rank 2 failed: epoch 5: failure injected on purpose", DASHES,
            "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD", "with errorcode 1.", "",
            "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.", DASHES,
            "Abort(1) on node 2 (rank 2 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 2");
        assertEquals("paratrain: rank 2 failed: epoch 5: failure injected on purpose\n", s.printed());
        assertTrue(s.explained());
    }

    @Test
    void onlyTheFirstTimeoutLineIsShown() {
        Seen s = read("paratrain: rank 0 waited 10 s for rank 1 (receive, tag 3) in epoch 57; ending the job",
            "paratrain: rank 2 waited 10 s for rank 0 (receive, tag 1) in epoch 57; ending the job");
        assertEquals("paratrain: rank 0 waited 10 s for rank 1 (receive, tag 3) in epoch 57; ending the job\n",
            s.printed());
        // Processes of several ranks name them as a range; a stopped process that mpirun's SIGCONT
        // woke before its end said it too, in one CI run.
        Seen threaded = read("paratrain: ranks 0-1 (process 0) waited 3 s for ranks 2-3 (process 1) (send-receive, "
            + "tag 32006) in epoch 1; ending the job", "paratrain: ranks 2-3 (process 1) waited 3 s for ranks 0-1 "
            + "(process 0) (send-receive, tag 32005) in epoch 1; ending the job");
        assertEquals("paratrain: ranks 0-1 (process 0) waited 3 s for ranks 2-3 (process 1) (send-receive, tag 32006) "
            + "in epoch 1; ending the job\n", threaded.printed());
    }

    @Test
    void unknownBannersPassThroughWhole() {
        Seen s = read(DASHES, "There are not enough slots available in the system to satisfy the 3", DASHES, "", "x");
        assertEquals(DASHES + "\nThere are not enough slots available in the system to satisfy the 3\n" + DASHES
            + "\n\nx\n", s.printed());
        assertTrue(s.ends().isEmpty());
    }

    /** A holding reader that is never told a rank runs, as for a launcher that failed at once. */
    private static LauncherOutput held(ByteArrayOutputStream bytes, String... lines) {
        LauncherOutput out = new LauncherOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        out.copy(new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void aLauncherThatFailsFirstIsHeldAndGivesItsFirstLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LauncherOutput out = held(bytes, "/usr/bin/mpirun: Error: unknown option \"--bogus-option\"",
            "Type '/usr/bin/mpirun --help' for usage.");
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
        assertEquals("/usr/bin/mpirun: Error: unknown option \"--bogus-option\"", out.reason());
        LauncherOutput hydra = held(new ByteArrayOutputStream(),
            "[mpiexec@vm] match_arg (utils/args/args.c:163): unrecognized argument bogus-option",
            "[mpiexec@vm] main (ui/mpich/mpiexec.c:127): error parsing parameters");
        assertEquals("unrecognized argument bogus-option", hydra.reason());
        assertFalse(hydra.fatal());
        LauncherOutput ssh = held(new ByteArrayOutputStream(),
            "ssh: Could not resolve hostname no-such-host.invalid: Name or service not known");
        assertTrue(ssh.fatal(), "hydra would wait forever");
        // Once a rank runs, what was held passes in order, and later lines as they come.
        out.start();
        out.line("training");
        assertEquals("/usr/bin/mpirun: Error: unknown option \"--bogus-option\"\nType '/usr/bin/mpirun --help' for "
            + "usage.\ntraining\n", bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void mpiNoiseAfterAFaultIsHeldAndDroppedWhenTheJobFailed() {
        String[] lines = {"[vm:12345] Read -1, expected 5440, errno = 3", DASHES,
            "A system call failed during shared memory initialization that should", "not have.", DASHES,
            "[vm:01234] 1 more process has sent help message help-opal-shmem-mmap.txt / sys call fail",
            "paratrain: rank 1 (pid 4242 on vm) was killed by SIGKILL in epoch 5; the job was ended"};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LauncherOutput failed = new LauncherOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        failed.copy(new ByteArrayInputStream((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
        failed.endNoise(false);
        assertEquals(lines[lines.length - 1] + "\n", bytes.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        LauncherOutput ok = new LauncherOutput(new PrintStream(shown, true, StandardCharsets.UTF_8));
        ok.line(lines[0]);
        ok.endNoise(true);
        assertEquals(lines[0] + "\n", shown.toString(StandardCharsets.UTF_8), "a job that succeeded hides nothing");
    }
}
