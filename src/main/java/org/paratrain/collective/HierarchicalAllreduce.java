package org.paratrain.collective;

import java.util.Optional;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.ProcessGroup;

/**
 * An allreduce in two levels, where several ranks share a process
 * ({@link Communicator#processGroup()}): the process's ranks combine their vectors in shared
 * memory, each combining one slice of all of them into the leader's (local rank 0) vector;
 * the leaders run the chosen algorithm between processes; the others copy the leader's result.
 * One vector a process crosses the network instead of one a rank, and with more ranks than
 * cores no message between two threads of a process goes through MPI.
 *
 * <p>Bits: a word sum (the fixed-point sum's) is exact, so it is the same whatever the
 * grouping. For a double sum every element is added in local-rank order, then as the
 * algorithm between processes adds: the same bits on every rank and every run, but not those
 * of a flat allreduce (the plain double sum is not reproducible across layouts anyway).
 *
 * <p>Cost: the algorithm's between processes (on {@code p / K} processes), plus one pass over
 * the K vectors in memory and four meetings of the process's threads. Where there is no
 * process group it is the algorithm itself.
 */
public final class HierarchicalAllreduce implements Allreduce {
    private final Allreduce between;

    /**
     * The two-level form of {@code between}.
     *
     * @param between the algorithm the processes' leaders run
     */
    public HierarchicalAllreduce(Allreduce between) {
        this.between = between;
    }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        Optional<ProcessGroup> found = comm.processGroup();
        if (found.isEmpty()) {
            between.allreduce(comm, buf, offset, length, op);
            return;
        }
        ProcessGroup g = found.get();
        int me = g.localRank();
        g.publish(buf, offset);
        g.localBarrier();
        @SuppressWarnings("unchecked")
        A lead = (A) g.buffer(0);
        int leadAt = g.offset(0);
        Chunks slices = new Chunks(length, g.localSize());
        int from = slices.start(me);
        int n = slices.size(me);
        for (int t = 1; t < g.localSize(); t++) {
            @SuppressWarnings("unchecked")
            A theirs = (A) g.buffer(t);
            op.combine(lead, leadAt + from, theirs, g.offset(t) + from, n);
        }
        g.localBarrier();
        if (me == 0) {
            between.allreduce(g.leaders(), buf, offset, length, op);
        }
        g.localBarrier();
        if (me != 0) {
            System.arraycopy(lead, leadAt, buf, offset, length);
        }
        g.localBarrier();
    }

    @Override
    public String name() {
        return between.name();
    }

    @Override
    public double cost(int p, long n, Machine m) {
        return between.cost(p, n, m);
    }
}
