package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * The ring: the vector is cut into p chunks; in p-1 steps of a reduce-scatter each rank
 * passes one chunk to the next rank, which adds it to its own, until rank r holds the full
 * sum of chunk r+1; in p-1 steps of an allgather the finished chunks travel round the ring.
 *
 * <p>Cost: {@code 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma}: bandwidth-optimal,
 * but 2(p-1) messages, so best for long vectors on few ranks. Each chunk is summed in one
 * fixed order along the ring and then copied, so every rank gets the same bits.
 */
public final class RingAllreduce implements Allreduce {
    private static final int TAG = 32005;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public RingAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        if (p == 1) {
            return;
        }
        int rank = comm.rank();
        int next = (rank + 1) % p;
        int prev = (rank - 1 + p) % p;
        A in = op.scratch(scratch, length / p + 1);
        for (int s = 0; s < p - 1; s++) {
            int sendChunk = Math.floorMod(rank - s, p);
            int recvChunk = Math.floorMod(rank - s - 1, p);
            int n = op.sendRecv(comm, buf, offset + start(sendChunk, length, p), size(sendChunk, length, p), next, TAG,
                in, 0, size(recvChunk, length, p), prev);
            op.combine(buf, offset + start(recvChunk, length, p), in, 0, n);
        }
        for (int s = 0; s < p - 1; s++) {
            int sendChunk = Math.floorMod(rank + 1 - s, p);
            int recvChunk = Math.floorMod(rank - s, p);
            op.sendRecv(comm, buf, offset + start(sendChunk, length, p), size(sendChunk, length, p), next, TAG,
                buf, offset + start(recvChunk, length, p), size(recvChunk, length, p), prev);
        }
    }

    private static int start(int chunk, int length, int p) {
        return (int) ((long) length * chunk / p);
    }

    private static int size(int chunk, int length, int p) {
        return start(chunk + 1, length, p) - start(chunk, length, p);
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        double bytes = 8.0 * n;
        double part = (p - 1.0) / p;
        return 2.0 * (p - 1) * m.alpha() + 2.0 * part * bytes * m.beta() + part * bytes * m.gamma();
    }
}
