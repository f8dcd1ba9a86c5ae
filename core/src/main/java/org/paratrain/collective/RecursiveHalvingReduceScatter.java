package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Reduce-scatter by recursive halving: in the round of ranks {@code m} apart ({@code m} from
 * p/2 down to 1), each rank sends its partner the half of its current range of chunks that the
 * partner will own, and adds the half it keeps; after log2 p rounds each rank holds its own
 * chunk reduced. A non-power of two is folded first ({@link Fold}): each even rank of the first
 * {@code 2 rem} sends its whole vector to the odd rank after it, which then reduces both
 * ranks' chunks among the {@code pof2} ranks, and at the end hands the even rank its chunk.
 *
 * <p>Cost (Thakur et al. 2005), for a power of two:
 * {@code log2 p alpha + ((p-1)/p) n (beta + gamma)}: the ring's bandwidth in log2 p messages.
 * Otherwise, with {@code pof2 = 2^floor(log2 p)} and {@code rem = p - pof2}:
 * {@code log2 pof2 alpha + S (n/p) (beta + gamma)}, where
 * {@code S = sum over m = 1, 2, .., pof2/2 of (m + min(m, rem))} chunks reach the busiest rank
 * (the ranks that stand for two own two chunks), plus {@code alpha + n (beta + gamma)} to fold in
 * and {@code alpha + (n/p) beta} to hand back. Each element is combined along one path in a
 * fixed order, ending at its owner.
 */
public final class RecursiveHalvingReduceScatter implements ReduceScatter {
    private static final int TAG = 32007;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its receive buffer is sized by the first call and reused after. */
    public RecursiveHalvingReduceScatter() { }

    @Override
    public <A> void reduceScatter(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op) {
        chunks.requireRanks(comm.size());
        int v = Fold.in(comm, buf, offset, chunks.length(), op, scratch);
        if (v >= 0) {
            halve(comm, buf, offset, chunks, op, v);
        }
        handBack(comm, buf, offset, chunks, op);
    }

    /** The rounds among the power of two; {@code v} is this rank's number there. */
    private <A> void halve(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op, int v) {
        int p = comm.size();
        A in = op.scratch(scratch, chunks.length());
        int lo = 0;
        int hi = Fold.pof2(p);                 // the power-of-two ranks whose chunks this rank still reduces
        for (int mask = hi >> 1; mask > 0; mask >>= 1) {
            int partner = Fold.real(v ^ mask, p);
            int mid = lo + mask;
            boolean lower = (v & mask) == 0;   // the lower of two keeps the lower half: its own chunk is there
            int keep = chunks.start(Fold.firstChunk(lower ? lo : mid, p));
            int keepEnd = chunks.start(Fold.firstChunk(lower ? mid : hi, p));
            int give = chunks.start(Fold.firstChunk(lower ? mid : lo, p));
            int giveEnd = chunks.start(Fold.firstChunk(lower ? hi : mid, p));
            int n = op.sendRecv(comm, buf, offset + give, giveEnd - give, partner, TAG, in, 0, keepEnd - keep, partner);
            op.combine(buf, offset + keep, in, 0, n);
            lo = lower ? lo : mid;
            hi = lower ? mid : hi;
        }
    }

    /** Each odd rank that stood for its even neighbour too sends it its chunk. */
    private static <A> void handBack(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op) {
        int rank = comm.rank();
        if (rank >= 2 * (comm.size() - Fold.pof2(comm.size()))) {
            return;
        }
        if (rank % 2 == 1) {
            op.send(comm, buf, offset + chunks.start(rank - 1), chunks.size(rank - 1), rank - 1, TAG);
        } else {
            op.recv(comm, buf, offset + chunks.start(rank), chunks.size(rank), rank + 1, TAG);
        }
    }

    @Override
    public String name() {
        return "recursive-halving";
    }

    @Override
    public double cost(int p, long n, Allreduce.Machine m) {
        double chunk = 8.0 * n / p;
        double rounds = Integer.numberOfTrailingZeros(Fold.pof2(p)) * m.alpha()
            + Fold.busiestChunks(p) * chunk * (m.beta() + m.gamma());
        if (Integer.bitCount(p) == 1) {
            return rounds;
        }
        return rounds + 2 * m.alpha() + 8.0 * n * (m.beta() + m.gamma()) + chunk * m.beta();
    }
}
