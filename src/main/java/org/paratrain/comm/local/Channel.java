package org.paratrain.comm.local;

import java.util.Arrays;

/**
 * The messages in flight from one rank to another, in send order.
 *
 * <p>One producer (the sender's thread) and one consumer (the receiver's thread) share it
 * under its monitor, which neither holds for longer than a copy. Message objects and their
 * buffers are recycled through a free list, so a steady exchange allocates nothing.
 * {@link #pending} lets a spinning receiver poll without taking the lock.
 */
final class Channel {
    /** A buffered message; {@code data} is reused and only grows. */
    static final class Message {
        int tag;
        int length;
        double[] data = new double[0];
    }

    private Message[] queue = new Message[4];
    private int count;
    private Message[] free = new Message[4];
    private int freeCount;
    /** Number of queued messages, written under the lock, read without it to poll. */
    volatile int pending;
    /** The receiver's thread while it is parked waiting on this channel, else null. */
    volatile Thread waiter;

    /** Copies the payload into a recycled message and appends it. */
    synchronized void put(double[] buf, int offset, int length, int tag) {
        Message m = freeCount > 0 ? free[--freeCount] : new Message();
        if (m.data.length < length) {
            m.data = new double[length];
        }
        System.arraycopy(buf, offset, m.data, 0, length);
        m.tag = tag;
        m.length = length;
        if (count == queue.length) {
            queue = Arrays.copyOf(queue, count * 2);
        }
        queue[count++] = m;
        pending = count;
    }

    /**
     * Removes the oldest message with {@code tag}, copies it into {@code buf} and returns
     * its length; returns -1 when none is queued, or -2 - length when it does not fit.
     */
    synchronized int take(int tag, double[] buf, int offset, int capacity) {
        for (int i = 0; i < count; i++) {
            Message m = queue[i];
            if (m.tag != tag) {
                continue;
            }
            if (m.length > capacity) {
                return -2 - m.length;
            }
            System.arraycopy(m.data, 0, buf, offset, m.length);
            System.arraycopy(queue, i + 1, queue, i, count - i - 1);
            queue[--count] = null;
            pending = count;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, freeCount * 2);
            }
            free[freeCount++] = m;
            return m.length;
        }
        return -1;
    }
}
