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
import org.paratrain.comm.MessageTooLongException;
import org.paratrain.comm.RankFailedException;

/**
 * Messages of 64-bit words on the local backend: every bit pattern arrives as sent (including
 * those that would be signalling NaNs as doubles), through every path of the channel (ring
 * slot, rendezvous, overflow list, passed-over queue), and mixed with messages of doubles.
 */
class LocalWordsTest {
    /** Words whose bits as doubles are NaNs, infinities, -0.0 and subnormals, besides the extremes. */
    static final long[] AWKWARD = {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x7ff0000000000001L,
        0xfff0000000000001L, 0x7ff8000000000000L, 0x8000000000000000L, 0x7ff0000000000000L, 1L, 0x000fffffffffffffL};

    static long[] words(int n, long seed) {
        long[] w = new long[n];
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            w[i] = i < AWKWARD.length ? AWKWARD[i] : rnd.nextLong();
        }
        return w;
    }

    /** Small (ring slot) and long (rendezvous) messages, by send and by sendRecv. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 11, 1000, Channel.RENDEZVOUS_DOUBLES, 3 * Channel.RENDEZVOUS_DOUBLES + 1})
    void everyBitPatternArrives(int n) {
        long[] sent = words(n, n);
        List<long[]> got = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> LocalCluster.run(2, comm -> {
            long[] in = new long[n + 2];
            if (comm.rank() == 0) {
                comm.send(sent, 0, n, 1, 3);
                assertEquals(n, comm.sendRecv(sent, 0, n, 1, 4, in, 1, n + 1, 1, 4));
                return in;
            }
            assertEquals(n, comm.recv(in, 1, n + 1, 0, 3));
            long[] echo = java.util.Arrays.copyOfRange(in, 1, n + 1);
            assertEquals(n, comm.sendRecv(echo, 0, n, 0, 4, in, 1, n + 1, 0, 4));
            return in;
        }));
        for (long[] in : got) {
            assertArrayEquals(sent, java.util.Arrays.copyOfRange(in, 1, n + 1));
            assertEquals(0L, in[0], "nothing written before the range");
        }
    }

    /** More word messages than the ring holds, interleaved with doubles under other tags, taken tag by tag. */
    @Test
    void overflowAndPassedOverMessagesKeepTheirKindAndOrder() {
        int n = 3 * 64 + 5;
        List<long[]> got = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                for (int i = 0; i < n; i++) {
                    comm.send(new long[] {i, -i, Long.MIN_VALUE + i}, 0, 1 + i % 3, 1, 1);
                    comm.send(new double[] {i}, 0, 1, 1, 2);
                }
                comm.send(words(2 * Channel.RENDEZVOUS_DOUBLES, 9), 0, 2 * Channel.RENDEZVOUS_DOUBLES, 1, 5);
                comm.send(new double[] {-7}, 0, 1, 1, 6);
                return null;
            }
            double[] d = new double[1];
            comm.recv(d, 0, 1, 0, 6);   // passes over everything: the rendezvous is copied aside
            assertEquals(-7.0, d[0]);
            long[] seen = new long[n];
            long[] w = new long[3];
            for (int i = 0; i < n; i++) {
                assertEquals(1 + i % 3, comm.recv(w, 0, 3, 0, 1));
                seen[i] = w[0];
                comm.recv(d, 0, 1, 0, 2);
                assertEquals(i, d[0]);
            }
            long[] big = new long[2 * Channel.RENDEZVOUS_DOUBLES];
            comm.recv(big, 0, big.length, 0, 5);
            assertArrayEquals(words(big.length, 9), big);
            return seen;
        }));
        for (int i = 0; i < n; i++) {
            assertEquals(i, got.get(1)[i]);
        }
    }

    /** Words received as doubles (or the other way round) are a program error, named, not a reinterpretation. */
    @Test
    void aMessageOfTheOtherKindIsAnError() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new long[] {1, 2}, 0, 2, 1, 8);
                comm.barrier();
            } else {
                comm.recv(new double[2], 0, 2, 0, 8);
            }
            return null;
        }));
        assertEquals(1, e.rank());
        assertTrue(e.getCause() instanceof IllegalStateException
            && e.getCause().getMessage().contains("carries 64-bit words but was received as doubles"),
            String.valueOf(e.getCause()));
    }

    @Test
    void tooLongAndOutOfRangeAreErrors() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
            if (comm.rank() == 0) {
                comm.send(new long[3], 0, 3, 1, 0);
                comm.barrier();
            } else {
                comm.recv(new long[2], 0, 2, 0, 0);
            }
            return null;
        }));
        assertTrue(e.getCause() instanceof MessageTooLongException, String.valueOf(e.getCause()));
        RankFailedException range = assertThrows(RankFailedException.class, () -> LocalCluster.run(1, comm -> {
            comm.send(new long[2], 1, 2, 0, 0);
            return null;
        }));
        assertTrue(range.getCause() instanceof IndexOutOfBoundsException, String.valueOf(range.getCause()));
    }
}
