package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pieces of a job's death with its launcher that need no MPI: how a rank tells that the
 * front is still the process it was, or is gone. The whole, with real jobs killed, is
 * {@link LauncherDeathTest}; the refusal to publish is {@code PublishGuardTest}.
 */
class LauncherWatchTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void linux() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "no /proc: the watch does nothing");
    }

    @Test
    void thisProcessDescribedIsSeenRunning() {
        String self = LauncherWatch.describeSelf();
        assertNotNull(self);
        long[] front = LauncherWatch.front(self);
        assertEquals(ProcessHandle.current().pid(), front[0]);
        assertTrue(LauncherWatch.running(front[0], front[1]));
        assertFalse(LauncherWatch.running(front[0], front[1] + 1), "another start time is another process");
    }

    @Test
    void aFrontOfAnotherMachineOrNamespaceIsNotWatched() {
        String[] f = LauncherWatch.describeSelf().split(":");
        assertArrayEquals(new long[] {0, 0}, LauncherWatch.front(f[0] + ":" + f[1] + ":another-boot:" + f[3]));
        assertArrayEquals(new long[] {0, 0}, LauncherWatch.front(f[0] + ":" + f[1] + ":" + f[2] + ":1"));
        assertArrayEquals(new long[] {0, 0}, LauncherWatch.front(null));
        assertArrayEquals(new long[] {0, 0}, LauncherWatch.front("garbage"));
    }

    @Test
    void aProcessThatEndedIsGone() throws Exception {
        Process p = new ProcessBuilder("sleep", "30").start();
        LauncherWatch.Stat s = LauncherWatch.stat(Path.of("/proc", Long.toString(p.pid()), "stat"));
        assertNotNull(s);
        assertEquals(ProcessHandle.current().pid(), s.parent());
        assertTrue(LauncherWatch.running(p.pid(), s.start()));
        p.destroyForcibly();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertFalse(LauncherWatch.running(p.pid(), s.start()));
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesIsRead() throws Exception {
        Path stat = dir.resolve("stat");
        Files.writeString(stat, "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 2 3\n");
        assertEquals(new LauncherWatch.Stat('S', 17, 987654), LauncherWatch.stat(stat));
        assertEquals(null, LauncherWatch.stat(dir.resolve("none")));
    }
}
