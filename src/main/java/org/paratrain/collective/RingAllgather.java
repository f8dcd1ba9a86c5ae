package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Allgather around a ring: each rank starts with its own chunk ({@link Chunks#owned}) and in
 * p - 1 steps passes on the chunk it last received, so every rank ends with every chunk.
 * The second half of {@link RingAllreduce}.
 *
 * <p>Cost: {@code (p-1) alpha + ((p-1)/p) n beta} for {@code n} values of 8 bytes.
 */
public final class RingAllgather {
    static final int TAG = 32006;

    /** An instance for one rank. */
    public RingAllgather() { }

    /**
     * Gives every rank every chunk of {@code buf[offset, offset + length)}, each from the rank
     * that owns it.
     *
     * @param <A>    {@code double[]} or {@code long[]}
     * @param comm   the ranks; each calls this at the same point with the same chunks
     * @param buf    the vector: this rank's own chunk filled in, the rest overwritten
     * @param offset first element
     * @param chunks how the vector's {@code length} is cut
     * @param type   the element type's transport (any reduction of that type: nothing is reduced)
     */
    public <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type) {
        allgather(comm, buf, offset, chunks, type, TAG);
    }

    <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type, int tag) {
        int p = comm.size();
        if (p == 1) {
            return;
        }
        int rank = comm.rank();
        int next = (rank + 1) % p;
        int prev = (rank - 1 + p) % p;
        for (int s = 0; s < p - 1; s++) {
            int sendChunk = Math.floorMod(rank + 1 - s, p);
            int recvChunk = Math.floorMod(rank - s, p);
            type.sendRecv(comm, buf, offset + chunks.start(sendChunk), chunks.size(sendChunk), next, tag,
                buf, offset + chunks.start(recvChunk), chunks.size(recvChunk), prev);
        }
    }

    /**
     * {@return seconds to allgather {@code n} values at {@code p} ranks}
     * @param p ranks
     * @param n values
     * @param m the machine
     */
    public static double cost(int p, long n, Allreduce.Machine m) {
        return (p - 1) * m.alpha() + (p - 1.0) / p * 8.0 * n * m.beta();
    }
}
