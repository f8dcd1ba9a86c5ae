package org.paratrain.comm.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuAffinityTest {
    @Test
    void withoutLeavesTheAllowedCpusNotTakenAndNullWhenNoneIsLeft() {
        assertArrayEquals(new long[] {0b10}, CpuAffinity.without(new long[] {0b11}, new long[] {0b01}));
        assertArrayEquals(new long[] {0, 1L << 63}, CpuAffinity.without(new long[] {1, 1L << 63}, new long[] {1}));
        assertArrayEquals(new long[] {0b100}, CpuAffinity.without(new long[] {0b101}, new long[] {0b011, 0, 0}));
        assertNull(CpuAffinity.without(new long[] {0b11}, new long[] {0b111}));
        assertNull(CpuAffinity.without(new long[] {0}, new long[] {0}));
    }

    @Test
    void ofTwoRanksOnOneCpuTheHigherMovesAwayFromEveryNotedCpu() {
        var starts = new java.util.concurrent.atomic.AtomicIntegerArray(new int[] {1, -1, 70, 1});
        // Rank 1 starts on rank 0's CPU: it leaves every CPU another rank noted (1, 70 and rank 3's 1).
        long[] taken = LocalCluster.crowded(1, 1, starts);
        assertArrayEquals(new long[] {0b10, 1L << 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, taken);
        assertNull(LocalCluster.crowded(0, 1, starts), "rank 0 never moves");
        assertNull(LocalCluster.crowded(1, 5, starts), "a CPU of its own");
        assertNull(LocalCluster.crowded(2, 70, starts), "a CPU only a higher rank noted: that one moves");
        assertNull(LocalCluster.crowded(1, -1, starts), "its CPU unknown");
        assertArrayEquals(new long[] {0b10, 1L << 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
            LocalCluster.crowded(3, 1, starts), "rank 3 on the CPU of rank 0");
    }

    /**
     * The move runs the thread on another allowed CPU (sched_getcpu, asked by the kernel while
     * the thread may not run on the one it left) and gives it its whole set back.
     */
    @Test
    void moveOffRunsTheThreadElsewhereAndRestoresItsSet() throws Exception {
        long[] allowed = CpuAffinity.current();
        assumeTrue(allowed != null && CpuAffinity.cpu() >= 0, "sched_getaffinity and sched_getcpu (Linux)");
        assumeTrue(java.util.Arrays.stream(allowed).map(Long::bitCount).sum() >= 2, "two CPUs or more");
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    int mine = CpuAffinity.cpu();
                    long[] taken = new long[allowed.length];
                    taken[mine >> 6] |= 1L << (mine & 63);
                    int moved = CpuAffinity.moveOff(taken);
                    assertTrue(moved >= 0, "moved");
                    assertNotEquals(mine, moved);
                    assertTrue((allowed[moved >> 6] & (1L << (moved & 63))) != 0, "to an allowed CPU: " + moved);
                    assertArrayEquals(allowed, CpuAffinity.current(), "its set given back");
                }
                long[] all = allowed.clone();
                assertEquals(-1, CpuAffinity.moveOff(all), "nowhere to go");
                assertArrayEquals(allowed, CpuAffinity.current());
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }
}
