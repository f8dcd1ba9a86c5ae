package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of the rank processes' deaths, seen by the launching process: real processes
 * ({@code sleep}) with progress records, killed one after the other, and the line that names a
 * rank when MPICH's hydra named another that its clean-up killed.
 */
class DeathOrderTest {
    @TempDir
    Path records;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** A process that sleeps, with the progress record of {@code rank} naming its PID and {@code epoch}. */
    private Process rank(int rank, long epoch) throws IOException {
        Process p = new ProcessBuilder("sleep", "60").start();
        started.add(p);
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        b.putLong(0, p.pid()).putLong(8, epoch).putLong(16, System.currentTimeMillis());
        Files.write(RankRecord.file(records, rank), b.array());
        return p;
    }

    private static void awaitWatched(DeathOrder deaths, Process... ps) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Process p : ps) {
            while (!deaths.watched(p.pid()) && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assumeTrue(deaths.watched(p.pid()), "no pidfds here (Linux 5.3 or later)");
        }
    }

    private static long awaitFirst(DeathOrder deaths) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (deaths.first() == 0 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        return deaths.first();
    }

    @Test
    void theRankKilledFirstIsSeenFirstAndNamedForHydrasPickOfAnother() throws Exception {
        Process zero = rank(0, 41);
        Process one = rank(1, 42);
        try (DeathOrder deaths = DeathOrder.watch(records)) {
            awaitWatched(deaths, zero, one);
            one.destroyForcibly().waitFor();
            Thread.sleep(300);      // hydra's clean-up comes after, here much later than it would
            zero.destroyForcibly().waitFor();
            assertEquals(one.pid(), awaitFirst(deaths));
            // Hydra's banner named rank 0 (its pid, exit code 9): the line names rank 1, which ended first.
            List<RankEnd> hydra = List.of(new RankEnd(-1, zero.pid(), "vm", 9, -1));
            assertEquals("paratrain: rank 1 (pid " + one.pid() + " on vm) ended before the others in epoch 42; "
                + "the job was ended", JobSupervisor.crashLine(1, hydra, records, 1, deaths));
            // When hydra named the one that ended first, its line stands, signal included.
            List<RankEnd> right = List.of(new RankEnd(-1, one.pid(), "vm", 9, -1));
            assertEquals("paratrain: rank 1 (pid " + one.pid() + " on vm) was killed by SIGKILL in epoch 42; "
                + "the job was ended", JobSupervisor.crashLine(1, right, records, 1, deaths));
        }
    }

    /** A rank that ended before it was watched may have been the first: then nothing is claimed. */
    @Test
    void aRankGoneBeforeItWasWatchedLeavesTheOrderUnknown() throws Exception {
        Process gone = rank(1, 7);
        gone.destroyForcibly().waitFor();
        Thread.sleep(100);      // reaped: its pid names no process when the watch starts
        Process zero = rank(0, 7);
        try (DeathOrder deaths = DeathOrder.watch(records)) {
            awaitWatched(deaths, zero);
            zero.destroyForcibly().waitFor();
            Thread.sleep(500);
            assertEquals(0, deaths.first());
            List<RankEnd> hydra = List.of(new RankEnd(-1, zero.pid(), "vm", 9, -1));
            assertTrue(JobSupervisor.crashLine(1, hydra, records, 1, deaths).startsWith("paratrain: rank 0 (pid "
                + zero.pid() + " on vm) was killed by SIGKILL"));
        }
    }
}
