package org.paratrain.comm.local;

import java.util.concurrent.locks.LockSupport;
import org.paratrain.comm.PeerFailedException;

/**
 * What the ranks of one local job share: a channel per ordered pair of ranks and the
 * job's failure state.
 *
 * <p>Waiting polls for up to 50 microseconds, then parks. When there are more ranks than
 * cores a polling rank would hold a core its peer needs to make progress, so it parks at
 * once and costs nothing while it waits.
 */
final class LocalFabric {
    /** How long a rank that has a core of its own polls before it parks. */
    private static final long SPIN_NANOS = 50_000L;
    /** After this long a polling rank yields its core between polls. */
    private static final long YIELD_AFTER_NANOS = 5_000L;
    private final int size;
    private final Channel[] channels;
    private final Thread[] threads;
    private final long spinNanos;
    private volatile Failure failure;

    private record Failure(int rank, Throwable cause) { }

    LocalFabric(int size) {
        this.size = size;
        this.channels = new Channel[size * size];
        for (int i = 0; i < channels.length; i++) {
            channels[i] = new Channel();
        }
        this.threads = new Thread[size];
        this.spinNanos = size <= Runtime.getRuntime().availableProcessors() ? SPIN_NANOS : 0;
    }

    int size() {
        return size;
    }

    void register(int rank, Thread thread) {
        threads[rank] = thread;
    }

    Channel channel(int source, int dest) {
        return channels[source * size + dest];
    }

    /** Wakes the receiver of {@code channel} if it is parked. */
    void notifyReceiver(Channel channel) {
        Thread w = channel.waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** Blocks until a message with {@code tag} arrives on the channel; returns take()'s result. */
    int await(Channel ch, int tag, double[] buf, int offset, int capacity) {
        long start = spinNanos == 0 ? 0 : System.nanoTime();
        int spins = 0;
        while (true) {
            if (ch.mayHaveMessages()) {
                int n = ch.take(tag, buf, offset, capacity);
                if (n != -1) {
                    return n;
                }
            }
            checkFailure();
            if (spinNanos != 0 && keepPolling(start, ++spins)) {
                continue;
            }
            ch.waiter = Thread.currentThread();
            // Re-check after publishing the waiter: a sender that missed it has enqueued already.
            int n = ch.mayHaveMessages() ? ch.take(tag, buf, offset, capacity) : -1;
            if (n == -1 && failure == null) {
                LockSupport.park(ch);
            }
            ch.waiter = null;
            if (n != -1) {
                return n;
            }
        }
    }

    /** Blocks until the receiver of {@code ch} has copied out the lent message {@code ticket}. */
    void awaitDelivered(Channel ch, long ticket) {
        long start = spinNanos == 0 ? 0 : System.nanoTime();
        int spins = 0;
        while (!ch.isDelivered(ticket)) {
            checkFailure();
            if (spinNanos != 0 && keepPolling(start, ++spins)) {
                continue;
            }
            ch.sender = Thread.currentThread();
            if (!ch.isDelivered(ticket) && failure == null) {
                LockSupport.park(ch);
            }
            ch.sender = null;
        }
    }

    /**
     * Pauses once and says whether to go on polling. A PAUSE costs up to ~140 cycles, so the
     * clock is read every 64th time. After {@link #YIELD_AFTER_NANOS} the poller also yields
     * its core: the operating system sometimes starts two ranks on one core, and then the
     * peer it waits for can only run if it steps aside.
     */
    private boolean keepPolling(long start, int spins) {
        if ((spins & 63) != 0) {
            Thread.onSpinWait();
            return true;
        }
        long waited = System.nanoTime() - start;
        if (waited >= spinNanos) {
            return false;
        }
        if (waited >= YIELD_AFTER_NANOS) {
            Thread.yield();
        }
        return true;
    }

    /** Records the first failure and wakes every rank so that each sees it. */
    void fail(int rank, Throwable cause) {
        synchronized (this) {
            if (failure == null) {
                failure = new Failure(rank, cause);
            }
        }
        for (Thread t : threads) {
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    void checkFailure() {
        Failure f = failure;
        if (f != null) {
            throw new PeerFailedException("rank " + f.rank() + " failed");
        }
    }

    /** The rank that failed first, or -1. */
    int failedRank() {
        Failure f = failure;
        return f == null ? -1 : f.rank();
    }

    Throwable failureCause() {
        Failure f = failure;
        return f == null ? null : f.cause();
    }
}
