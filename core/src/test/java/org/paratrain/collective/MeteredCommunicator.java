package org.paratrain.collective;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.ForwardingCommunicator;

/**
 * A communicator of words and doubles that meters what one rank's algorithm does through it:
 * the messages and elements it receives, and the bytes the backend allocated on this thread
 * inside its calls, so that a test can tell the algorithm's own allocation from the backend's.
 */
final class MeteredCommunicator extends ForwardingCommunicator {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long messages;
    private long words;
    private long backendBytes;
    private long start;

    MeteredCommunicator(Communicator inner) {
        super(inner);
    }

    long messages() {
        return messages;
    }

    long words() {
        return words;
    }

    /** {@return bytes allocated on this thread inside the backend's calls so far} */
    long backendBytes() {
        return backendBytes;
    }

    /** {@return bytes allocated on this thread so far, in all} */
    static long allocated() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    private void enter() {
        start = allocated();
    }

    private int received(int n) {
        backendBytes += allocated() - start;
        messages++;
        words += n;
        return n;
    }

    private void sent() {
        backendBytes += allocated() - start;
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        enter();
        inner.send(buf, offset, length, dest, tag);
        sent();
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        enter();
        return received(inner.recv(buf, offset, length, source, tag));
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        enter();
        return received(inner.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset,
            recvLength, source, recvTag));
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        enter();
        inner.send(buf, offset, length, dest, tag);
        sent();
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        enter();
        return received(inner.recv(buf, offset, length, source, tag));
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        enter();
        return received(inner.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset,
            recvLength, source, recvTag));
    }

    @Override
    public String backend() {
        return "metered";
    }
}
