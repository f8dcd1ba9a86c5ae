package org.paratrain.comm.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** One channel driven from one thread: producer and consumer calls in a fixed order, so nothing depends on timing. */
class ChannelTest {

    /**
     * Rounds of more messages than the ring holds, two tags interleaved and received tag by
     * tag: the overflow list and the queue of passed-over messages grow past the ring, are
     * replaced by empty ones when drained, and per tag the order stays the send order.
     */
    @Test
    void queuesThatGrewPastTheRingAreReplacedAndKeepPerTagOrder() {
        Channel ch = new Channel(3);
        int n = 5 * Channel.CAPACITY + 3;
        double[] buf = new double[2];
        long[] words = new long[2];
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < n; i++) {
                if (i % 2 == 0) {
                    buf[0] = round * n + i;
                    assertEquals(-1, ch.put(buf, 0, 1 + i % 4 / 2, 1));
                } else {
                    words[0] = round * n + i;
                    assertEquals(-1, ch.put(words, 0, 1 + i % 4 / 2, 2));
                }
            }
            long[] w = new long[2];
            for (int i = 1; i < n; i += 2) {     // the words first: every double is passed over
                assertEquals(1 + i % 4 / 2, ch.take(2, w, 0, 2));
                assertEquals(round * n + i, w[0]);
            }
            double[] d = new double[2];
            for (int i = 0; i < n; i += 2) {
                assertEquals(1 + i % 4 / 2, ch.take(1, d, 0, 2));
                assertEquals(round * n + i, d[0]);
            }
            assertEquals(-1, ch.take(1, d, 0, 2));
            assertFalse(ch.mayHaveMessages());
        }
    }

    /**
     * Long messages of both kinds are lent, the sender's array read in place until the receiver
     * took them, while a short message before them is copied; passed over, a lent message is
     * copied and given back at once.
     */
    @Test
    void longMessagesAreLentUntilTakenAndShortOnesCopied() {
        Channel ch = new Channel(0);
        int n = Channel.RENDEZVOUS_DOUBLES;
        double[] small = {1, 2};
        double[] big = new double[n];
        big[n - 1] = 9;
        long[] words = new long[n];
        words[n - 1] = 5;
        assertEquals(-1, ch.put(small, 0, 2, 1));
        long bigTicket = ch.put(big, 0, n, 2);
        long wordTicket = ch.put(words, 0, n, 3);
        assertTrue(bigTicket >= 0 && wordTicket >= 0);
        assertFalse(ch.isDelivered(bigTicket));
        small[0] = -1;
        long[] w = new long[n];
        assertEquals(n, ch.take(3, w, 0, n));       // passes over the short message and the long one
        assertTrue(ch.isDelivered(bigTicket));
        assertTrue(ch.isDelivered(wordTicket));
        assertEquals(5, w[n - 1]);
        big[n - 1] = -9;                              // given back: the copy holds what was sent
        double[] d = new double[n];
        assertEquals(n, ch.take(2, d, 0, n));
        assertEquals(9, d[n - 1]);
        assertEquals(2, ch.take(1, d, 0, 2));
        assertEquals(1, d[0]);
    }
}
