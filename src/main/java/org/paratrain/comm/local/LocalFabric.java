package org.paratrain.comm.local;

import java.util.concurrent.locks.LockSupport;
import org.paratrain.comm.PeerFailedException;

/**
 * What the ranks of one local job share: a channel per ordered pair of ranks and the
 * job's failure state.
 *
 * <p>Waiting spins briefly, then parks. The spin budget depends on whether every rank can
 * have a core: with more ranks than cores a spinning rank would hold a core its peer needs
 * to make progress, so it parks almost at once and costs nothing while it waits.
 */
final class LocalFabric {
    private static final long PARK_NANOS = 50_000_000L;
    private final int size;
    private final Channel[] channels;
    private final Thread[] threads;
    private final int spinLimit;
    private volatile Failure failure;

    private record Failure(int rank, Throwable cause) { }

    LocalFabric(int size) {
        this.size = size;
        this.channels = new Channel[size * size];
        for (int i = 0; i < channels.length; i++) {
            channels[i] = new Channel();
        }
        this.threads = new Thread[size];
        this.spinLimit = size <= Runtime.getRuntime().availableProcessors() ? 20_000 : 64;
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
        int spins = 0;
        while (true) {
            if (ch.pending > 0) {
                int n = ch.take(tag, buf, offset, capacity);
                if (n != -1) {
                    return n;
                }
            }
            checkFailure();
            if (spins++ < spinLimit) {
                Thread.onSpinWait();
                continue;
            }
            ch.waiter = Thread.currentThread();
            // Re-check after publishing the waiter: a sender that missed it has enqueued already.
            int n = ch.pending > 0 ? ch.take(tag, buf, offset, capacity) : -1;
            if (n == -1 && failure == null) {
                LockSupport.parkNanos(ch, PARK_NANOS);
            }
            ch.waiter = null;
            if (n != -1) {
                return n;
            }
        }
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
