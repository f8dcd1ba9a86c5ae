package org.paratrain.comm.local;

import java.util.concurrent.locks.LockSupport;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.PeerFailedException;

/**
 * What the ranks of one local job share: an {@link Inbox} per rank, holding a channel from
 * each rank that sends to it, and the job's failure state.
 *
 * <p>Waiting polls for up to 50 microseconds, then parks; while it polls it yields the core
 * to a peer that shares it (see {@code keepPolling}). When there are more ranks than cores
 * a polling rank would hold a core its peer needs to make progress, so it parks at once and
 * costs nothing while it waits. No wait lasts longer than the job's timeout: a rank that is
 * hung (or stopped) is named by the rank waiting for it.
 */
final class LocalFabric {
    /** How long a rank that has a core of its own polls before it parks. */
    private static final long SPIN_NANOS = 50_000L;
    private final int size;
    /** Per rank: the channels into it, made on first use (see {@link Inbox} for why). */
    private final Inbox[] inboxes;
    private final Thread[] threads;
    private final long spinNanos;
    /** How long one wait may last before the peer is taken for hung. */
    private final long timeoutNanos;
    private volatile Failure failure;
    /** Per rank: the rank it is parked waiting for, or -1; read only to explain a timeout. */
    private final java.util.concurrent.atomic.AtomicIntegerArray waitingFor;

    private record Failure(int rank, Throwable cause) { }

    LocalFabric(int size, java.time.Duration timeout) {
        this.size = size;
        this.timeoutNanos = timeout.toNanos();
        this.inboxes = new Inbox[size];
        for (int r = 0; r < size; r++) {
            inboxes[r] = new Inbox(size);
        }
        this.threads = new Thread[size];
        this.cpus = new java.util.concurrent.atomic.AtomicIntegerArray(size);
        for (int r = 0; r < size; r++) {
            cpus.set(r, -1);
        }
        this.waitingFor = new java.util.concurrent.atomic.AtomicIntegerArray(size);
        for (int r = 0; r < size; r++) {
            waitingFor.set(r, -1);
        }
        this.spinNanos = size <= Runtime.getRuntime().availableProcessors() ? SPIN_NANOS : 0;
    }

    int size() {
        return size;
    }

    void register(int rank, Thread thread) {
        threads[rank] = thread;
    }

    Channel channel(int source, int dest) {
        return inboxes[dest].channel(source);
    }

    /** {@return the channels made so far, over every rank: a test's check that memory follows the pairs that talk} */
    int channels() {
        int n = 0;
        for (Inbox in : inboxes) {
            n += in.count();
        }
        return n;
    }

    /** Wakes the receiver of {@code channel} if it is parked. */
    void notifyReceiver(Channel channel) {
        Thread w = channel.waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /**
     * Blocks until a message with {@code tag} arrives on the channel from {@code source};
     * returns take()'s result.
     *
     * @throws CommTimeoutException if none came within the timeout
     */
    int await(Channel ch, int self, int source, int tag, Object buf, int offset, int capacity) {
        long start = System.nanoTime();
        int spins = 0;
        boolean parked = false;
        while (true) {
            int n = ch.mayHaveMessages() ? ch.take(tag, buf, offset, capacity) : -1;
            if (n == -1) {
                checkFailure();
                if (spinNanos != 0 && keepPolling(start, ++spins, self, source)) {
                    continue;
                }
                ch.waiter = Thread.currentThread();
                // Re-check after publishing the waiter: a sender that missed it has enqueued already.
                n = ch.mayHaveMessages() ? ch.take(tag, buf, offset, capacity) : -1;
                if (n == -1 && failure == null) {
                    parkUntilDeadline(ch, start, self, source, tag < 0 ? "barrier" : "receive", tag);
                    parked = true;
                }
                ch.waiter = null;
            }
            if (n != -1) {
                if (parked) {
                    waitingFor.lazySet(self, -1);
                }
                return n;
            }
        }
    }

    /** Parks for at most the time left before the deadline; throws when it has passed. */
    private void parkUntilDeadline(Channel ch, long start, int self, int peer, String operation, int tag) {
        long left = timeoutNanos - (System.nanoTime() - start);
        if (left <= 0) {
            ch.waiter = null;
            ch.sender = null;
            throw new CommTimeoutException(culprit(peer), peer, operation, tag, timeoutNanos / 1e9);
        }
        waitingFor.set(self, peer);     // cleared by the caller when the wait ends, not between parks
        LockSupport.parkNanos(ch, left);
    }

    /**
     * The rank at the end of the chain of waits that starts at {@code peer}: when rank 1 waits
     * for rank 0, which waits for rank 2, which waits for nobody, rank 2 is the one that hangs.
     * A cycle (a deadlock) names the rank where it closes.
     */
    private int culprit(int peer) {
        int r = peer;
        for (int hops = 0; hops < size; hops++) {
            int next = waitingFor.get(r);
            if (next < 0) {
                return r;
            }
            r = next;
        }
        return r;
    }

    /** Blocks until the receiver {@code dest} of {@code ch} has copied out the lent message {@code ticket}. */
    void awaitDelivered(Channel ch, int self, int dest, int tag, long ticket) {
        long start = System.nanoTime();
        int spins = 0;
        while (!ch.isDelivered(ticket)) {
            checkFailure();
            if (spinNanos != 0 && keepPolling(start, ++spins, self, dest)) {
                continue;
            }
            ch.sender = Thread.currentThread();
            if (!ch.isDelivered(ticket) && failure == null) {
                parkUntilDeadline(ch, start, self, dest, "send", tag);
            }
            ch.sender = null;
        }
        waitingFor.lazySet(self, -1);
    }

    /**
     * Pauses once and says whether to go on polling. A PAUSE costs up to ~140 cycles, so the
     * clock is read every 64th time (about 3 us here); each time the poller also records the CPU
     * it runs on and yields its core if the peer it waits for last recorded the same CPU, or
     * if either CPU is unknown (the peer has not polled yet; not Linux). A peer's CPU is the
     * one it last polled on: a hint, stale once the peer moves, and wrong at worst for one
     * yield.
     *
     * <p>Why yield at all: the operating system often runs two ranks on one core, while the
     * JIT's compiler thread or another process holds the other, and for as long afterwards as
     * the two keep handing the core to each other. Then the peer can only run once this rank
     * steps aside, and every microsecond spent polling first is lost twice an exchange.
     * Why only then: a rank that shares its core with another process and yields gives that
     * process the rest of its time slice, milliseconds, while its peer on the other core waits.
     * On 20,000 x 10 (3,000 epochs, later runs of a JVM) with another process spinning on one
     * core, 2 ranks took 1.23x one rank's time yielding at every check and 1.10x yielding only
     * to a peer on the same CPU ({@code bench balance}); yielding only after 5 us, as before,
     * left them 1.15x slower than 1 rank even while they shared a core.
     */
    private boolean keepPolling(long start, int spins, int self, int peer) {
        if ((spins & 63) != 0) {
            Thread.onSpinWait();
            return true;
        }
        if (System.nanoTime() - start >= spinNanos) {
            return false;
        }
        int mine = CpuAffinity.cpu();
        cpus.setOpaque(self, mine);
        int theirs = cpus.getOpaque(peer);
        if (theirs == mine || mine < 0 || theirs < 0) {
            Thread.yield();
        }
        return true;
    }

    /** Per rank: the CPU it ran on when it last polled, or -1; a hint, read without ordering. */
    private final java.util.concurrent.atomic.AtomicIntegerArray cpus;

    /**
     * Records the first failure (a rank's own failure replaces a "peer failed" recorded before
     * it) and wakes every rank so that each sees it.
     */
    void fail(int rank, Throwable cause) {
        synchronized (this) {
            // A rank that saw another's failure (a peer failed) may get here before the rank that
            // failed: the one that failed replaces it, so that the job names it.
            if (failure == null || (failure.cause() instanceof PeerFailedException
                && !(cause instanceof PeerFailedException))) {
                failure = new Failure(rank, cause);
            }
        }
        for (Thread t : threads) {
            if (t != null) {
                LockSupport.unpark(t);
                if (t != Thread.currentThread()) {
                    t.interrupt();     // a rank asleep or blocked outside the fabric ends too
                }
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
