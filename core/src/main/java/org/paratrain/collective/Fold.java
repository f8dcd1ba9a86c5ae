package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Folds a non-power-of-two group onto a power of two and back, for the algorithms that need
 * one (recursive doubling, Rabenseifner, recursive halving and doubling on chunks). With {@code pof2} the largest power of two not
 * above p and {@code rem = p - pof2}: among the first {@code 2 rem} ranks, each even rank
 * sends its vector to the odd rank after it and sits out; the odd rank combines it with its
 * own. The remaining {@code pof2} ranks are renumbered {@code 0..pof2-1}; afterwards each odd
 * rank sends the result back to the even rank it stood in for. Cost: two extra steps of
 * {@code alpha + n beta} (and one {@code n gamma}) when p is not a power of two.
 */
final class Fold {
    private Fold() { }

    static final int TAG = 32003;

    static int pof2(int p) {
        return Integer.highestOneBit(p);
    }

    /** Folds in; returns this rank's number among the power of two, or -1 if it sits out. */
    static <A> int in(Communicator comm, A buf, int offset, int length, Reduction<A> op, Scratch scratch) {
        int p = comm.size();
        int rank = comm.rank();
        int rem = p - pof2(p);
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                op.send(comm, buf, offset, length, rank + 1, TAG);
                return -1;
            }
            A in = op.scratch(scratch, length);
            op.recv(comm, in, 0, length, rank - 1, TAG);
            op.combine(buf, offset, in, 0, length);
            return rank / 2;
        }
        return rank - rem;
    }

    /** The real rank of power-of-two rank {@code v}. */
    static int real(int v, int p) {
        int rem = p - pof2(p);
        return v < rem ? 2 * v + 1 : v + rem;
    }

    /**
     * The first of the p chunks (one a real rank, {@link Chunks}) that power-of-two rank
     * {@code v} stands for: two for a rank that took in its even neighbour, one for the others,
     * so that the chunks of ranks {@code v..w-1} are those from {@code firstChunk(v)} to
     * {@code firstChunk(w)}; {@code firstChunk(pof2)} is p.
     */
    static int firstChunk(int v, int p) {
        int rem = p - pof2(p);
        return v <= rem ? 2 * v : v + rem;
    }

    /**
     * The chunks power-of-two rank 0 receives over the rounds of a recursive halving or doubling
     * on the chunks of {@link #firstChunk}, the most of any rank: in the round of ranks {@code m}
     * apart, ranks {@code 0..m-1}, of which {@code min(m, rem)} stand for two. {@code p - 1}
     * for a power of two.
     */
    static long busiestChunks(int p) {
        int rem = p - pof2(p);
        long chunks = 0;
        for (int m = 1; m < pof2(p); m <<= 1) {
            chunks += m + Math.min(m, rem);
        }
        return chunks;
    }

    /** Folds out: the ranks that sat out get the result. */
    static <A> void out(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        int rank = comm.rank();
        int rem = p - pof2(p);
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                op.recv(comm, buf, offset, length, rank + 1, TAG);
            } else {
                op.send(comm, buf, offset, length, rank - 1, TAG);
            }
        }
    }

    /** The extra cost of folding when p is not a power of two. */
    static double cost(int p, long n, Allreduce.Machine m) {
        if (Integer.bitCount(p) == 1) {
            return 0.0;
        }
        double bytes = 8.0 * n;
        return 2.0 * (m.alpha() + bytes * m.beta()) + bytes * m.gamma();
    }
}
