package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.spec.RunSpec;

/** The windows of {@code --rebalance}: fixed, or as long as about 0.2 s of the slowest rank's steps. */
class RebalancerTest {

    /** Steps of a window until {@code record} says it is full, each step taking {@code step} seconds. */
    private static int window(Rebalancer r, double compute, double step) {
        int n = 1;
        while (!r.record(compute, step)) {
            n++;
        }
        return n;
    }

    @Test
    void fixedWindowsAreTheStepsGiven() {
        List<int[]> lengths = LocalCluster.run(2, Duration.ofSeconds(30), comm -> {
            Rebalancer r = new Rebalancer(comm, new BlockRanges(new BlockSharding(1000, 10), 2), 7);
            int first = window(r, 1e-6, 2e-6);
            r.rebalance();
            return new int[] {first, window(r, 1e-6, 2e-6)};
        });
        assertArrayEquals(new int[] {7, 7}, lengths.get(0));
        assertArrayEquals(lengths.get(0), lengths.get(1));
    }

    /**
     * Auto: a first window of 16 steps; then as many as 0.2 s of the slowest rank's mean step, the
     * same length on every rank (rank 1's steps take 10 ms, rank 0's 1 ms: 20 steps); a rank 1
     * twice as slow a sample as rank 0 in both windows gets a third of the samples.
     */
    @Test
    void autoWindowsFollowTheSlowestRanksSteps() {
        List<int[]> out = LocalCluster.run(2, Duration.ofSeconds(30), comm -> {
            BlockRanges ranges = new BlockRanges(new BlockSharding(3000, 10), 2);
            Rebalancer r = new Rebalancer(comm, ranges, RunSpec.REBALANCE_AUTO);
            double step = comm.rank() == 0 ? 1e-3 : 10e-3;
            double compute = 1500 * (comm.rank() == 0 ? 1e-9 : 2e-9);     // seconds a step for 1,500 samples
            int first = window(r, compute, step);
            boolean movedFirst = r.rebalance();
            int second = window(r, compute, step);
            boolean movedSecond = r.rebalance();
            return new int[] {first, second, movedFirst ? 1 : 0, movedSecond ? 1 : 0, ranges.owned(0),
                ranges.owned(1)};
        });
        assertArrayEquals(out.get(0), out.get(1), "every rank the same windows and split");
        int[] r = out.get(0);
        assertEquals(Rebalancer.AUTO_FIRST, r[0]);
        assertEquals(20, r[1]);
        assertFalse(r[2] == 1, "one window moves nothing");
        assertTrue(r[3] == 1);
        assertEquals(200, r[4]);
        assertEquals(100, r[5]);
    }

    /**
     * Auto's windows stay within [16, 100,000] steps: steps of a nanosecond would ask for 2e8,
     * steps of a second for 1; a window whose steps took no time at all (a clock too coarse)
     * keeps the length it had.
     */
    @Test
    void autoWindowsAreClampedAndAZeroClockKeepsTheLength() {
        List<int[]> out = LocalCluster.run(2, Duration.ofSeconds(60), comm -> {
            Rebalancer r = new Rebalancer(comm, new BlockRanges(new BlockSharding(3000, 10), 2),
                RunSpec.REBALANCE_AUTO);
            window(r, 1e-9, 1e-9);
            r.rebalance();
            int afterNanos = window(r, 0.0, 0.0);
            r.rebalance();
            int afterZero = window(r, 1.0, 1.0);
            r.rebalance();
            int afterSeconds = window(r, 1e-3, 1e-3);
            return new int[] {afterNanos, afterZero, afterSeconds};
        });
        assertArrayEquals(out.get(0), out.get(1), "every rank the same windows");
        assertArrayEquals(new int[] {RunSpec.MAX_REBALANCE, RunSpec.MAX_REBALANCE, Rebalancer.AUTO_FIRST},
            out.get(0));
    }
}
