package org.paratrain.comm.local;

import org.paratrain.comm.Communicator;
import org.paratrain.comm.MessageTooLongException;

/**
 * One rank of a {@link LocalCluster}: messages are copied between threads of one JVM. Doubles
 * and 64-bit words travel by the same path; the channel keeps them apart.
 */
final class LocalCommunicator implements Communicator {
    /** Any thread may wait in the fabric: it parks and unparks the thread that waits, not the rank's. */
    @Override
    public boolean callsFromAnotherThread() {
        return true;
    }

    /** Tags below zero are the backend's own; user tags are never negative. */
    private static final int BARRIER_TAG = -1;
    private static final double[] EMPTY = new double[0];
    private final LocalFabric fabric;
    private final int rank;

    LocalCommunicator(LocalFabric fabric, int rank) {
        this.fabric = fabric;
        this.rank = rank;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return fabric.size();
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        rawSend(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return rawRecv(buf, offset, length, source, tag);
    }

    /** Posts the send, receives, then waits for the send to be taken (a long send waits for its receiver). */
    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        return rawSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        rawSend(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return rawRecv(buf, offset, length, source, tag);
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        return rawSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    /** Buffers are {@code double[]} or {@code long[]}, both of one kind. */
    private int rawSendRecv(Object sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            Object recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        fabric.checkFailure();
        Channel ch = fabric.channel(rank, dest);
        long ticket = ch.put(sendBuf, sendOffset, sendLength, sendTag);
        fabric.notifyReceiver(ch);
        int n = rawRecv(recvBuf, recvOffset, recvLength, source, recvTag);
        if (ticket >= 0) {
            fabric.awaitDelivered(ch, rank, dest, sendTag, ticket);
        }
        return n;
    }

    private void rawSend(Object buf, int offset, int length, int dest, int tag) {
        fabric.checkFailure();
        Channel ch = fabric.channel(rank, dest);
        long ticket = ch.put(buf, offset, length, tag);
        fabric.notifyReceiver(ch);
        if (ticket >= 0) {
            fabric.awaitDelivered(ch, rank, dest, tag, ticket);
        }
    }

    private int rawRecv(Object buf, int offset, int length, int source, int tag) {
        int n = fabric.await(fabric.channel(source, rank), rank, source, tag, buf, offset, length);
        if (n < -1) {
            throw new MessageTooLongException(source, tag, -2 - n, length);
        }
        return n;
    }

    /**
     * Dissemination barrier: in round k each rank signals rank + 2^k and waits for rank - 2^k,
     * so after ceil(log2 p) rounds every rank has heard, indirectly, from every other.
     */
    @Override
    public void barrier() {
        int p = size();
        for (int step = 1; step < p; step <<= 1) {
            rawSend(EMPTY, 0, 0, (rank + step) % p, BARRIER_TAG);
            rawRecv(EMPTY, 0, 0, (rank - step + p) % p, BARRIER_TAG);
        }
        fabric.checkFailure();
    }

    @Override
    public double wtime() {
        return System.nanoTime() * 1e-9;
    }

    @Override
    public String backend() {
        return "local";
    }
}
