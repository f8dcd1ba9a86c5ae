package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * The paper's scheme as an allreduce: every rank sends its vector to rank 0, which adds them
 * in rank order and sends the sum back to every rank.
 *
 * <p>Cost: {@code 2(p-1) alpha + 2(p-1) n beta + (p-1) n gamma}, all of it through rank 0,
 * one message after another: the simplest scheme and the one that scales worst.
 */
public final class StarAllreduce implements Allreduce {
    private static final int TAG = 32001;
    private final Scratch scratch = new Scratch();

    /** An instance for one rank: its scratch space is sized by the first call and reused after. */
    public StarAllreduce() { }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        int p = comm.size();
        if (comm.rank() != 0) {
            op.send(comm, buf, offset, length, 0, TAG);
            op.recv(comm, buf, offset, length, 0, TAG);
            return;
        }
        A in = op.scratch(scratch, length);
        for (int r = 1; r < p; r++) {
            op.recv(comm, in, 0, length, r, TAG);
            op.combine(buf, offset, in, 0, length);
        }
        for (int r = 1; r < p; r++) {
            op.send(comm, buf, offset, length, r, TAG);
        }
    }

    @Override
    public String name() {
        return "star";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        double bytes = 8.0 * n;
        return 2.0 * (p - 1) * (m.alpha() + bytes * m.beta()) + (p - 1) * bytes * m.gamma();
    }
}
