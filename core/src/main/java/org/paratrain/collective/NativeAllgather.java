package org.paratrain.collective;

import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;

/**
 * MPI's own {@code MPI_Allgatherv}, in place, with the chunks' sizes as its counts, on
 * {@code MPI_DOUBLE} or {@code MPI_INT64_T}; available where the communicator offers
 * {@link Communicator#nativeCollectives()} (the MPI backend), refused in one line elsewhere.
 *
 * <p>Cost: taken as the better of recursive doubling and the ring, between which MPICH and
 * Open MPI choose by size (MPICH's Bruck algorithm for short vectors at non-powers of two takes
 * as many rounds as recursive doubling on a power of two).
 */
public final class NativeAllgather implements Allgather {
    private final RecursiveDoublingAllgather shortVectors = new RecursiveDoublingAllgather();
    private final RingAllgather longVectors = new RingAllgather();
    private int[] counts = new int[0];

    /** An instance for one rank; it works only on a communicator with native collectives. */
    public NativeAllgather() { }

    @Override
    public <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type) {
        chunks.requireRanks(comm.size());
        NativeCollectives mpi = comm.nativeCollectives().orElseThrow(() -> new IllegalArgumentException(
            "--allreduce native needs --backend mpi (its allgather is MPI's own)"));
        counts = chunks.sizes(counts);
        if (buf instanceof long[] words) {
            mpi.allgather(words, offset, counts);
        } else {
            mpi.allgather((double[]) buf, offset, counts);
        }
    }

    @Override
    public String name() {
        return "native";
    }

    @Override
    public double cost(int p, long n, Allreduce.Machine m) {
        return Math.min(shortVectors.cost(p, n, m), longVectors.cost(p, n, m));
    }
}
