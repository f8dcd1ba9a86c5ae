package org.paratrain.comm;

/**
 * A communicator that hands every call to another, for wrappers that watch or change a few of
 * them (as {@link org.paratrain.optim.ForwardingOptimizer} does for optimizers): each message
 * sent calls {@link #sending()} first. The capabilities with defaults ({@code nativeCollectives},
 * {@code processGroup}, {@code callsFromAnotherThread}) keep theirs, so collectives go through
 * this wrapper's messages; override them to expose the inner ones.
 */
public abstract class ForwardingCommunicator implements Communicator {
    /** The communicator every call goes to. */
    protected final Communicator inner;

    /**
     * Wraps a communicator.
     *
     * @param inner the communicator every call goes to
     */
    protected ForwardingCommunicator(Communicator inner) {
        this.inner = java.util.Objects.requireNonNull(inner, "inner");
    }

    /** Called on the sending thread before each send, and each send-and-receive, goes to the inner communicator. */
    protected void sending() {
    }

    @Override
    public int rank() {
        return inner.rank();
    }

    @Override
    public int size() {
        return inner.size();
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        sending();
        inner.send(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        return inner.recv(buf, offset, length, source, tag);
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        sending();
        return inner.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        sending();
        inner.send(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        return inner.recv(buf, offset, length, source, tag);
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        sending();
        return inner.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    @Override
    public void barrier() {
        inner.barrier();
    }

    @Override
    public double wtime() {
        return inner.wtime();
    }

    @Override
    public String backend() {
        return inner.backend();
    }
}
