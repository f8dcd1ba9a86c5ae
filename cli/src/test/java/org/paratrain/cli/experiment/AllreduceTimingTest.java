package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.BackgroundThreads;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;

/**
 * The allreduce timed beside a computing thread, as a bucket sent during backward is summed:
 * the calls come from a background thread on every rank, while the rank's own thread computes
 * until they are done; ranks that are virtual threads sharing carriers all reach their calls.
 * And calls timed one at a time, as a step's exchange is measured.
 */
class AllreduceTimingTest {
    private static final long[] SIZES = {1_000, 20_000};

    @Test
    void timedOnABackgroundThreadWhileTheRankComputes() {
        List<double[]> seconds = LocalCluster.run(2, Duration.ofSeconds(60), comm -> {
            Watched watched = new Watched(comm, new java.util.concurrent.ConcurrentLinkedQueue<>());
            double[] t = AllreduceTiming.timeBesideWork(watched, "ring", SIZES, 2, 0.0);
            assertTrue(!watched.background().isEmpty() && !watched.background().contains(false),
                "every message went from a background thread: " + watched.background().size());
            assertTrue(!BackgroundThreads.current(), "the rank's own thread is not one");
            return t;
        });
        for (double[] t : seconds) {
            assertEquals(SIZES.length, t.length);
            for (double s : t) {
                assertTrue(s > 0 && s < 1, "seconds a call: " + s);
            }
        }
    }

    @Test
    void ranksThatAreVirtualThreadsOnOneCoreAllReachTheirCalls() {
        // Four ranks on one core: virtual threads, whose computing loops give the carrier up between runs.
        List<double[]> seconds = LocalCluster.run(4, Duration.ofSeconds(60), 1, comm ->
            AllreduceTiming.timeBesideWork(comm, "recursive-doubling", SIZES, 2, 1e-3));
        assertEquals(4, seconds.size());
        for (double[] t : seconds) {
            assertTrue(t[0] > 0 && t[1] > 0, java.util.Arrays.toString(t));
        }
    }

    /**
     * Calls timed one at a time: every rank returns the same figures (per call the least over the
     * ranks, then the median), and a rank whose every message leaves 2 ms late makes every call at
     * least that long for all.
     */
    @Test
    void callsTimedAloneAgreeOnEveryRankAndHoldTheSlowestMessage() {
        List<AllreduceTiming.Calls> seconds = LocalCluster.run(2, Duration.ofSeconds(60), comm -> {
            Communicator c = comm.rank() == 0 ? comm : new org.paratrain.comm.ForwardingCommunicator(comm) {
                @Override
                protected void sending() {
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L);
                }
            };
            return AllreduceTiming.timeCalls(c, "ring", SIZES, 5, 1e-3);
        });
        org.junit.jupiter.api.Assertions.assertArrayEquals(seconds.get(0).median(), seconds.get(1).median(), 0.0,
            "the same on every rank");
        org.junit.jupiter.api.Assertions.assertArrayEquals(seconds.get(0).mean(), seconds.get(1).mean(), 0.0,
            "the same on every rank");
        for (int i = 0; i < SIZES.length; i++) {
            double median = seconds.get(0).median()[i];
            double mean = seconds.get(0).mean()[i];
            assertTrue(median >= 2e-3 && median < 1, "seconds a call: " + median);
            assertTrue(mean >= 2e-3 && mean < 1, "seconds a call on average: " + mean);
        }
    }

    /**
     * A call now and then slowed (rank 1's every eighth message leaves 20 ms late: a quarter of the
     * calls of a ring of two, two messages a call) counts in the mean, not in the median: the
     * typical call stays the link's, and the mean holds the slow ones at their share.
     */
    @Test
    void aSlowCallNowAndThenMovesTheMeanNotTheMedian() {
        List<AllreduceTiming.Calls> seconds = LocalCluster.run(2, Duration.ofSeconds(60), comm -> {
            Communicator c = comm.rank() == 0 ? comm : new org.paratrain.comm.ForwardingCommunicator(comm) {
                private int sent;

                @Override
                protected void sending() {
                    if (sent++ % 8 == 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
                    }
                }
            };
            return AllreduceTiming.timeCalls(c, "ring", new long[] {1_000}, 16, 0.0);
        });
        double median = seconds.get(0).median()[0];
        double mean = seconds.get(0).mean()[0];
        assertTrue(median < 10e-3, "the median call is a fast one: " + median);
        // A quarter of 16 calls at 20 ms or more: 5 ms and more on average.
        assertTrue(mean > median + 4e-3 && mean < 20e-3, "the mean holds the slow calls at their share: " + mean);
    }

    /** A rank's communicator that records, for each message sent, whether a background thread sent it. */
    private static final class Watched extends org.paratrain.comm.ForwardingCommunicator {
        private final java.util.Queue<Boolean> background;

        Watched(Communicator inner, java.util.Queue<Boolean> background) {
            super(inner);
            this.background = background;
        }

        java.util.Queue<Boolean> background() {
            return background;
        }

        @Override
        protected void sending() {
            background.add(BackgroundThreads.current());
        }
    }
}
