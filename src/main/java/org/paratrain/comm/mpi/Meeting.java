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

    Meeting(int size, ReentrantLock mpiLock) {
        this.size = size;
        this.buffers = new Object[size];
        this.offsets = new int[size];
        this.waiting = new Thread[size];
        this.mpiLock = mpiLock;
        this.spin = size <= Runtime.getRuntime().availableProcessors();
    }

    /**
     * Local rank {@code me} arrives with its buffer; returns once the step has run.
     *
     * @param timeoutMillis the longest wait for the others
     * @param firstRank     the job's rank of local rank 0, for messages
     */
    void meet(int me, Object buf, int offset, ProcessGroup.Step step, Communicator leaders, long timeoutMillis,
              int firstRank) {
        int gen = generation;
        buffers[me] = buf;
        offsets[me] = offset;
        waiting[me] = Thread.currentThread();
        if (arrived.incrementAndGet() == size) {
            arrived.set(0);
            run(step, leaders);
            generation = gen + 1;
            for (int t = 0; t < size; t++) {
                if (t != me) {
                    LockSupport.unpark(waiting[t]);
                }
            }
        } else {
            await(gen, timeoutMillis, firstRank);
        }
        Throwable f = stepFailure;
        if (f != null) {
            throw new PeerFailedException("a rank of this process failed in a collective: " + f.getMessage());
        }
    }

    private void run(ProcessGroup.Step step, Communicator leaders) {
        mpiLock.lock();
        try {
            step.run(buffers, offsets, leaders);
        } catch (RuntimeException | Error e) {
            stepFailure = e;
            throw e;
        } finally {
            mpiLock.unlock();
        }
    }

    private void await(int gen, long timeoutMillis, int firstRank) {
        long start = System.nanoTime();
        while (generation == gen) {
            if (Thread.currentThread().isInterrupted()) {
                throw new PeerFailedException("a rank of this process failed");
            }
            long waited = System.nanoTime() - start;
            if (spin && waited < SPIN_NANOS) {
                Thread.onSpinWait();
                continue;
            }
            if (waited > timeoutMillis * 1_000_000L) {
                throw new CommTimeoutException(firstRank, "meeting of the process's ranks", -1, waited * 1e-9);
            }
            LockSupport.parkNanos(this, Math.min(timeoutMillis * 1_000_000L, 100_000_000L));
        }
    }
}
