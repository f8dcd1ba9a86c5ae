package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * A binomial-tree reduce to rank 0 followed by a binomial-tree broadcast from it.
 *
 * <p>Cost: {@code 2 ceil(log2 p) (alpha + n beta) + ceil(log2 p) n gamma}. Latency grows
 * with log p instead of p, but every step moves the whole vector, so for long vectors it
 * loses to the ring and to Rabenseifner's algorithm.
 */
public final class BinomialTreeAllreduce implements Allreduce {
    private static final int TAG = 32002;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public BinomialTreeAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        int rank = comm.rank();
        A in = op.scratch(scratch, length);
        // Reduce: in round k, ranks with bit k set send to the rank 2^k below and drop out.
        int mask = 1;
        for (; mask < p; mask <<= 1) {
            if ((rank & mask) != 0) {
                op.send(comm, buf, offset, length, rank - mask, TAG);
                break;
            }
            if (rank + mask < p) {
                op.recv(comm, in, 0, length, rank + mask, TAG);
                op.combine(buf, offset, in, 0, length);
            }
        }
        // Broadcast: the same tree backwards; a rank first receives from the parent it sent to.
        if (rank != 0) {
            op.recv(comm, buf, offset, length, rank - mask, TAG);
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (rank + mask < p && (rank & mask) == 0 && (rank & (mask - 1)) == 0) {
                op.send(comm, buf, offset, length, rank + mask, TAG);
            }
        }
    }

    @Override
    public String name() {
        return "tree";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        int steps = log2Ceil(p);
        double bytes = 8.0 * n;
        return 2.0 * steps * (m.alpha() + bytes * m.beta()) + steps * bytes * m.gamma();
    }

    /** ceil(log2 p): the rounds of a tree over p ranks. */
    private static int log2Ceil(int p) {
        return 32 - Integer.numberOfLeadingZeros(Math.max(1, p) - 1);
    }
}
