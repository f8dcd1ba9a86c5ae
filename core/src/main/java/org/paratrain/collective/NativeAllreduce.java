package org.paratrain.collective;

import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;

/**
 * MPI's own {@code MPI_Allreduce}, which picks its algorithm by size and may use the
 * hardware; available where the communicator offers {@link Communicator#nativeCollectives()}
 * (the MPI backend), and refused with a one-line message elsewhere.
 *
 * <p>Cost: taken as the better of recursive doubling and Rabenseifner, the two algorithms
 * MPICH and Open MPI choose between for sums of doubles.
 */
public final class NativeAllreduce implements Allreduce {
    private final RecursiveDoublingAllreduce shortVectors = new RecursiveDoublingAllreduce();
    private final RabenseifnerAllreduce longVectors = new RabenseifnerAllreduce();

    /** An instance for one rank; it works only on a communicator with native collectives. */
    public NativeAllreduce() { }

    /**
     * {@code MPI_Allreduce} with {@code MPI_DOUBLE} or {@code MPI_INT64_T}, and {@code MPI_SUM}
     * or {@code MPI_MAX}: MPI's own reductions, so no user-defined operation has to cross FFM.
     */
    @Override
    public <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op) {
        NativeCollectives mpi = comm.nativeCollectives().orElseThrow(() -> new IllegalArgumentException(
            "--allreduce native needs --backend mpi (it is MPI's own allreduce)"));
        boolean sum = op.kind() == Reduction.Kind.SUM;
        if (buf instanceof long[] words) {
            if (sum) {
                mpi.allreduceSum(words, offset, length);
            } else {
                mpi.allreduceMax(words, offset, length);
            }
        } else if (sum) {
            mpi.allreduceSum((double[]) buf, offset, length);
        } else {
            mpi.allreduceMax((double[]) buf, offset, length);
        }
    }

    @Override
    public String name() {
        return "native";
    }

    @Override
    public double cost(int p, long n, Machine m) {
        return Math.min(shortVectors.cost(p, n, m), longVectors.cost(p, n, m));
    }
}
