package org.paratrain.comm.mpi;

import java.util.Optional;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.ProcessGroup;

/**
 * One rank of an MPI job that is a thread of a process holding several ({@link ThreadRanks}).
 * A message to a rank of the same process goes through the local backend's channels; one to
 * another process through MPI ({@link FunneledCalls}), with a tag that also says which thread
 * sent it and which is to receive it:
 * {@code 32768 + (tag * K + sender's thread) * K + receiver's thread}, above every tag the
 * process's leader uses on MPI itself, so the two never match each other's messages.
 *
 * <p>A send-and-receive that mixes the two paths posts its MPI half first and waits for it
 * last, so that no thread waits on a peer before its own half is under way; this is what makes
 * a ring through both kinds of neighbour free of deadlock.
 */
final class ThreadRank implements Communicator, ProcessGroup {
    /** The process holds MPI at {@code MPI_THREAD_SERIALIZED}, and every call goes under its lock ({@link FunneledCalls}). */
    @Override
    public boolean callsFromAnotherThread() {
        return true;
    }

    private static final int TAG_BASE = Communicator.MAX_TAG + 1;

    private final ThreadRanks process;
    private final Communicator local;
    private final FunneledCalls calls;
    private final int k;
    private final int processRank;
    private final Optional<ProcessGroup> group = Optional.of(this);

    ThreadRank(ThreadRanks process, Communicator local) {
        this.process = process;
        this.local = local;
        this.k = process.localSize;
        this.processRank = process.world.rank();
        this.calls = new FunneledCalls(MpiCalls.Lib.ABI, process.lock);
    }

    @Override
    public int rank() {
        return processRank * k + local.rank();
    }

    @Override
    public int size() {
        return process.world.size() * k;
    }

    private boolean here(int peer) {
        return peer / k == processRank;
    }

    private int mpiTag(int tag, int fromThread, int toThread) {
        return TAG_BASE + (tag * k + fromThread) * k + toThread;
    }

    private long deadline() {
        return process.world.timeoutMillis();
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        anySend(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return anyRecv(buf, offset, length, source, tag);
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        if (here(dest) && here(source)) {
            return local.sendRecv(sendBuf, sendOffset, sendLength, dest % k, sendTag, recvBuf, recvOffset, recvLength,
                source % k, recvTag);
        }
        return mixedSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        anySend(buf, offset, length, dest, tag);
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        return anyRecv(buf, offset, length, source, tag);
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        if (here(dest) && here(source)) {
            return local.sendRecv(sendBuf, sendOffset, sendLength, dest % k, sendTag, recvBuf, recvOffset, recvLength,
                source % k, recvTag);
        }
        return mixedSendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength, source,
            recvTag);
    }

    /** Buffers are {@code double[]} or {@code long[]}. */
    private void anySend(Object buf, int offset, int length, int dest, int tag) {
        if (here(dest)) {
            if (buf instanceof long[] w) {
                local.send(w, offset, length, dest % k, tag);
            } else {
                local.send((double[]) buf, offset, length, dest % k, tag);
            }
            return;
        }
        calls.postSend(buf, offset, length, dest / k, mpiTag(tag, local.rank(), dest % k));
        calls.finishSend(deadline(), dest, tag);
    }

    private int anyRecv(Object buf, int offset, int length, int source, int tag) {
        if (here(source)) {
            return buf instanceof long[] w ? local.recv(w, offset, length, source % k, tag)
                : local.recv((double[]) buf, offset, length, source % k, tag);
        }
        calls.postRecv(buf instanceof long[], length, source / k, mpiTag(tag, source % k, local.rank()));
        return calls.finishRecv(buf, offset, length, deadline(), source, tag);
    }

    /** At least one side crosses processes: post the MPI halves, do the local half, then finish the MPI halves. */
    private int mixedSendRecv(Object sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                              Object recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        boolean remoteIn = !here(source);
        boolean remoteOut = !here(dest);
        if (remoteIn) {
            calls.postRecv(recvBuf instanceof long[], recvLength, source / k, mpiTag(recvTag, source % k, local.rank()));
        }
        if (remoteOut) {
            calls.postSend(sendBuf, sendOffset, sendLength, dest / k, mpiTag(sendTag, local.rank(), dest % k));
        } else {
            anySend(sendBuf, sendOffset, sendLength, dest, sendTag);
        }
        int n = remoteIn ? calls.finishRecv(recvBuf, recvOffset, recvLength, deadline(), source, recvTag)
            : anyRecv(recvBuf, recvOffset, recvLength, source, recvTag);
        if (remoteOut) {
            calls.finishSend(deadline(), dest, sendTag);
        }
        return n;
    }

    /** The process's ranks meet, and the last to arrive waits at MPI's barrier for the other processes. */
    @Override
    public void barrier() {
        meet(null, 0, BARRIER);
    }

    private static final ProcessGroup.Step BARRIER = (buffers, offsets, leaders) -> {
        if (leaders.size() > 1) {
            leaders.barrier();
        }
    };

    @Override
    public double wtime() {
        return System.nanoTime() * 1e-9;
    }

    @Override
    public String backend() {
        return "mpi";
    }

    @Override
    public void epoch(int epoch) {
        if (local.rank() == 0) {
            process.world.epoch(epoch);
        }
    }

    @Override
    public Optional<ProcessGroup> processGroup() {
        return group;
    }

    @Override
    public int localRank() {
        return local.rank();
    }

    @Override
    public int localSize() {
        return k;
    }

    @Override
    public long lateNanos() {
        return process.meeting.lateNanos(local.rank());
    }

    @Override
    public long lastLateNanos() {
        return process.meeting.lastLateNanos(local.rank());
    }

    @Override
    public void meet(Object buf, int offset, ProcessGroup.Step step) {
        process.meeting.meet(local.rank(), buf, offset, step, process.world);
    }
}
