package org.paratrain.comm.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.util.function.Consumer;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.MessageTooLongException;
import org.paratrain.comm.PeerFailedException;

/**
 * A rank whose peers are reached over TCP: one authenticated connection to each (made by
 * {@link TcpEndpoint}), driven by the calling thread alone, with no helper thread.
 *
 * <p>Every call makes progress on every connection: output queued earlier is written, and
 * whatever arrives is parsed, into the caller's array when it is the message a receive waits
 * for, else kept until asked for. So a send returns once its values are copied to the
 * connection's buffer or the socket (as MPI's eager sends do), two ranks may send to each other
 * at once, and {@link #sendRecv} of long messages both ways never stalls.
 *
 * <p>Faults: the end of any peer's stream without its goodbye, or its abort, ends every blocking
 * call on this rank at once with a {@link PeerFailedException} naming that peer, whichever peer the
 * call waited for; a call that waits longer than the timeout ends with a
 * {@link CommTimeoutException} naming the peer. {@link #abort} tells the peers why this rank
 * failed before it closes, so their messages name the first cause; {@link #close} says goodbye.
 *
 * <p>Not thread-safe: one rank, one thread, as MPI's {@code MPI_THREAD_FUNNELED}.
 */
public final class TcpCommunicator implements Communicator, AutoCloseable {
    private static final int BARRIER_TAG = -2;
    private static final double[] EMPTY = new double[0];
    /** Busy polls before a wait sleeps in the selector: short, as ranks may outnumber cores. */
    private static final int SPINS = 200;

    private final int rank;
    private final PeerLink[] links;
    private final Mesh mesh;
    private final long timeoutNanos;
    private final EarlyMessages toSelf = new EarlyMessages();
    private final Consumer<SelectionKey> onReady = this::ready;
    private int epoch;
    private boolean closed;
    /** Set when a peer failed: every later call throws it again. */
    private PeerFailedException failure;

    TcpCommunicator(int rank, PeerLink[] links, long timeoutNanos) throws IOException {
        this.rank = rank;
        this.links = links;
        this.timeoutNanos = timeoutNanos;
        this.mesh = new Mesh(links);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return links.length;
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        rawSend(buf, offset, length, dest, tag);
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        rawSend(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return rawRecv(buf, offset, length, source, tag, false);
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return rawRecv(buf, offset, length, source, tag, false);
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        return rawSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
            source, recvTag);
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        return rawSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
            source, recvTag);
    }

    /** The receive is posted before the send, so what arrives while sending goes straight to its place. */
    private int rawSendRecv(Object sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            Object recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        PeerLink from = source == rank ? null : links[source];
        boolean posted = from != null && from.firstEarly(recvTag) == null;
        if (posted) {
            from.post(recvBuf, recvOffset, recvLength, recvTag);
            mesh.interest(from);
        }
        rawSend(sendBuf, sendOffset, sendLength, dest, sendTag);
        return rawRecv(recvBuf, recvOffset, recvLength, source, recvTag, posted);
    }

    private void rawSend(Object buf, int offset, int length, int dest, int tag) {
        check();
        if (dest == rank) {
            EarlyMessages.Message e = toSelf.add(tag, buf instanceof long[] ? PeerLink.KIND_LONGS
                : PeerLink.KIND_DOUBLES, length);
            System.arraycopy(buf, offset, e.values, 0, length);
            e.done = length;
            return;
        }
        PeerLink l = links[dest];
        long start = System.nanoTime();
        int spins = 0;
        while (!l.putHeader(tag, buf instanceof long[] ? PeerLink.KIND_LONGS : PeerLink.KIND_DOUBLES, length)) {
            spins = progress(start, dest, "send", tag, spins);
        }
        int done = 0;
        while (done < length) {
            int n = Math.min(length - done, l.room());
            if (n > 0) {
                l.putValues(buf, offset + done, n);
                done += n;
                spins = 0;
            }
            try {
                l.flush();
            } catch (IOException e) {
                throw lost(l, e);
            }
            if (done < length && l.room() == 0) {
                spins = progress(start, dest, "send", tag, spins);
            }
        }
    }

    private int rawRecv(Object buf, int offset, int length, int source, int tag, boolean posted) {
        check();
        if (source == rank) {
            return fromSelf(buf, offset, length, tag);
        }
        PeerLink l = links[source];
        long start = System.nanoTime();
        int spins = 0;
        if (!posted) {
            EarlyMessages.Message e = l.firstEarly(tag);
            if (e != null) {
                while (!e.complete()) {
                    spins = progress(start, source, "receive", tag, spins);
                }
                int n = deliver(e, buf, offset, length, source);
                l.early.spend(e);
                return n;
            }
            l.post(buf, offset, length, tag);
            mesh.interest(l);
        }
        try {
            while (l.matched() < 0) {
                if (l.said) {
                    throw ended(l);
                }
                spins = progress(start, source, "receive", tag, spins);
            }
            return l.matched();
        } finally {
            l.unpost();
        }
    }

    private int fromSelf(Object buf, int offset, int length, int tag) {
        EarlyMessages.Message e = toSelf.first(tag);
        if (e != null) {
            int n = deliver(e, buf, offset, length, rank);
            toSelf.spend(e);
            return n;
        }
        throw new IllegalStateException("rank " + rank + " receives from itself with tag " + tag
            + " but sent itself no such message (it would wait for ever)");
    }

    private static int deliver(EarlyMessages.Message e, Object buf, int offset, int length, int source) {
        if ((e.kind == PeerLink.KIND_LONGS) != (buf instanceof long[])) {
            throw new IllegalStateException("message from rank " + source + " with tag " + e.tag + " carries "
                + (e.kind == PeerLink.KIND_LONGS ? "64-bit words" : "doubles") + ", but the receive expects "
                + (e.kind == PeerLink.KIND_LONGS ? "doubles" : "64-bit words"));
        }
        if (e.length > length) {
            throw new MessageTooLongException(source, e.tag, e.length, length);
        }
        System.arraycopy(e.values, 0, buf, offset, e.length);
        return e.length;
    }

    /**
     * Aborts the job because this rank's work threw {@code t}, with the reason the peers' errors
     * will name: its message, or, for a failure that only echoed another rank's, that it did.
     *
     * @param t what the rank's work threw
     */
    public void abortFor(Throwable t) {
        abort(t instanceof org.paratrain.comm.PeerFailedException ? "ended by another rank's failure"
            : String.valueOf(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage()));
    }

    /**
     * One round of progress on every connection: writes what is queued, reads what has arrived;
     * polls a little, then sleeps in the selector until something is ready or a slice passes.
     *
     * @return the spin count to pass to the next round
     */
    private int progress(long start, int peer, String operation, int tag, int spins) {
        try {
            mesh.flushAll();
            int ready = mesh.select(onReady, spins < SPINS ? 0 : 10);
            check();
            if (ready == 0) {
                long waited = System.nanoTime() - start;
                if (waited > timeoutNanos) {
                    throw new CommTimeoutException(peer, operation, tag, waited * 1e-9);
                }
                if (Thread.currentThread().isInterrupted()) {
                    // An interrupted selector returns at once, every time: without this the rank would spin to the deadline.
                    throw new org.paratrain.comm.CommInterruptedException(rank, operation, peer);
                }
                if (spins < SPINS) {
                    Thread.onSpinWait();
                }
                return spins + 1;
            }
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + rank + ": " + e.getMessage(), e);
        }
    }

    private void ready(SelectionKey key) {
        PeerLink l = (PeerLink) key.attachment();
        try {
            if (key.isValid() && key.isWritable()) {
                l.flush();
                mesh.interest(l);
            }
            if (key.isValid() && key.isReadable() && !l.readAvailable()) {
                key.cancel();
                if (!l.said || l.abortReason != null) {
                    fail(l, null);
                }
            } else if (l.paused) {
                mesh.interest(l);
            }
        } catch (IOException e) {
            key.cancel();
            fail(l, e);
        }
    }

    private void fail(PeerLink l, IOException e) {
        if (failure == null) {
            failure = lost(l, e);
        }
    }

    private PeerFailedException lost(PeerLink l, IOException e) {
        if (l.abortReason != null) {
            return new PeerFailedException("rank " + l.peer + " failed: " + l.abortReason);
        }
        return new PeerFailedException("rank " + l.peer + " is gone: its connection "
            + (e == null ? "ended" : "failed (" + e.getMessage() + ")") + " without a goodbye, in epoch " + epoch
            + " of rank " + rank + "; its task or process died");
    }

    private PeerFailedException ended(PeerLink l) {
        return l.abortReason != null ? lost(l, null)
            : new PeerFailedException("rank " + rank + " waits for rank " + l.peer + ", which has already ended");
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("rank " + rank + "'s communicator is closed");
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Dissemination barrier, as the local backend's, on a tag no user can pick. */
    @Override
    public void barrier() {
        int p = size();
        for (int step = 1; step < p; step <<= 1) {
            rawSend(EMPTY, 0, 0, (rank + step) % p, BARRIER_TAG);
            rawRecv(EMPTY, 0, 0, (rank - step + p) % p, BARRIER_TAG, false);
        }
    }

    @Override
    public double wtime() {
        return System.nanoTime() * 1e-9;
    }

    @Override
    public String backend() {
        return "tcp";
    }

    @Override
    public void epoch(int epoch) {
        this.epoch = epoch;
    }

    /**
     * Tells every peer that this rank failed and why, then closes: their blocking calls end at
     * once with a {@link PeerFailedException} that carries {@code reason}. Best effort, never
     * blocks for long; idempotent.
     *
     * @param reason what went wrong, one line
     */
    public void abort(String reason) {
        if (!closed) {
            closed = true;
            mesh.farewell(PeerLink.KIND_ABORT, reason, 1_000_000_000L, onReady);
        }
    }

    /**
     * Says goodbye to every peer, writes what is still queued, and waits (up to the timeout) for
     * the peers' own goodbyes before closing, so that no message in flight is cut off by a reset.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            mesh.farewell(PeerLink.KIND_BYE, "bye", timeoutNanos, onReady);
        }
    }
}
