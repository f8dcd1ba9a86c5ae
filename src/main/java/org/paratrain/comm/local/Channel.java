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
    private static final VarHandle DELIVERED = MethodHandles.arrayElementVarHandle(long[].class);
    /** Slot buffers up to this many doubles (64 KB) are kept for reuse; larger ones are dropped. */
    static final int KEEP_DOUBLES = 8192;
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(Channel.class, "head", long.class);
            TAIL = l.findVarHandle(Channel.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A message held outside the ring: {@code data} is a {@code double[]} or a {@code long[]}. */
    static final class Message {
        int tag;
        int length;
        Object data;

        Message(int tag, int length, Object data) {
            this.tag = tag;
            this.length = length;
            this.data = data;
        }
    }

    /**
     * Slot buffers: {@code [tag, length, payload...]}, so a small message is one cache line.
     * For a message of words the length field holds {@code -1 - length} and the payload is in
     * {@link #wordSlots}.
     */
    private final double[][] slots = new double[CAPACITY][];
    /** The payload of a small message of words in slot s. */
    private final long[][] wordSlots = new long[CAPACITY][];
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
    /** For a rendezvous in slot s: the sender's array (doubles or words) and where the payload starts in it. */
    private final Object[] lent = new Object[CAPACITY];
    private final int[] lentOffset = new int[CAPACITY];
    /** The ticket of the last rendezvous delivered from slot s. */
    private final long[] delivered = new long[CAPACITY];
    private volatile boolean overflowing;
    /**
     * Messages sent while the ring was full; guarded by this channel's lock. It and
     * {@link #unexpected} are replaced by empty queues once they have held more than the ring.
     * Why: an ArrayDeque keeps the array it grew to, and in a ring of 4,096 ranks (on two
     * cores) a rank runs up to p - 1 steps ahead of its successor at some point, so every
     * channel's queues kept room for thousands: 145 MB, growing as p^2.
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
                    lent[s] = buf;
                    lentOffset[s] = offset;
                } else if (words) {
                    putWords(s, (long[]) buf, offset, length);
                } else {
                    System.arraycopy((double[]) buf, offset, slot, HEADER, length);
                }
                tail = t + 1;   // volatile: publishes the slot, and orders the waiter check after it
                return lend ? t + 1 : -1;
            }
        }
        Object copy = words ? java.util.Arrays.copyOfRange((long[]) buf, offset, offset + length)
            : java.util.Arrays.copyOfRange((double[]) buf, offset, offset + length);
        synchronized (this) {
            overflow.addLast(new Message(tag, length, copy));
            overflowing = true;
        }
        return -1;
    }

    private void putWords(int s, long[] buf, int offset, int length) {
        long[] slot = wordSlots[s];
        if (slot == null || slot.length < length) {
            slot = new long[length];
            wordSlots[s] = slot;
        }
        System.arraycopy(buf, offset, slot, 0, length);
    }

    /** True once the rendezvous with {@code ticket} has been copied out by the receiver. */
    boolean isDelivered(long ticket) {
        return (long) DELIVERED.getVolatile(delivered, (int) ((ticket - 1) & (CAPACITY - 1))) == ticket;
    }

    /** The payload of slot s: the lent array, the word slot or the slot itself; and where it starts. */
    private Object source(int s, boolean words) {
        return lent[s] != null ? lent[s] : words ? wordSlots[s] : slots[s];
    }

    private int sourceOffset(int s, boolean words) {
        return lent[s] != null ? lentOffset[s] : words ? 0 : HEADER;
    }

    /** Copies a payload of either kind; the casts let the JIT copy without a type check per call. */
    private static void copy(Object from, int fromOffset, Object to, int toOffset, int length) {
        if (to instanceof double[] d) {
            System.arraycopy((double[]) from, fromOffset, d, toOffset, length);
        } else {
            System.arraycopy((long[]) from, fromOffset, (long[]) to, toOffset, length);
        }
    }

    private static Object copyOf(Object from, int fromOffset, int length) {
        return from instanceof double[] d ? java.util.Arrays.copyOfRange(d, fromOffset, fromOffset + length)
            : java.util.Arrays.copyOfRange((long[]) from, fromOffset, fromOffset + length);
    }

    /** A receive of doubles matched a message of words, or the other way round: a program error. */
    private static IllegalStateException mismatch(int tag, boolean words) {
        return new IllegalStateException("the message with tag " + tag + " carries " + (words ? "64-bit words"
            : "doubles") + " but was received as " + (words ? "doubles" : "64-bit words"));
    }

    /** Frees slot s after its payload has been copied: returns a lent array to its sender. */
    private void release(int s, long h) {
        if (lent[s] != null) {
            lent[s] = null;
            DELIVERED.setVolatile(delivered, s, h + 1);    // volatile: orders the sender check after it
            Thread w = sender;
            if (w != null) {
                java.util.concurrent.locks.LockSupport.unpark(w);
            }
        } else {
            // Do not keep large buffers: a ring of them would hold 64 copies.
            if (slots[s].length > KEEP_DOUBLES) {
                slots[s] = null;
            }
            if (wordSlots[s] != null && wordSlots[s].length > KEEP_DOUBLES) {
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
                    throw mismatch(tag, words);
                }
                if (len > capacity) {
                    return -2 - len;
                }
                copy(source(s, words), sourceOffset(s, words), buf, offset, len);
                release(s, h);
                return len;
            }
            // Passed over: keep a copy, in order, for a later receive with its tag.
            unexpected.addLast(new Message(slotTag, len, copyOf(source(s, words), sourceOffset(s, words), len)));
            unexpectedGrown |= unexpected.size() > CAPACITY;
            release(s, h);
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
            if (m.tag == tag) {
                if (m.data.getClass() != buf.getClass()) {
                    throw mismatch(tag, m.data instanceof long[]);
                }
                if (m.length > capacity) {
                    return -2 - m.length;
                }
                copy(m.data, 0, buf, offset, m.length);
                it.remove();
                if (unexpectedGrown && unexpected.isEmpty()) {
                    unexpected = new ArrayDeque<>(0);
                    unexpectedGrown = false;
                }
                return m.length;
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
