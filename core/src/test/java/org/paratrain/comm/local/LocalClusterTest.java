package org.paratrain.comm.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.MessageTooLongException;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.comm.RankFailedException;

class LocalClusterTest {

    @Test
    void receiveMatchesTagsAndKeepsOthersQueued() {
        List<double[]> got = LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new double[] {1}, 0, 1, 1, 7);
                comm.send(new double[] {2, 2}, 0, 2, 1, 8);
                comm.send(new double[] {3}, 0, 1, 1, 7);
                return null;
            }
            double[] out = new double[4];
            assertEquals(2, comm.recv(out, 0, 2, 0, 8));   // skips the two tag-7 messages
            assertEquals(1, comm.recv(out, 2, 1, 0, 7));   // first tag-7 message first
            assertEquals(1, comm.recv(out, 3, 1, 0, 7));
            return out;
        });
        assertArrayEquals(new double[] {2, 2, 1, 3}, got.get(1));
    }

    @Test
    void messagesBetweenOnePairArriveInSendOrder() {
        int n = 10_000;
        List<double[]> got = LocalCluster.run(2, comm -> {
            double[] buf = new double[1];
            if (comm.rank() == 0) {
                for (int i = 0; i < n; i++) {
                    buf[0] = i;
                    comm.send(buf, 0, 1, 1, 0);
                }
                return null;
            }
            double[] seen = new double[n];
            for (int i = 0; i < n; i++) {
                comm.recv(seen, i, 1, 0, 0);
            }
            return seen;
        });
        for (int i = 0; i < n; i++) {
            assertEquals(i, got.get(1)[i]);
        }
    }

    /** More messages than the ring holds, two tags interleaved, received tag by tag. */
    @Test
    void aFullRingOverflowsWithoutBlockingAndKeepsPerTagOrder() {
        int n = 5 * 64 + 3;
        List<double[]> got = LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                double[] buf = new double[3];
                for (int i = 0; i < n; i++) {
                    buf[0] = i;
                    comm.send(buf, 0, 1 + i % 3, 1, 1 + i % 2);   // tags 1 and 2, lengths 1..3
                }
                comm.barrier();   // the receiver reads only after every send has returned
                return null;
            }
            comm.barrier();
            double[] seen = new double[n];
            double[] in = new double[3];
            int k = 0;
            for (int tag = 2; tag >= 1; tag--) {
                for (int i = tag == 1 ? 0 : 1; i < n; i += 2) {
                    assertEquals(1 + i % 3, comm.recv(in, 0, 3, 0, tag));
                    seen[k++] = in[0];
                }
            }
            return seen;
        });
        double[] seen = got.get(1);
        int k = 0;
        for (int i = 1; i < n; i += 2) {
            assertEquals(i, seen[k++]);
        }
        for (int i = 0; i < n; i += 2) {
            assertEquals(i, seen[k++]);
        }
    }

    @Test
    void sendCopiesSoTheBufferCanBeReusedAtOnce() {
        List<double[]> got = LocalCluster.run(2, comm -> {
            double[] buf = {5, 6};
            if (comm.rank() == 0) {
                comm.send(buf, 0, 2, 1, 1);
                buf[0] = -1;
                comm.send(buf, 1, 1, 1, 2);
                return null;
            }
            double[] out = new double[3];
            comm.recv(out, 0, 2, 0, 1);
            comm.recv(out, 2, 1, 0, 2);
            return out;
        });
        assertArrayEquals(new double[] {5, 6, 6}, got.get(1));
    }

    /** Every rank sends its rank to every other; a sequential sum is the reference. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8, 33, 64})
    void allToAllWithManyMoreRanksThanCores(int p) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Double> sums = LocalCluster.run(p, comm -> {
                double[] one = {comm.rank()};
                for (int round = 0; round < 20; round++) {
                    for (int r = 0; r < p; r++) {
                        if (r != comm.rank()) {
                            comm.send(one, 0, 1, r, round);
                        }
                    }
                    double sum = comm.rank();
                    double[] in = new double[1];
                    for (int r = 0; r < p; r++) {
                        if (r != comm.rank()) {
                            comm.recv(in, 0, 1, r, round);
                            sum += in[0];
                        }
                    }
                    assertEquals(p * (p - 1) / 2.0, sum);
                    comm.barrier();
                }
                return (double) comm.rank();
            });
            assertEquals(p, sums.size());
        });
    }

    @Test
    void barrierHoldsEveryRankUntilAllArrive() {
        int p = 9;
        java.util.concurrent.atomic.AtomicInteger arrived = new java.util.concurrent.atomic.AtomicInteger();
        List<Integer> seen = LocalCluster.run(p, comm -> {
            if (comm.rank() == p - 1) {
                Thread.sleep(100);
            }
            arrived.incrementAndGet();
            comm.barrier();
            return arrived.get();
        });
        seen.forEach(v -> assertEquals(p, v));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 64})
    void anExceptionInOneRankEndsEveryRankPromptly(int p) {
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
            assertThrows(RankFailedException.class, () -> LocalCluster.run(p, comm -> {
                if (comm.rank() == p - 1) {
                    throw new IllegalStateException("boom on purpose");
                }
                // Everyone else waits for a message that never comes.
                comm.recv(new double[1], 0, 1, p - 1, 0);
                return null;
            })));
        assertEquals(p - 1, e.rank());
        assertTrue(e.getMessage().contains("rank " + (p - 1)) && e.getMessage().contains("boom on purpose"),
            e.getMessage());
    }

    @Test
    void aFailureWakesRanksWaitingInABarrier() {
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
            assertThrows(RankFailedException.class, () -> LocalCluster.run(4, comm -> {
                if (comm.rank() == 2) {
                    Thread.sleep(50);
                    throw new ArithmeticException("bad");
                }
                comm.barrier();
                return null;
            })));
        assertEquals(2, e.rank());
    }

    @Test
    void tooLongMessageAndBadArgumentsAreErrors() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new double[3], 0, 3, 1, 0);
                comm.recv(new double[1], 0, 1, 1, 0);
            } else {
                comm.recv(new double[2], 0, 2, 0, 0);
            }
            return null;
        }));
        assertEquals(1, e.rank());
        assertTrue(e.getCause() instanceof MessageTooLongException, String.valueOf(e.getCause()));
        assertThrows(RankFailedException.class, () -> LocalCluster.run(1, comm -> {
            comm.send(new double[1], 0, 1, 1, 0);
            return null;
        }));
        assertThrows(RankFailedException.class, () -> LocalCluster.run(1, comm -> {
            comm.send(new double[1], 0, 1, 0, -3);
            return null;
        }));
        assertThrows(IllegalArgumentException.class, () -> LocalCluster.run(0, comm -> null));
    }

    @Test
    void peerFailureIsVisibleToOtherRanks() {
        java.util.concurrent.atomic.AtomicInteger peers = new java.util.concurrent.atomic.AtomicInteger();
        assertThrows(RankFailedException.class, () -> LocalCluster.run(3, comm -> {
            if (comm.rank() == 0) {
                throw new IllegalStateException("first");
            }
            try {
                comm.recv(new double[1], 0, 1, 0, 0);
            } catch (PeerFailedException e) {
                peers.incrementAndGet();
                throw e;
            }
            return null;
        }));
        assertEquals(2, peers.get());
    }

    @Test
    void wtimeAdvancesAndBackendIsNamed() {
        List<String> names = LocalCluster.run(1, (Communicator comm) -> {
            double a = comm.wtime();
            Thread.sleep(2);
            assertTrue(comm.wtime() > a);
            return comm.backend();
        });
        assertEquals("local", names.get(0));
    }

    /**
     * A rank that stops answering (here: asleep) is named by the rank that waited for it, once
     * the timeout has passed, whether the wait is a receive, a barrier or a long send; the job
     * ends soon after, the sleeper woken, and the waiting rank did not spin meanwhile.
     */
    @ParameterizedTest
    @ValueSource(strings = {"receive", "barrier", "send"})
    void aHungRankIsNamedAfterTheTimeout(String operation) {
        long start = System.nanoTime();
        java.util.concurrent.atomic.AtomicLong waiterCpu = new java.util.concurrent.atomic.AtomicLong();
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
            assertThrows(RankFailedException.class, () -> LocalCluster.run(3, Duration.ofMillis(600), comm -> {
                if (comm.rank() == 2) {
                    Thread.sleep(60_000);
                }
                if (comm.rank() == 0) {
                    long cpu0 = threadCpu();
                    try {
                        switch (operation) {
                            case "receive" -> comm.recv(new double[1], 0, 1, 2, 5);
                            case "barrier" -> comm.barrier();
                            default -> comm.send(new double[100_000], 0, 100_000, 2, 5);   // rendezvous: waits
                        }
                    } finally {
                        waiterCpu.set(threadCpu() - cpu0);
                    }
                }
                comm.barrier();
                return null;
            })));
        double seconds = (System.nanoTime() - start) / 1e9;
        // Rank 0 waits for rank 2, rank 1 for rank 0 (in the barrier): whichever gives up first names rank 2.
        assertTrue(e.getMessage().contains("rank 2 stopped answering") && e.getMessage().contains("0.600 s"),
            e.getMessage());
        assertTrue(seconds > 0.6 && seconds < 8, "took " + seconds + " s");
        assertTrue(waiterCpu.get() < 300_000_000L, "the waiting rank used " + waiterCpu.get() / 1e6 + " ms of CPU");
    }

    private static long threadCpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    /**
     * A long (rendezvous) message passed over by a receive for another tag is copied aside and
     * released, so its sender goes on; it then arrives intact when its own tag is received.
     */
    @Test
    void aRendezvousPassedOverByAnotherTagIsKeptAndReleased() {
        int n = Channel.RENDEZVOUS_DOUBLES * 2;
        List<double[]> got = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                double[] big = new double[n];
                for (int i = 0; i < n; i++) {
                    big[i] = i * 0.5;
                }
                comm.send(big, 0, n, 1, 1);          // returns only once rank 1 has taken it
                java.util.Arrays.fill(big, -1);      // the receiver must already hold its own copy
                comm.send(new double[] {42}, 0, 1, 1, 2);
                return null;
            }
            double[] small = new double[1];
            comm.recv(small, 0, 1, 0, 2);            // passes over the tag-1 rendezvous first
            double[] big = new double[n];
            assertEquals(n, comm.recv(big, 0, n, 0, 1));
            return new double[] {small[0], big[0], big[n - 1]};
        }));
        assertArrayEquals(new double[] {42, 0, (n - 1) * 0.5}, got.get(1), 0.0);
    }
}
