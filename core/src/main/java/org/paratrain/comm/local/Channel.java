package org.paratrain.comm.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The messages in flight from one rank to another: a single-producer single-consumer ring
 * with tag matching on the consumer's side.
 *
 * <p>Why a ring and not a locked queue: a message should cost as few cache-line transfers
 * between the two cores as possible. The producer writes a slot and publishes it by
 * advancing {@code tail}; the consumer reads it and frees it by advancing {@code head}.
 * Neither takes a lock, and the two counters live on separate cache lines. Slot buffers
 * are reused, so a steady exchange allocates nothing.
 *
 * <p>Tag matching: a receive for tag t takes the oldest message with tag t. Messages with
 * other tags that the consumer passes over move to its private {@code unexpected} queue,
 * in order, and are searched first next time; so per tag, order is send order.
 *
 * <p>A full ring does not block the sender (a send must return even if the receiver is
 * busy sending to it): further messages go to a locked overflow list until the consumer
 * has emptied the ring and taken them, which keeps the order.
 *
 * <p>A message carries doubles or 64-bit words ({@code long}); the header says which (a
 * negative length field marks words), and a receive of the other kind is an error, as a type
 * mismatch is under MPI. Small word messages keep their payload in a second set of slot
 * buffers, so the double path, header and payload in one array, is unchanged.
 */
final class Channel {
    static final int CAPACITY = 64;
    /**
     * Messages of at least this many doubles or words (64 KB) are not copied into the ring: the
     * receiver copies them straight from the sender's array while the sender waits
     * (rendezvous, as MPI does for long messages). One copy instead of two, and no 8 MB
     * buffers allocated per message.
     */
    static final int RENDEZVOUS_DOUBLES = 8192;
    /** Slot buffers up to this many doubles (64 KB) are kept for reuse; larger ones are dropped. */
    static final int KEEP_DOUBLES = 8192;
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(Channel.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A message held outside the ring: {@code data} is a {@code double[]} or a {@code long[]}. */
    record Message(int tag, int length, Object data) { }

    /**
     * Slot buffers: {@code [tag, length, payload...]}, so a small message is one cache line.
     * For a message of words the length field holds {@code -1 - length} and the payload is in
     * {@link #wordSlots}.
     */
    private final double[][] slots = new double[CAPACITY][];
    /** The payload of a small message of words in slot s; made by the producer at its first. */
    private long[][] wordSlots;
    /** The producer's last view of {@code head}; re-read only when the ring looks full. */
    private long cachedHead;
    @SuppressWarnings("unused")
    private long p0, p1, p2, p3, p4, p5, p6;
    private volatile long tail;          // written by the producer only
    @SuppressWarnings("unused")
    private long q0, q1, q2, q3, q4, q5, q6;
    private volatile long head;          // written by the consumer only
    @SuppressWarnings("unused")
    private long r0, r1, r2, r3, r4, r5, r6;
    /** The consumer's thread while it is parked waiting on this channel, else null. */
    volatile Thread waiter;
    /** The producer's thread while it is parked waiting for a rendezvous to complete, else null. */
    volatile Thread sender;
    /**
     * The long messages in flight; null until the first. Why made then: it and {@link #wordSlots}
     * were 1.3 KB of a channel's 2 KB, most channels carry neither, and 4,096 ranks make about
     * 50,000 channels for the barrier alone.
     */
    private Lent lent;
    private volatile boolean overflowing;
    /**
     * Messages sent while the ring was full; guarded by this channel's lock. It and
     * {@link #unexpected} are replaced by empty queues once they have held more than the ring:
     * an ArrayDeque keeps the array it grew to, and in a ring allreduce of 4,096 ranks every
     * channel's queues once held thousands (a rank ran up to p - 1 steps ahead), 145 MB in all.
     */
    private ArrayDeque<Message> overflow = new ArrayDeque<>(0);
    /** Messages a receive passed over for another tag, in order; the consumer's own. */
    private ArrayDeque<Message> unexpected = new ArrayDeque<>(0);
    /** Whether {@link #unexpected} has held more than the ring since it was made. */
    private boolean unexpectedGrown;

    private static final int HEADER = 2;
    /** The rank that sends on this channel: its key in the receiver's {@link Inbox}. */
    final int source;

    Channel(int source) {
        this.source = source;
    }

    /**
     * Producer: copies the payload into the ring (or the overflow list when it is full), or,
     * for a long message, lends the sender's array. Returns -1 when the buffer may be reused
     * at once, else a ticket: the buffer must stay untouched until {@link #isDelivered}.
     */
    long put(Object buf, int offset, int length, int tag) {
        boolean words = buf instanceof long[];
        if (!overflowing) {
            long t = tail;
            if (t - cachedHead >= CAPACITY) {
                cachedHead = (long) HEAD.getAcquire(this);
            }
            if (t - cachedHead < CAPACITY) {
                int s = (int) (t & (CAPACITY - 1));
                boolean lend = length >= RENDEZVOUS_DOUBLES;
                double[] slot = slots[s];
                int need = lend || words ? HEADER : length + HEADER;
                if (slot == null || slot.length < need) {   // slots are made on first use
                    slot = new double[need];
                    slots[s] = slot;
                }
                slot[0] = tag;
                slot[1] = words ? -1 - length : length;
                if (lend) {
                    lend(s, buf, offset);
                } else if (words) {
                    putWords(s, (long[]) buf, offset, length);
                } else {
                    System.arraycopy((double[]) buf, offset, slot, HEADER, length);
                }
                tail = t + 1;   // volatile: publishes the slot, and orders the waiter check after it
                return lend ? t + 1 : -1;
            }
        }
        Object copy = Payloads.copyOf(buf, offset, length);
        synchronized (this) {
            overflow.addLast(new Message(tag, length, copy));
            overflowing = true;
        }
        return -1;
    }

    private void lend(int s, Object buf, int offset) {
        if (lent == null) {
            lent = new Lent();
        }
        lent.lend(s, buf, offset);
    }

    private void putWords(int s, long[] buf, int offset, int length) {
        if (wordSlots == null) {
            wordSlots = new long[CAPACITY][];
        }
        long[] slot = wordSlots[s];
        if (slot == null || slot.length < length) {
            slot = new long[length];
            wordSlots[s] = slot;
        }
        System.arraycopy(buf, offset, slot, 0, length);
    }

    /** True once the rendezvous with {@code ticket} has been copied out by the receiver. */
    boolean isDelivered(long ticket) {
        return lent.isDelivered(ticket);
    }

    /** The payload of slot s: the lent array, the word slot or the slot itself; and where it starts. */
    private Object source(int s, boolean words) {
        Object a = lentArray(s);
        return a != null ? a : words ? wordSlots[s] : slots[s];
    }

    private int sourceOffset(int s, boolean words) {
        return lentArray(s) != null ? lent.offset(s) : words ? 0 : HEADER;
    }

    /** The array lent in slot s, or null. */
    private Object lentArray(int s) {
        Lent l = lent;
        return l == null ? null : l.array(s);
    }

    /** Frees slot s, of words or not, after its payload has been copied: returns a lent array to its sender. */
    private void release(int s, long h, boolean words) {
        if (lentArray(s) != null) {
            lent.deliver(s, h + 1);    // volatile: orders the sender check after it
            Thread w = sender;
            if (w != null) {
                java.util.concurrent.locks.LockSupport.unpark(w);
            }
        } else {
            // Do not keep large buffers: a ring of them would hold 64 copies.
            if (slots[s].length > KEEP_DOUBLES) {
                slots[s] = null;
            }
            if (words && wordSlots[s].length > KEEP_DOUBLES) {
                wordSlots[s] = null;
            }
        }
        HEAD.setRelease(this, h + 1);
    }

    /** True when a message may be waiting for the consumer. */
    boolean mayHaveMessages() {
        return tail != head || overflowing || !unexpected.isEmpty();
    }

    /**
     * Consumer: removes the oldest message with {@code tag}, copies it into {@code buf} (a
     * {@code double[]} or a {@code long[]}, of the message's kind) and returns its length;
     * returns -1 when none has arrived, or -2 - length if it is too long.
     *
     * @throws IllegalStateException if the message is of the other kind
     */
    int take(int tag, Object buf, int offset, int capacity) {
        int n = takeUnexpected(tag, buf, offset, capacity);
        if (n != -1) {
            return n;
        }
        long h = head;
        long t = tail;
        while (h < t) {
            int s = (int) (h & (CAPACITY - 1));
            double[] slot = slots[s];
            int code = (int) slot[1];
            boolean words = code < 0;
            int len = words ? -1 - code : code;
            int slotTag = (int) slot[0];
            if (slotTag == tag) {
                if (words != buf instanceof long[]) {
                    throw Payloads.mismatch(tag, words);
                }
                if (len > capacity) {
                    return -2 - len;
                }
                Payloads.copy(source(s, words), sourceOffset(s, words), buf, offset, len);
                release(s, h, words);
                return len;
            }
            // Passed over: keep a copy, in order, for a later receive with its tag.
            Object copy = Payloads.copyOf(source(s, words), sourceOffset(s, words), len);
            unexpected.addLast(new Message(slotTag, len, copy));
            unexpectedGrown |= unexpected.size() > CAPACITY;
            release(s, h, words);
            h++;
        }
        if (overflowing && h == tail) {
            drainOverflow();
            return takeUnexpected(tag, buf, offset, capacity);
        }
        return -1;
    }

    private int takeUnexpected(int tag, Object buf, int offset, int capacity) {
        if (unexpected.isEmpty()) {
            return -1;
        }
        for (Iterator<Message> it = unexpected.iterator(); it.hasNext(); ) {
            Message m = it.next();
            if (m.tag() == tag) {
                if (m.data().getClass() != buf.getClass()) {
                    throw Payloads.mismatch(tag, m.data() instanceof long[]);
                }
                if (m.length() > capacity) {
                    return -2 - m.length();
                }
                Payloads.copy(m.data(), 0, buf, offset, m.length());
                it.remove();
                if (unexpectedGrown && unexpected.isEmpty()) {
                    unexpected = new ArrayDeque<>(0);
                    unexpectedGrown = false;
                }
                return m.length();
            }
        }
        return -1;
    }

    /** Moves the overflow list behind the unexpected queue; the ring is empty, so order holds. */
    private void drainOverflow() {
        synchronized (this) {
            unexpected.addAll(overflow);
            unexpectedGrown |= unexpected.size() > CAPACITY;
            if (overflow.size() > CAPACITY) {
                overflow = new ArrayDeque<>(0);
            } else {
                overflow.clear();
            }
            overflowing = false;
        }
    }
}
