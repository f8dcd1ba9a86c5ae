package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Rabenseifner's algorithm: a reduce-scatter by recursive halving (each round, a rank
 * keeps half of its current range, sends the other half to its partner and adds the half
 * it receives), then an allgather by recursive doubling (the same rounds backwards, the
 * ranges growing again). Non-powers of two are folded first ({@link Fold}).
 *
 * <p>Cost: {@code 2 log2 p alpha + 2 (p-1)/p n beta + (p-1)/p n gamma} (plus the fold):
 * the ring's bandwidth with the tree's number of rounds, so the best for long vectors on
 * many ranks. Each element is summed on one rank, in one fixed order, and then copied, so
 * every rank gets the same bits.
 */
public final class RabenseifnerAllreduce implements Allreduce {
    private static final int TAG = 32006;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public RabenseifnerAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        int v = Fold.in(comm, buf, offset, length, op, scratch);
        if (v >= 0 && p > 1) {
            exchange(comm, buf, offset, length, op, v, Fold.pof2(p));
        }
        Fold.out(comm, buf, offset, length, op);
    }

    private <A> void exchange(Communicator comm, A buf, int offset, int length, Reduction<A> op, int v, int pof2) {
        int p = comm.size();
        int log = Integer.numberOfTrailingZeros(pof2);
        A in = op.scratch(scratch, length);
        int lo = 0;
        int hi = pof2;                                        // this rank's range of chunks
        // Reduce-scatter: partners 1, 2, 4, ... apart; the lower of two keeps the lower half.
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int partner = Fold.real(v ^ mask, p);
            int mid = lo + (hi - lo) / 2;
            boolean lower = (v & mask) == 0;
            int keepLo = lower ? lo : mid;
            int keepHi = lower ? mid : hi;
            int sendLo = lower ? mid : lo;
            int sendHi = lower ? hi : mid;
            int keep = start(length, keepLo, log);
            int n = start(length, keepHi, log) - keep;
            int send = start(length, sendLo, log);
            op.sendRecv(comm, buf, offset + send, start(length, sendHi, log) - send, partner, TAG,
                in, 0, n, partner);
            op.combine(buf, offset + keep, in, 0, n);
            lo = keepLo;
            hi = keepHi;
        }
        // Allgather: the same partners in reverse; each round the owned range doubles.
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int partner = Fold.real(v ^ mask, p);
            int size = hi - lo;
            boolean lower = (v & mask) == 0;
            int otherLo = lower ? hi : lo - size;
            int otherHi = lower ? hi + size : lo;
            int own = start(length, lo, log);
            int other = start(length, otherLo, log);
            op.sendRecv(comm, buf, offset + own, start(length, hi, log) - own, partner, TAG,
                buf, offset + other, start(length, otherHi, log) - other, partner);
            lo = Math.min(lo, otherLo);
            hi = Math.max(hi, otherHi);
        }
    }

    /**
     * The first value of chunk {@code i} of the {@code 2^log} chunks (chunk i is
     * {@code [start(i), start(i + 1))}). Computed, not kept in a table: a table of 2^log + 1 on
     * every rank is p^2 over a local job's ranks (64 MB at 4,096).
     */
    private static int start(int length, int i, int log) {
        return (int) (((long) length * i) >> log);
    }

    @Override
    public String name() {
        return "rabenseifner";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        int steps = Integer.numberOfTrailingZeros(Fold.pof2(p));
        double bytes = 8.0 * n;
        double part = (Fold.pof2(p) - 1.0) / Fold.pof2(p);
        return 2.0 * steps * m.alpha() + 2.0 * part * bytes * m.beta() + part * bytes * m.gamma()
            + Fold.cost(p, n, m);
    }
}
