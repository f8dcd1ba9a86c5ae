package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Reduce-scatter around a ring: in p - 1 steps each rank sends one chunk to its successor and
 * adds the chunk it receives from its predecessor, so that rank r ends holding chunk
 * {@code (r + 1) mod p} ({@link Chunks#owned}) reduced over every rank. The first half of
 * {@link RingAllreduce}; with {@link RingAllgather} after it, the whole of it.
 *
 * <p>Cost: {@code (p-1) alpha + ((p-1)/p) n (beta + gamma)} for {@code n} values of 8 bytes.
 */
public final class RingReduceScatter {
    static final int TAG = 32005;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank (it keeps a receive buffer). */
    public RingReduceScatter() { }

    /**
     * Reduces {@code buf[offset, offset + length)} over the ranks, leaving this rank's chunk
     * reduced; the other chunks hold partial sums afterwards.
     *
     * @param <A>    {@code double[]} or {@code long[]}
     * @param comm   the ranks; each calls this at the same point with the same chunks
     * @param buf    the vector, in place
     * @param offset first element
     * @param chunks how the vector's {@code length} is cut
     * @param op     the reduction (its element type is the buffer's)
     */
    public <A> void reduceScatter(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op) {
        int p = comm.size();
        if (p == 1) {
            return;
        }
        int rank = comm.rank();
        int next = (rank + 1) % p;
        int prev = (rank - 1 + p) % p;
        A in = op.scratch(scratch, chunks.largest() + 1);
        for (int s = 0; s < p - 1; s++) {
            int sendChunk = Math.floorMod(rank - s, p);
            int recvChunk = Math.floorMod(rank - s - 1, p);
            // Send the chunk reduced so far, add the predecessor's into the next one.
            int n = op.sendRecv(comm, buf, offset + chunks.start(sendChunk), chunks.size(sendChunk), next, TAG,
                in, 0, chunks.size(recvChunk), prev);
            op.combine(buf, offset + chunks.start(recvChunk), in, 0, n);
        }
    }

    /**
     * {@return seconds to reduce-scatter {@code n} values at {@code p} ranks}
     * @param p ranks
     * @param n values
     * @param m the machine
     */
    public static double cost(int p, long n, Allreduce.Machine m) {
        double part = (p - 1.0) / p * 8.0 * n;
        return (p - 1) * m.alpha() + part * (m.beta() + m.gamma());
    }
}
