package org.paratrain.comm.mpi;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.comm.ProcessGroup;

/**
 * Where the ranks of one process meet ({@link ProcessGroup#meet}): a counter and a generation.
 * Each rank leaves its buffer and counts itself in; the last one runs the step (holding the
 * process's MPI lock) and wakes the others by advancing the generation. A waiting rank spins
 * briefly when every rank of the process can have a core, then parks; more ranks than cores
 * park at once, since a spinning one would only keep the rank it waits for off the core.
 *
 * <p>One meeting costs the waiting ranks one park each and the last one an unpark each: the
 * least a step of K threads can cost, against about {@code 4 K log2 K} messages for a
 * barrier made of messages.
 */
final class Meeting {
    private static final long SPIN_NANOS = 20_000L;

    private final int size;
    private final Object[] buffers;
    private final int[] offsets;
    private final Thread[] waiting;
    private final AtomicInteger arrived = new AtomicInteger();
    private final ReentrantLock mpiLock;
    private final boolean spin;
    private volatile int generation;
    private volatile Throwable stepFailure;
    /** When the first rank arrived at the meeting under way, 0 when none is waiting. */
    private volatile long openedAt;
    private volatile RuntimeException expired;
    /** When the last step ended ({@link System#nanoTime}), written before the generation advances. */
    private volatile long endedAt;
    /** Each local rank's nanoseconds between a step's end and its return, where it is a virtual thread. */
    private final long[] late;
    /** Each local rank's late of its most recent meeting alone (0 when it ran that meeting's step). */
    private final long[] lastLate;
    /** Whether each rank's arrival this meeting came from a background thread (a bucket's exchange). */
    private final boolean[] background;

    Meeting(int size, ReentrantLock mpiLock) {
        this.size = size;
        this.buffers = new Object[size];
        this.offsets = new int[size];
        this.waiting = new Thread[size];
        this.mpiLock = mpiLock;
        this.spin = size <= Runtime.getRuntime().availableProcessors();
        this.late = new long[size];
        this.lastLate = new long[size];
        this.background = new boolean[size];
    }

    /**
     * Local rank {@code me} arrives with its buffer; returns once the step has run.
     */
    void meet(int me, Object buf, int offset, ProcessGroup.Step step, Communicator leaders) {
        int gen = generation;
        buffers[me] = buf;
        offsets[me] = offset;
        waiting[me] = Thread.currentThread();
        background[me] = org.paratrain.comm.BackgroundThreads.current();
        int order = arrived.incrementAndGet();
        if (order == 1 && size > 1) {
            openedAt = System.nanoTime();
        }
        if (order == size) {
            arrived.set(0);
            openedAt = 0;
            lastLate[me] = 0L;
            try {
                run(step, leaders);
            } finally {   // also when the step failed: the others then see its failure, instead of waiting
                endedAt = System.nanoTime();
                generation = gen + 1;
                for (int t = 0; t < size; t++) {
                    if (t != me) {
                        LockSupport.unpark(waiting[t]);
                    }
                }
            }
        } else {
            await(gen);
            if (Thread.currentThread().isVirtual()) {
                // Woken, it may wait for a carrier that a sibling rank keeps while it computes.
                long l = Math.max(0L, System.nanoTime() - endedAt);
                late[me] += l;
                lastLate[me] = l;
            }
        }
        Throwable f = stepFailure;
        if (f != null) {
            throw new PeerFailedException("a rank of this process failed in a collective: " + f.getMessage());
        }
    }

    /**
     * {@return nanoseconds local rank {@code me}, a virtual thread, spent between the end of a
     * step it waited for and its return from the meeting, over every meeting so far} Where ranks
     * share a carrier, that is mostly a sibling rank computing on it; read by the rank's own thread.
     */
    long lateNanos(int me) {
        return late[me];
    }

    /**
     * {@return the part of {@link #lateNanos} from local rank {@code me}'s most recent meeting
     * alone, 0 if it ran that meeting's step or is not a virtual thread} Read by the rank's own thread.
     */
    long lastLateNanos(int me) {
        return lastLate[me];
    }

    private void run(ProcessGroup.Step step, Communicator leaders) {
        mpiLock.lock();
        try {
            // Every rank's own thread here: none of the process computes while the step's calls wait.
            boolean ranksWait = true;
            for (boolean b : background) {
                ranksWait &= !b;
            }
            Poller.ranksWait(ranksWait);
            try {
                step.run(buffers, offsets, leaders);
            } finally {
                Poller.ranksWait(false);
            }
        } catch (RuntimeException | Error e) {
            stepFailure = e;
            throw e;
        } finally {
            mpiLock.unlock();
        }
    }

    /**
     * Waits for the generation to advance, parked without a timeout: a virtual thread's timed
     * park schedules a timer task, which made a meeting of 2 ranks cost 26 instead of 17 us. The
     * deadline is kept by {@link #watch}, which wakes the waiting ranks when it passes.
     */
    private void await(int gen) {
        long start = System.nanoTime();
        while (generation == gen) {
            if (Thread.currentThread().isInterrupted()) {
                throw new PeerFailedException("a rank of this process failed");
            }
            RuntimeException late = expired;
            if (late != null) {
                throw late;
            }
            if (spin && System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
                continue;
            }
            LockSupport.park(this);
        }
    }

    /**
     * Keeps the deadline of every meeting from a daemon thread of its own, which looks about ten
     * times a deadline (at most once a second) at how long the current meeting has been open, and
     * past the deadline fails it: every waiting rank then throws a {@link CommTimeoutException}.
     *
     * @param timeoutMillis the longest a meeting may stay open
     * @param firstRank     the job's rank of local rank 0, for the message
     * @return the watching thread: interrupt it to end the watch
     */
    Thread watch(long timeoutMillis, int firstRank) {
        long tick = Math.clamp(timeoutMillis / 10, 1, 1000);
        Thread t = Thread.ofPlatform().daemon().name("paratrain-meeting-watch").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(tick);
                } catch (InterruptedException e) {
                    return;
                }
                long opened = openedAt;
                long waited = System.nanoTime() - opened;
                if (opened != 0 && waited > timeoutMillis * 1_000_000L) {
                    expired = new CommTimeoutException(firstRank, "meeting of the process's ranks", -1, waited * 1e-9);
                    for (Thread w : waiting) {
                        if (w != null) {
                            LockSupport.unpark(w);
                        }
                    }
                    return;
                }
            }
        });
        return t;
    }
}
