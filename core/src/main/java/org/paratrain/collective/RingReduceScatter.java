package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Reduce-scatter around a ring: in p - 1 steps each rank sends one chunk to its successor and
 * adds the chunk it receives from its predecessor, so that rank r ends holding its own chunk r
 * reduced over every rank. The first half of {@link RingAllreduce}; with {@link RingAllgather}
 * after it, the whole of it.
 *
 * <p>Cost: {@code (p-1) alpha + ((p-1)/p) n (beta + gamma)} for {@code n} values of 8 bytes:
 * the least data any reduce-scatter sends, in the most messages. Chunk c is combined in one
 * fixed order, starting at rank c + 1 and ending at rank c.
 */
public final class RingReduceScatter implements ReduceScatter {
    private static final int TAG = 32005;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its receive buffer is sized by the first call and reused after. */
    public RingReduceScatter() { }

    @Override
    public <A> void reduceScatter(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op) {
        chunks.requireRanks(comm.size());
        int p = comm.size();
        if (p == 1) {
            return;
        }
        int rank = comm.rank();
        int next = (rank + 1) % p;
        int prev = (rank - 1 + p) % p;
        A in = op.scratch(scratch, chunks.largest() + 1);
        for (int s = 0; s < p - 1; s++) {
            // Step s passes on the chunk that ends s + 1 steps later at its owner: the last step, at this rank.
            int sendChunk = Math.floorMod(rank - s - 1, p);
            int recvChunk = Math.floorMod(rank - s - 2, p);
            int n = op.sendRecv(comm, buf, offset + chunks.start(sendChunk), chunks.size(sendChunk), next, TAG,
                in, 0, chunks.size(recvChunk), prev);
            op.combine(buf, offset + chunks.start(recvChunk), in, 0, n);
        }
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public double cost(int p, long n, Allreduce.Machine m) {
        double part = (p - 1.0) / p * 8.0 * n;
        return (p - 1) * m.alpha() + part * (m.beta() + m.gamma());
    }
}
