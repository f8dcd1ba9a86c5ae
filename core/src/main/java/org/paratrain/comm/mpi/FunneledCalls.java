package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.MessageTooLongException;

/**
 * The messages of one rank that is a thread of an MPI process holding several ranks
 * ({@link ThreadRanks}) to a rank of another process. MPI is initialised with
 * {@code MPI_THREAD_SERIALIZED}: threads may call it, one at a time. So every call here is
 * made under the process's lock, and every call is nonblocking ({@code MPI_Isend},
 * {@code MPI_Irecv}, {@code MPI_Test}): no thread holds the lock while it waits, which a
 * blocking send would (and then the receive its peer waits for could not be posted).
 *
 * <p>Messages are copied through native buffers of this thread's own (grown to the largest
 * message), so the Java arrays never cross into MPI while the collector may move them. The
 * deadline is kept here, by the waiting thread: the process's watchdog follows one operation
 * at a time, that of the thread which speaks for the process.
 *
 * <p>Waiting: a few thousand polls, yielding the core between them (threads outnumber cores
 * here by design), then sleeps that grow with the wait, as {@link Poller} does.
 */
final class FunneledCalls {
    private static final int FIRST_BYTES = 16384;
    private static final long POLL_NANOS = 1_000_000L;

    private final ReentrantLock lock;
    private final MemorySegment sendRequest;
    private final MemorySegment recvRequest;
    private final MemorySegment sendStatus;
    private final MemorySegment recvStatus;
    private final MemorySegment flag;
    private final MpiAbi abi;
    private MemorySegment out;
    private MemorySegment in;

    FunneledCalls(MpiAbi abi, ReentrantLock lock) {
        this.abi = abi;
        this.lock = lock;
        Arena arena = Arena.ofAuto();
        this.sendRequest = arena.allocate(8, 8);
        this.recvRequest = arena.allocate(8, 8);
        this.sendStatus = arena.allocate(abi.statusBytes(), 8);
        this.recvStatus = arena.allocate(abi.statusBytes(), 8);
        this.flag = arena.allocate(JAVA_INT);
        this.out = arena.allocate(FIRST_BYTES, 64);
        this.in = arena.allocate(FIRST_BYTES, 64);
    }

    /**
     * Posts a send of {@code buf[offset, offset + length)} ({@code double[]} or {@code long[]})
     * to process {@code dest} with the MPI tag {@code tag}; {@link #finishSend} waits for it.
     */
    void postSend(Object buf, int offset, int length, int dest, int tag) {
        boolean words = buf instanceof long[];
        out = room(out, length);
        MemorySegment.copy(buf, offset, out, layout(words), 0, length);
        int rc;
        lock.lock();
        try {
            rc = words ? (int) MpiCalls.IsendWords.H.invokeExact(out, length, dest, tag, sendRequest)
                : (int) MpiCalls.Isend.H.invokeExact(out, length, dest, tag, sendRequest);
        } catch (Throwable t) {
            throw new BackendException("MPI_Isend failed: " + t);
        } finally {
            lock.unlock();
        }
        check("MPI_Isend", rc);
    }

    /**
     * Waits until MPI is done with the posted send.
     *
     * @param deadlineMillis the longest wait
     * @param peer           the job's rank sent to, for the message of a timeout
     * @param userTag        the tag the program gave, for the same message
     */
    void finishSend(long deadlineMillis, int peer, int userTag) {
        check("MPI_Isend", await(sendRequest, sendStatus, deadlineMillis, peer, "send", userTag));
    }

    /** Posts a receive of up to {@code length} values from process {@code source} with MPI tag {@code tag}. */
    void postRecv(boolean words, int length, int source, int tag) {
        in = room(in, length);
        int rc;
        lock.lock();
        try {
            rc = words ? (int) MpiCalls.IrecvWords.H.invokeExact(in, length, source, tag, recvRequest)
                : (int) MpiCalls.Irecv.H.invokeExact(in, length, source, tag, recvRequest);
        } catch (Throwable t) {
            throw new BackendException("MPI_Irecv failed: " + t);
        } finally {
            lock.unlock();
        }
        check("MPI_Irecv", rc);
    }

    /**
     * Waits for the posted receive and copies what came into {@code buf[offset, ...)}.
     *
     * @return the message's length
     * @throws MessageTooLongException if it is longer than {@code length}
     */
    int finishRecv(Object buf, int offset, int length, long deadlineMillis, int peer, int userTag) {
        int rc = await(recvRequest, recvStatus, deadlineMillis, peer, "receive", userTag);
        if (PolledCalls.isTruncation(abi, rc)) {
            throw new MessageTooLongException(peer, userTag, -1, length);
        }
        check("MPI_Irecv", rc);
        int n = (int) (abi.receivedBytes(recvStatus) / Double.BYTES);
        MemorySegment.copy(in, layout(buf instanceof long[]), 0, buf, offset, n);
        return n;
    }

    /** Tests {@code request} until it completes; returns MPI's code for the operation. */
    private int await(MemorySegment request, MemorySegment status, long deadlineMillis, int peer, String op,
                      int userTag) {
        long start = System.nanoTime();
        for (int polls = 1; ; polls++) {
            int rc;
            lock.lock();
            try {
                rc = (int) MpiCalls.Test.H.invokeExact(request, flag, status);
            } catch (Throwable t) {
                throw new BackendException("MPI_Test failed: " + t);
            } finally {
                lock.unlock();
            }
            if (rc != 0 || flag.get(JAVA_INT, 0) != 0) {
                return rc;
            }
            pause(polls, start, deadlineMillis, peer, op, userTag);
        }
    }

    private static void pause(int polls, long start, long deadlineMillis, int peer, String op, int userTag) {
        if (polls < 64) {
            Thread.yield();
            return;
        }
        long waited = System.nanoTime() - start;
        if (waited > deadlineMillis * 1_000_000L) {
            throw new CommTimeoutException(peer, op, userTag, waited * 1e-9);
        }
        if (org.paratrain.comm.BackgroundThreads.current()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new org.paratrain.comm.BackendException("an exchange thread was interrupted while waiting for MPI");
            }
            LockSupport.parkNanos(200_000L);        // beside a computing thread: see Poller
        } else if (waited < POLL_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.clamp(waited / 32, 50_000L, 1_000_000L));
        }
    }

    /** {@code seg}, or a larger one (twice, at least) when {@code length} values do not fit. */
    private static MemorySegment room(MemorySegment seg, int length) {
        long bytes = (long) length * Double.BYTES;
        return bytes <= seg.byteSize() ? seg : Arena.ofAuto().allocate(Math.max(bytes, 2 * seg.byteSize()), 64);
    }

    private static ValueLayout layout(boolean words) {
        return words ? JAVA_LONG : JAVA_DOUBLE;
    }

    private static void check(String name, int rc) {
        MpiCommunicator.check(name, rc);
    }
}
