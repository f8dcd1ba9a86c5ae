package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Allgather by recursive doubling: in the round of ranks {@code m} apart ({@code m} from 1 up
 * to p/2), each rank swaps everything it has with its partner, so that the range of chunks it
 * holds doubles; after log2 p rounds every rank has every chunk. A non-power of two is folded
 * first: each even rank of the first {@code 2 rem} gives its chunk to the odd rank after it,
 * which then stands for both among the {@code pof2} ranks, and at the end sends the even rank
 * the whole vector ({@link Fold}).
 *
 * <p>Cost (Thakur et al. 2005), for a power of two:
 * {@code log2 p alpha + ((p-1)/p) n beta}: the ring's bandwidth in log2 p messages. Otherwise,
 * with {@code pof2 = 2^floor(log2 p)} and {@code rem = p - pof2}:
 * {@code log2 pof2 alpha + S (n/p) beta}, with
 * {@code S = sum over m = 1, 2, .., pof2/2 of (m + min(m, rem))} chunks to the busiest rank, as
 * in {@link RecursiveHalvingReduceScatter}, plus {@code alpha + (n/p) beta} to fold in and
 * {@code alpha + n beta} to fold out.
 */
public final class RecursiveDoublingAllgather implements Allgather {
    private static final int TAG = 32008;

    /** An instance for one rank. */
    public RecursiveDoublingAllgather() { }

    @Override
    public <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type) {
        chunks.requireRanks(comm.size());
        int v = foldIn(comm, buf, offset, chunks, type);
        if (v >= 0) {
            doubling(comm, buf, offset, chunks, type, v);
        }
        Fold.out(comm, buf, offset, chunks.length(), type);
    }

    /** Each even rank of the first {@code 2 rem} gives its chunk to the odd one; returns the power-of-two rank, or -1. */
    private static <A> int foldIn(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type) {
        int rank = comm.rank();
        int rem = comm.size() - Fold.pof2(comm.size());
        if (rank >= 2 * rem) {
            return rank - rem;
        }
        int even = rank - rank % 2;
        if (rank == even) {
            type.send(comm, buf, offset + chunks.start(even), chunks.size(even), rank + 1, TAG);
            return -1;
        }
        type.recv(comm, buf, offset + chunks.start(even), chunks.size(even), even, TAG);
        return rank / 2;
    }

    /** The rounds among the power of two; {@code v} is this rank's number there. */
    private static <A> void doubling(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type, int v) {
        int p = comm.size();
        int lo = v;
        int hi = v + 1;                         // the power-of-two ranks whose chunks this rank has
        for (int mask = 1; mask < Fold.pof2(p); mask <<= 1) {
            int partner = Fold.real(v ^ mask, p);
            boolean lower = (v & mask) == 0;
            int otherLo = lower ? hi : lo - mask;
            int otherHi = lower ? hi + mask : lo;
            int mine = chunks.start(Fold.firstChunk(lo, p));
            int theirs = chunks.start(Fold.firstChunk(otherLo, p));
            type.sendRecv(comm, buf, offset + mine, chunks.start(Fold.firstChunk(hi, p)) - mine, partner, TAG,
                buf, offset + theirs, chunks.start(Fold.firstChunk(otherHi, p)) - theirs, partner);
            lo = Math.min(lo, otherLo);
            hi = Math.max(hi, otherHi);
        }
    }

    @Override
    public String name() {
        return "recursive-doubling";
    }

    @Override
    public double cost(int p, long n, Allreduce.Machine m) {
        double chunk = 8.0 * n / p;
        double rounds = Integer.numberOfTrailingZeros(Fold.pof2(p)) * m.alpha() + Fold.busiestChunks(p) * chunk * m.beta();
        if (Integer.bitCount(p) == 1) {
            return rounds;
        }
        return rounds + 2 * m.alpha() + (chunk + 8.0 * n) * m.beta();
    }
}
