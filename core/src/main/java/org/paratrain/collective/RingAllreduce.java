package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * The ring: the vector is cut into p chunks; in p-1 steps of a reduce-scatter each rank
 * passes one chunk to the next rank, which adds it to its own, until rank r holds the full
 * sum of chunk r; in p-1 steps of an allgather the finished chunks travel round the ring.
 *
 * <p>Cost: {@code 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma}: bandwidth-optimal,
 * but 2(p-1) messages, so best for long vectors on few ranks. Each chunk is summed in one
 * fixed order along the ring and then copied, so every rank gets the same bits.
 */
public final class RingAllreduce implements Allreduce {
    private final RingReduceScatter reduceScatter = new RingReduceScatter();
    private final RingAllgather allgather = new RingAllgather();
    private Chunks chunks;

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public RingAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        if (chunks == null || chunks.length() != length || chunks.p() != comm.size()) {
            chunks = new Chunks(length, comm.size());   // once per shape: no allocation a step
        }
        reduceScatter.reduceScatter(comm, buf, offset, chunks, op);
        allgather.allgather(comm, buf, offset, chunks, op);
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        return reduceScatter.cost(p, n, m) + allgather.cost(p, n, m);
    }
}
