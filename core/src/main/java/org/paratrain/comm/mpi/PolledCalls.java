package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.MessageTooLongException;

/**
 * The MPI calls behind each operation of {@link MpiCommunicator}, chosen so that a rank that
 * waits long sleeps ({@link Poller}) instead of polling inside a blocking MPI call at full
 * speed, at little cost per message. Measured with C on 2 processes, Open MPI 4.1 (MPICH 4.0):
 * <ul>
 *   <li>Receive of at most {@value #SMALL_BYTES} bytes: {@code MPI_Irecv} into a native buffer,
 *       {@code MPI_Test} until done, copy into the array: 0.256 us one way for 8 bytes, as
 *       {@code MPI_Recv} (0.342 on MPICH, as 0.341). A larger one: {@code MPI_Iprobe} until it
 *       has arrived, then {@code MPI_Recv} straight into the Java array (no copy: passed with
 *       {@code Linker.Option.critical}, allowed since the message is there and the call returns
 *       promptly); probing first costs about 0.06 us, nothing against a large transfer.</li>
 *   <li>Send of at most {@value #SMALL_BYTES} bytes: copy into a native buffer,
 *       {@code MPI_Isend}, {@code MPI_Test} until done (as fast as {@code MPI_Send} in C). It
 *       matters beyond the 4 KB that Open MPI's shared memory buffers: a larger message waits
 *       until the receiver takes it. Larger sends wait inside {@code MPI_Send}, so a large send
 *       to a stopped rank polls at full speed until the deadline: a nonblocking send would need
 *       a copy of the array outside the Java heap, which costs as much as the transfer.</li>
 *   <li>sendRecv of at most {@value #SMALL_BYTES} bytes each way: {@code MPI_Irecv} first
 *       (so that the peer's send finds it), then {@code MPI_Isend}, both polled; larger ones
 *       {@code MPI_Sendrecv}, which waits inside MPI as a large send does.</li>
 *   <li>Barrier: {@code MPI_Ibarrier} and polling.</li>
 *   <li>Allreduce and broadcast of at most {@value #SMALL_BYTES} bytes: the nonblocking
 *       collective on the native buffer (copied in and out) and polling: 0.77 instead of
 *       0.50 us for 1 double (0.69 instead of 0.48 on MPICH), the price of not spinning.
 *       Larger ones would pay two copies as long as the collective itself (a
 *       1,000,000-double allreduce: 4.1 instead of 1.1 ms), so they first wait at an
 *       {@code MPI_Ibarrier} (0.4 us, against milliseconds): the blocking call that follows
 *       finds every rank there and returns promptly.</li>
 * </ul>
 * From Java, {@code bench mpi} on an idle machine, before and after (four runs each): an
 * 8-byte message 0.26-0.28 and 0.27-0.31 us one way; a 1-double allreduce 0.37-0.40 and
 * 0.80-0.94 us (Open MPI's nonblocking collectives cost more from Java than from C); a
 * 1,000,000-double allreduce 1.18-1.26 and 1.18-1.36 ms (the barrier before it costs, in a
 * tight loop, the overlap of one allreduce with the next).
 *
 * <p>The deadline of every operation, including the calls that may wait inside MPI, is kept by
 * the {@link Watchdog}, not here.
 *
 * <p>Buffers are {@code double[]} ({@code MPI_DOUBLE}) or {@code long[]} ({@code MPI_INT64_T}):
 * both are 8 bytes an element, so the paths and the native buffers are shared, and only the
 * downcall, whose datatype handle is bound, differs.
 */
final class PolledCalls {
    /** Messages and vectors up to this size go through the native buffer and nonblocking calls. */
    static final int SMALL_BYTES = 16384;

    private final MpiAbi abi;
    private final Poller poller;
    /**
     * The native buffers of small messages, received and sent, made once: segments of the
     * global arena, since a downcall given a segment of any other arena keeps that arena alive
     * across the call with two atomic updates, which made an 8-byte message 30% slower.
     */
    private final MemorySegment in = Arena.global().allocate(SMALL_BYTES, 64);
    private final MemorySegment out = Arena.global().allocate(SMALL_BYTES, 64);

    /**
     * The native buffers of large messages of a background thread
     * ({@link org.paratrain.comm.BackgroundThreads}: the exchange that sends buckets during the
     * backward pass), grown to the largest. Such a thread must not wait inside a blocking call:
     * MPI polls there at full speed, taking the core from the rank's computing thread, and a
     * critical downcall that lasts a transfer holds off the JVM's safepoints. So it copies and
     * polls with sleeps, as small messages do; the copy costs a fraction of a link's transfer.
     */
    private MemorySegment bigIn = MemorySegment.NULL;
    private MemorySegment bigOut = MemorySegment.NULL;

    PolledCalls(MpiAbi abi, Poller poller) {
        this.abi = abi;
        this.poller = poller;
    }

    void send(Object buf, int offset, int length, int dest, int tag) {
        boolean words = buf instanceof long[];
        try {
            if (small(length)) {
                isend(out, buf, offset, length, dest, tag);
                return;
            }
            if (org.paratrain.comm.BackgroundThreads.current()) {
                bigOut = grown(bigOut, length);       // no blocking call beside a computing thread
                isend(bigOut, buf, offset, length, dest, tag);
                return;
            }
            MemorySegment v = slice(buf, offset, length);
            check("MPI_Send", words ? (int) MpiCalls.SendWords.H.invokeExact(v, length, dest, tag)
                : (int) MpiCalls.Send.H.invokeExact(v, length, dest, tag));
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Send failed: " + t);
        }
    }

    int recv(Object buf, int offset, int length, int source, int tag) {
        boolean words = buf instanceof long[];
        try {
            if (small(length)) {
                check("MPI_Irecv", irecv(in, words, length, source, tag));
                return finishReceive("MPI_Irecv", buf, offset, length, source, tag);
            }
            if (org.paratrain.comm.BackgroundThreads.current()) {
                bigIn = grown(bigIn, length);
                check("MPI_Irecv", irecv(bigIn, words, length, source, tag));
                return finishReceive("MPI_Irecv", bigIn, buf, offset, length, source, tag);
            }
            poller.probe(source, tag);
            int arrived = received();
            MemorySegment v = slice(buf, offset, length);
            int rc = words ? (int) MpiCalls.RecvWords.H.invokeExact(v, length, source, tag, poller.status)
                : (int) MpiCalls.Recv.H.invokeExact(v, length, source, tag, poller.status);
            if (isTruncation(rc)) {   // consumed, as MPI_Recv consumes a message too long
                throw new MessageTooLongException(source, tag, arrived, length);
            }
            check("MPI_Recv", rc);
            return received();
        } catch (BackendException | MessageTooLongException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Recv failed: " + t);
        }
    }

    /** Both buffers of one kind: {@code double[]} or {@code long[]}. */
    int sendRecv(Object sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                 Object recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        boolean words = sendBuf instanceof long[];
        try {
            if ((!small(recvLength) || !small(sendLength)) && org.paratrain.comm.BackgroundThreads.current()) {
                bigIn = grown(bigIn, recvLength);
                bigOut = grown(bigOut, sendLength);
                check("MPI_Irecv", irecv(bigIn, words, recvLength, source, recvTag));
                isend(bigOut, sendBuf, sendOffset, sendLength, dest, sendTag);
                return finishReceive("MPI_Irecv", bigIn, recvBuf, recvOffset, recvLength, source, recvTag);
            }
            if (!small(recvLength) || !small(sendLength)) {
                MemorySegment s = slice(sendBuf, sendOffset, sendLength);
                MemorySegment r = slice(recvBuf, recvOffset, recvLength);
                int rc = words ? (int) MpiCalls.SendRecvWords.H.invokeExact(s, sendLength, dest, sendTag, r, recvLength,
                    source, recvTag, poller.status)
                    : (int) MpiCalls.SendRecv.H.invokeExact(s, sendLength, dest, sendTag, r, recvLength, source, recvTag,
                    poller.status);
                truncated(rc, source, recvTag, recvLength);
                check("MPI_Sendrecv", rc);
                return received();
            }
            // The receive is posted first, so that the peer's send finds it; then the send, polled.
            check("MPI_Irecv", irecv(in, words, recvLength, source, recvTag));
            isend(out, sendBuf, sendOffset, sendLength, dest, sendTag);
            return finishReceive("MPI_Irecv", recvBuf, recvOffset, recvLength, source, recvTag);
        } catch (BackendException | MessageTooLongException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Sendrecv failed: " + t);
        }
    }

    void barrier() {
        poller.gate();
    }

    void allreduce(double[] buf, int offset, int length, boolean sum) {
        try {
            if (small(length)) {
                MemorySegment v = copyIn(buf, offset, length);
                check("MPI_Iallreduce", sum
                    ? (int) MpiCalls.IallreduceSum.H.invokeExact(abi.inPlace(), v, length, poller.request)
                    : (int) MpiCalls.IallreduceMax.H.invokeExact(abi.inPlace(), v, length, poller.request));
                check("MPI_Iallreduce", poller.await());
                MemorySegment.copy(v, JAVA_DOUBLE, 0, buf, offset, length);
                return;
            }
            poller.gate();
            MemorySegment v = slice(buf, offset, length);
            check("MPI_Allreduce", sum ? (int) MpiCalls.AllreduceSum.H.invokeExact(abi.inPlace(), v, length)
                : (int) MpiCalls.AllreduceMax.H.invokeExact(abi.inPlace(), v, length));
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Allreduce failed: " + t);
        }
    }

    /** As {@link #allreduce(double[], int, int, boolean)} on 64-bit words ({@code MPI_INT64_T}). */
    void allreduce(long[] buf, int offset, int length, boolean sum) {
        try {
            if (!small(length) && org.paratrain.comm.BackgroundThreads.current()) {
                bigIn = grown(bigIn, length);         // as sendRecv: no blocking call on a background thread
                MemorySegment.copy(buf, offset, bigIn, JAVA_LONG, 0, length);
                check("MPI_Iallreduce", sum
                    ? (int) MpiCalls.IallreduceSumWords.H.invokeExact(abi.inPlace(), bigIn, length, poller.request)
                    : (int) MpiCalls.IallreduceMaxWords.H.invokeExact(abi.inPlace(), bigIn, length, poller.request));
                check("MPI_Iallreduce", poller.await());
                MemorySegment.copy(bigIn, JAVA_LONG, 0, buf, offset, length);
                return;
            }
            if (small(length)) {
                MemorySegment.copy(buf, offset, in, JAVA_LONG, 0, length);
                check("MPI_Iallreduce", sum
                    ? (int) MpiCalls.IallreduceSumWords.H.invokeExact(abi.inPlace(), in, length, poller.request)
                    : (int) MpiCalls.IallreduceMaxWords.H.invokeExact(abi.inPlace(), in, length, poller.request));
                check("MPI_Iallreduce", poller.await());
                MemorySegment.copy(in, JAVA_LONG, 0, buf, offset, length);
                return;
            }
            poller.gate();
            MemorySegment v = slice(buf, offset, length);
            check("MPI_Allreduce", sum ? (int) MpiCalls.AllreduceSumWords.H.invokeExact(abi.inPlace(), v, length)
                : (int) MpiCalls.AllreduceMaxWords.H.invokeExact(abi.inPlace(), v, length));
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Allreduce failed: " + t);
        }
    }

    void broadcast(double[] buf, int offset, int length, int root) {
        try {
            if (small(length)) {
                MemorySegment v = copyIn(buf, offset, length);
                check("MPI_Ibcast", (int) MpiCalls.Ibcast.H.invokeExact(v, length, root, poller.request));
                check("MPI_Ibcast", poller.await());
                MemorySegment.copy(v, JAVA_DOUBLE, 0, buf, offset, length);
                return;
            }
            poller.gate();
            check("MPI_Bcast", (int) MpiCalls.Bcast.H.invokeExact(slice(buf, offset, length), length, root));
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Bcast failed: " + t);
        }
    }

    /** Posts a receive of up to {@code length} elements into the native buffer; returns MPI's code. */
    private int irecv(MemorySegment into, boolean words, int length, int source, int tag) throws Throwable {
        return words ? (int) MpiCalls.IrecvWords.H.invokeExact(into, length, source, tag, poller.request)
            : (int) MpiCalls.Irecv.H.invokeExact(into, length, source, tag, poller.request);
    }

    /** Copies {@code length} elements of {@code buf} into the native {@code via}, sends them nonblocking, and waits, polled. */
    private void isend(MemorySegment via, Object buf, int offset, int length, int dest, int tag) throws Throwable {
        boolean words = buf instanceof long[];
        MemorySegment.copy(buf, offset, via, layout(words), 0, length);
        check("MPI_Isend", words
            ? (int) MpiCalls.IsendWords.H.invokeExact(via, length, dest, tag, poller.sendRequest)
            : (int) MpiCalls.Isend.H.invokeExact(via, length, dest, tag, poller.sendRequest));
        check("MPI_Isend", poller.await(poller.sendRequest));
    }

    /** Waits for the receive posted into the native buffer, then copies what came into the array. */
    private int finishReceive(String name, Object buf, int offset, int length, int source, int tag) {
        return finishReceive(name, in, buf, offset, length, source, tag);
    }

    /** As above, for a receive posted into {@code from}. */
    private int finishReceive(String name, MemorySegment from, Object buf, int offset, int length, int source, int tag) {
        int rc = poller.await();
        truncated(rc, source, tag, length);
        check(name, rc);
        int n = received();
        MemorySegment.copy(from, layout(buf instanceof long[]), 0, buf, offset, n);
        return n;
    }

    static ValueLayout layout(boolean words) {
        return words ? JAVA_LONG : JAVA_DOUBLE;
    }

    /** The size of what the last receive got, from its status (what MPI_Get_count reads, without a call). */
    private int received() {
        return (int) (abi.receivedBytes(poller.status) / Double.BYTES);
    }

    /** {@code b}, or a larger native buffer (of the global arena, as {@link #in}) for {@code elements} 8-byte elements. */
    private static MemorySegment grown(MemorySegment b, int elements) {
        long bytes = Math.max(1L, (long) elements * Double.BYTES);
        return b.byteSize() >= bytes ? b : Arena.global().allocate(Math.max(bytes, 2 * b.byteSize()), 64);
    }

    static boolean small(int doubles) {
        return doubles * (long) Double.BYTES <= SMALL_BYTES;
    }

    private MemorySegment copyIn(double[] buf, int offset, int length) {
        MemorySegment.copy(buf, offset, in, JAVA_DOUBLE, 0, length);
        return in;
    }

    private void truncated(int rc, int source, int tag, int capacity) {
        if (isTruncation(rc)) {
            throw new MessageTooLongException(source, tag, -1, capacity);
        }
    }

    /** Whether error code {@code rc} is of the class MPI_ERR_TRUNCATE (an MPICH code is more than its class). */
    private boolean isTruncation(int rc) {
        return isTruncation(abi, rc);
    }

    /** As {@link #isTruncation(int)}, for any caller that knows the ABI. */
    static boolean isTruncation(MpiAbi abi, int rc) {
        if (rc == 0) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cls = arena.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            int err = (int) MpiCalls.ErrorClass.H.invokeExact(rc, cls);
            return err == 0 && cls.get(java.lang.foreign.ValueLayout.JAVA_INT, 0) == abi.errTruncate();
        } catch (Throwable t) {
            return rc == abi.errTruncate();
        }
    }

    static MemorySegment slice(Object buf, int offset, int length) {
        MemorySegment whole = buf instanceof long[] words ? MemorySegment.ofArray(words)
            : MemorySegment.ofArray((double[]) buf);
        return whole.asSlice(offset * 8L, length * 8L);
    }

    private static void check(String name, int rc) {
        MpiCommunicator.check(name, rc);
    }
}
