package org.paratrain.collective;

import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;

/**
 * MPI's own {@code MPI_Reduce_scatter}, with the chunks' sizes as its counts (so rank r gets
 * chunk r, as every reduce-scatter here does), on {@code MPI_DOUBLE} or {@code MPI_INT64_T}
 * with {@code MPI_SUM}; available where the communicator offers
 * {@link Communicator#nativeCollectives()} (the MPI backend), refused in one line elsewhere.
 * It sums only: no maximum is ever reduce-scattered.
 *
 * <p>Cost: taken as the better of recursive halving and the ring, between which MPICH and
 * Open MPI choose by size for a commutative sum (MPICH's pairwise exchange for long vectors
 * costs what the ring does).
 */
public final class NativeReduceScatter implements ReduceScatter {
    private final RecursiveHalvingReduceScatter shortVectors = new RecursiveHalvingReduceScatter();
    private final RingReduceScatter longVectors = new RingReduceScatter();
    private int[] counts = new int[0];

    /** An instance for one rank; it works only on a communicator with native collectives. */
    public NativeReduceScatter() { }

    @Override
    public <A> void reduceScatter(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op) {
        chunks.requireRanks(comm.size());
        NativeCollectives mpi = comm.nativeCollectives().orElseThrow(() -> new IllegalArgumentException(
            "--allreduce native needs --backend mpi (its reduce-scatter is MPI's own)"));
        if (op.kind() != Reduction.Kind.SUM) {
            throw new IllegalArgumentException("MPI's own reduce-scatter sums only, got a " + op);
        }
        counts = chunks.sizes(counts);
        if (buf instanceof long[] words) {
            mpi.reduceScatterSum(words, offset, counts);
        } else {
            mpi.reduceScatterSum((double[]) buf, offset, counts);
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
