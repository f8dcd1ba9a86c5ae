package org.paratrain.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.local.LocalCluster;

/**
 * What every transport must do, the same tests for each (a subclass per transport says how to
 * run ranks): tags and ordering, both kinds of message, long messages both ways, barriers,
 * errors on bad calls, deadlines that name the silent rank, one rank's failure ending every
 * rank promptly, and every allreduce algorithm exact on it.
 */
public abstract class CommunicatorContract {

    /**
     * Runs {@code task} on {@code p} ranks of the transport under test.
     *
     * @param <T>     what a rank returns
     * @param p       ranks
     * @param timeout the communication deadline
     * @param task    every rank's program
     * @return results by rank
     */
    protected abstract <T> List<T> run(int p, Duration timeout, LocalCluster.RankTask<T> task);

    /** {@return the name {@link Communicator#backend()} gives} */
    protected abstract String backendName();

    private <T> List<T> run(int p, LocalCluster.RankTask<T> task) {
        return run(p, Duration.ofSeconds(60), task);
    }

    @Test
    void aReceiveMatchesItsTagAndLeavesOthersQueued() {
        List<String> got = run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new double[] {1}, 0, 1, 1, 7);
                comm.send(new double[] {2}, 0, 1, 1, 8);
                comm.send(new double[] {3}, 0, 1, 1, 7);
                return "";
            }
            double[] b = new double[1];
            StringBuilder s = new StringBuilder();
            comm.recv(b, 0, 1, 0, 8);
            s.append(b[0]);
            comm.recv(b, 0, 1, 0, 7);
            s.append(',').append(b[0]);
            comm.recv(b, 0, 1, 0, 7);
            s.append(',').append(b[0]);
            return s.toString();
        });
        assertEquals("2.0,1.0,3.0", got.get(1));
    }

    @Test
    void messagesOfOnePairAndTagArriveInSendOrderWithTheirLengths() {
        int n = 2000;
        List<Boolean> ok = run(2, comm -> {
            if (comm.rank() == 0) {
                for (int i = 0; i < n; i++) {
                    double[] v = new double[i % 17];
                    java.util.Arrays.fill(v, i);
                    comm.send(v, 0, v.length, 1, 3);
                }
                return true;
            }
            double[] b = new double[17];
            for (int i = 0; i < n; i++) {
                int len = comm.recv(b, 0, b.length, 0, 3);
                if (len != i % 17 || (len > 0 && b[len - 1] != i)) {
                    return false;
                }
            }
            return true;
        });
        assertEquals(List.of(true, true), ok);
    }

    @Test
    void wordsAndDoublesTravelApartAndAMismatchIsAnError() {
        List<Object> got = run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new long[] {Long.MIN_VALUE, -1, Long.MAX_VALUE}, 0, 3, 1, 1);
                comm.send(new double[] {Double.MIN_VALUE, -0.0, Double.NaN}, 0, 3, 1, 2);
                comm.send(new long[] {5}, 0, 1, 1, 4);
                return null;
            }
            long[] w = new long[3];
            double[] d = new double[3];
            comm.recv(w, 0, 3, 0, 1);
            comm.recv(d, 0, 3, 0, 2);
            assertArrayEquals(new long[] {Long.MIN_VALUE, -1, Long.MAX_VALUE}, w);
            assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(d[1]));
            assertTrue(Double.isNaN(d[2]));
            return assertThrows(IllegalStateException.class, () -> comm.recv(new double[1], 0, 1, 0, 4)).getMessage();
        });
        assertTrue(String.valueOf(got.get(1)).contains("64-bit words"), String.valueOf(got.get(1)));
    }

    @ParameterizedTest(name = "{0} values")
    @ValueSource(ints = {0, 1, 1000, 3_000_000})
    void sendRecvOfLongMessagesBothWaysAtOnceCompletes(int n) {
        List<Boolean> ok = run(2, comm -> {
            int peer = 1 - comm.rank();
            double[] out = new double[n];
            for (int i = 0; i < n; i++) {
                out[i] = comm.rank() * 1e7 + i;
            }
            double[] in = new double[n];
            int got = comm.sendRecv(out, 0, n, peer, 5, in, 0, n, peer, 5);
            for (int i = 0; i < n; i++) {
                if (in[i] != peer * 1e7 + i) {
                    return false;
                }
            }
            return got == n;
        });
        assertEquals(List.of(true, true), ok);
    }

    @Test
    void aRankMaySendToItself() {
        List<Double> got = run(3, comm -> {
            double[] b = {comm.rank() + 0.5};
            comm.send(b, 0, 1, comm.rank(), 9);
            b[0] = -1;
            comm.recv(b, 0, 1, comm.rank(), 9);
            return b[0];
        });
        assertEquals(List.of(0.5, 1.5, 2.5), got);
    }

    @Test
    void aBarrierHoldsEveryRankUntilTheLastArrives() {
        AtomicLong lastArrival = new AtomicLong();
        List<Long> left = run(4, comm -> {
            if (comm.rank() == 3) {
                Thread.sleep(300);
            }
            lastArrival.accumulateAndGet(System.nanoTime(), Math::max);
            comm.barrier();
            return System.nanoTime();
        });
        for (long t : left) {
            assertTrue(t >= lastArrival.get(), "a rank left the barrier before the last arrived");
        }
    }

    @Test
    void badCallsAreErrorsThatNameTheCulprit() {
        List<String> got = run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new double[5], 0, 5, 1, 0);
                assertThrows(IllegalArgumentException.class, () -> comm.send(new double[1], 0, 1, 2, 0));
                assertThrows(IllegalArgumentException.class, () -> comm.send(new double[1], 0, 1, 1, -1));
                assertThrows(IndexOutOfBoundsException.class, () -> comm.send(new double[1], 0, 2, 1, 0));
                return "";
            }
            return assertThrows(MessageTooLongException.class, () -> comm.recv(new double[3], 0, 3, 0, 0))
                .getMessage();
        });
        assertTrue(got.get(1).contains("holds 5"), got.get(1));
    }

    @Test
    void aSilentRankIsNamedAtTheDeadline() {
        long start = System.nanoTime();
        RankFailedException e = assertThrows(RankFailedException.class, () -> run(3, Duration.ofSeconds(1), comm -> {
            if (comm.rank() == 1) {
                comm.recv(new double[1], 0, 1, 2, 0);    // rank 2 never sends
            }
            if (comm.rank() == 2) {
                Thread.sleep(4000);
            }
            return null;
        }));
        double s = (System.nanoTime() - start) * 1e-9;
        assertTrue(e.getMessage().matches(".*waited 1(\\.\\d+)? s for rank 2.*"), e.getMessage());
        assertTrue(s < 30, "took " + s + " s");
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 5})
    void oneRanksFailureEndsEveryRankPromptlyAndIsBlamed(int p) {
        long start = System.nanoTime();
        RankFailedException e = assertThrows(RankFailedException.class, () -> run(p, Duration.ofSeconds(120), comm -> {
            if (comm.rank() == p - 1) {
                Thread.sleep(200);
                throw new IllegalStateException("injected failure");
            }
            // Everyone else waits on rank 0, which waits on the failed rank: none hears from it directly.
            if (comm.rank() == 0) {
                comm.recv(new double[1], 0, 1, p - 1, 0);
            } else {
                comm.recv(new double[1], 0, 1, 0, 0);
            }
            return null;
        }));
        double s = (System.nanoTime() - start) * 1e-9;
        assertEquals(p - 1, e.rank(), e.getMessage());
        assertTrue(e.getMessage().contains("injected failure"), e.getMessage());
        assertTrue(s < 20, "the ranks took " + s + " s to end (the deadline is 120 s)");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"star", "tree", "recursive-doubling", "ring", "rabenseifner"})
    void everyAllreduceIsExactOnThisTransport(String name) {
        for (int p : new int[] {1, 2, 3, 5}) {
            for (int length : new int[] {0, 1, p - 1, 1000, 100_003}) {
                List<Boolean> ok = run(p, comm -> {
                    Allreduce a = Allreduces.create(name);
                    long[] w = new long[length];
                    double[] d = new double[length];
                    for (int i = 0; i < length; i++) {
                        w[i] = (long) i * 1_000_003L * (comm.rank() + 1) - comm.rank();
                        d[i] = i + 0.25 * comm.rank();    // small integers and quarters: exact in any order
                    }
                    a.allreduce(comm, w, 0, length, Reduction.WORD_SUM);
                    a.allreduce(comm, d, 0, length);
                    for (int i = 0; i < length; i++) {
                        long want = 0;
                        double wantD = 0;
                        for (int r = 0; r < p; r++) {
                            want += (long) i * 1_000_003L * (r + 1) - r;
                            wantD += i + 0.25 * r;
                        }
                        if (w[i] != want || d[i] != wantD) {
                            return false;
                        }
                    }
                    return true;
                });
                assertTrue(ok.stream().allMatch(b -> b), name + " at " + p + " ranks, length " + length);
            }
        }
    }

    @Test
    void theBackendNamesItself() {
        assertEquals(List.of(backendName(), backendName()), run(2, Communicator::backend));
    }
}
