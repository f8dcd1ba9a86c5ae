package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Recursive doubling: in round k each rank exchanges its whole vector with the rank whose
 * number differs in bit k, and both add. After log2 p rounds every rank holds the sum.
 *
 * <p>Cost: {@code log2 p (alpha + n beta + n gamma)}, plus the fold for non-powers of two.
 * The fewest messages of all, so the choice for short vectors; long vectors pay n per round.
 * Both partners combine the same two values, and every {@link Reduction} commutes, so all
 * ranks stay equal.
 */
public final class RecursiveDoublingAllreduce implements Allreduce {
    private static final int TAG = 32004;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public RecursiveDoublingAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        int v = Fold.in(comm, buf, offset, length, op, scratch);
        if (v >= 0) {
            A in = op.scratch(scratch, length);
            for (int mask = 1; mask < Fold.pof2(p); mask <<= 1) {
                int partner = Fold.real(v ^ mask, p);
                op.sendRecv(comm, buf, offset, length, partner, TAG, in, 0, length, partner);
                op.combine(buf, offset, in, 0, length);
            }
        }
        Fold.out(comm, buf, offset, length, op);
    }

    @Override
    public String name() {
        return "recursive-doubling";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        int steps = Integer.numberOfTrailingZeros(Fold.pof2(p));
        double bytes = 8.0 * n;
        return steps * (m.alpha() + bytes * m.beta() + bytes * m.gamma()) + Fold.cost(p, n, m);
    }
}
