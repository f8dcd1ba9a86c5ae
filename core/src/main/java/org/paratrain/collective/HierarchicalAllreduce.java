package org.paratrain.collective;

import java.util.Optional;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.ProcessGroup;

/**
 * An allreduce in two levels, where several ranks share a process
 * ({@link Communicator#processGroup()}): once the process's ranks have met, the last to
 * arrive combines their vectors in shared memory (in local-rank order) into local rank 0's,
 * runs the chosen algorithm between processes on it, and copies the result into the others';
 * then all go on. One vector a process crosses the network instead of one a rank, and with
 * more ranks than cores a step costs one meeting of the process's threads, not the messages
 * of an algorithm among them.
 *
 * <p>Bits: a word sum (the fixed-point sum's) is exact, so it is the same whatever the
 * grouping. For a double sum every element is added in local-rank order, then as the
 * algorithm between processes adds: the same bits on every rank and every run, but not those
 * of a flat allreduce (the plain double sum is not reproducible across layouts anyway).
 *
 * <p>Cost: the algorithm's between processes (on {@code p / K} processes), plus two passes
 * over the K vectors in memory and one meeting of the process's threads. Where there is no
 * process group it is the algorithm itself.
 */
public final class HierarchicalAllreduce implements Allreduce {
    private final Allreduce between;

    /**
     * The two-level form of {@code between}.
     *
     * @param between the algorithm run between processes
     */
    public HierarchicalAllreduce(Allreduce between) {
        this.between = between;
    }

    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        Optional<ProcessGroup> group = comm.processGroup();
        if (group.isEmpty()) {
            between.allreduce(comm, buf, offset, length, op);
            return;
        }
        // The step reads these fields (every rank of a process passes the same length and
        // reduction), so a step allocates nothing.
        this.length = length;
        this.op = op;
        group.get().meet(buf, offset, step);
    }

    private int length;
    private Reduction<?> op;
    private final ProcessGroup.Step step = this::combine;

    @SuppressWarnings("unchecked")
    private <A> void combine(Object[] buffers, int[] offsets, Communicator leaders) {
        Reduction<A> r = (Reduction<A>) op;
        A lead = (A) buffers[0];
        for (int t = 1; t < buffers.length; t++) {
            r.combine(lead, offsets[0], (A) buffers[t], offsets[t], length);
        }
        if (leaders.size() > 1) {
            between.allreduce(leaders, lead, offsets[0], length, r);
        }
        for (int t = 1; t < buffers.length; t++) {
            System.arraycopy(lead, offsets[0], buffers[t], offsets[t], length);
        }
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
