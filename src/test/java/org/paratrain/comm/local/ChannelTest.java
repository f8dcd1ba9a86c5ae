package org.paratrain.comm.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
}
