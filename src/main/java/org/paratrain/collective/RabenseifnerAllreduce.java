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
    private int[] disps = new int[0];

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
        if (disps.length < pof2 + 1) {
            disps = new int[pof2 + 1];
        }
        for (int i = 0; i <= pof2; i++) {
            disps[i] = (int) ((long) length * i / pof2);     // chunk i is [disps[i], disps[i+1])
        }
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
            int n = disps[keepHi] - disps[keepLo];
            op.sendRecv(comm, buf, offset + disps[sendLo], disps[sendHi] - disps[sendLo], partner, TAG,
                in, 0, n, partner);
            op.combine(buf, offset + disps[keepLo], in, 0, n);
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
            op.sendRecv(comm, buf, offset + disps[lo], disps[hi] - disps[lo], partner, TAG,
                buf, offset + disps[otherLo], disps[otherHi] - disps[otherLo], partner);
            lo = Math.min(lo, otherLo);
            hi = Math.max(hi, otherHi);
        }
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
