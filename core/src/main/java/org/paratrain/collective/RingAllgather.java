package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Allgather around a ring: each rank starts with its own chunk r and in p - 1 steps passes on
 * the chunk it last received, so every rank ends with every chunk. The second half of
 * {@link RingAllreduce}.
 *
 * <p>Cost: {@code (p-1) alpha + ((p-1)/p) n beta} for {@code n} values of 8 bytes: the least
 * data any allgather sends, in the most messages.
 */
public final class RingAllgather implements Allgather {
    private static final int TAG = 32006;

    /** An instance for one rank. */
    public RingAllgather() { }

    @Override
    public <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type) {
        chunks.requireRanks(comm.size());
        int p = comm.size();
        if (p == 1) {
            return;
        }
        int rank = comm.rank();
        int next = (rank + 1) % p;
        int prev = (rank - 1 + p) % p;
        for (int s = 0; s < p - 1; s++) {
            // Step s passes on the chunk received in step s - 1 (at first, the own one).
            int sendChunk = Math.floorMod(rank - s, p);
            int recvChunk = Math.floorMod(rank - s - 1, p);
            type.sendRecv(comm, buf, offset + chunks.start(sendChunk), chunks.size(sendChunk), next, TAG,
                buf, offset + chunks.start(recvChunk), chunks.size(recvChunk), prev);
        }
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public double cost(int p, long n, Allreduce.Machine m) {
        return (p - 1) * m.alpha() + (p - 1.0) / p * 8.0 * n * m.beta();
    }
}
