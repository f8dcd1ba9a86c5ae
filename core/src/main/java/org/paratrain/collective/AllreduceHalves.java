package org.paratrain.collective;

import java.util.List;

/**
 * An allreduce cut in its two halves, a reduce-scatter and an allgather over the same chunks,
 * for a sharded optimizer to update its slice in between; named after the allreduce whose
 * halves they are: {@code ring} ({@link RingReduceScatter}, {@link RingAllgather}),
 * {@code rabenseifner} ({@link RecursiveHalvingReduceScatter},
 * {@link RecursiveDoublingAllgather}) and {@code native}, MPI's own ({@link NativeReduceScatter},
 * {@link NativeAllgather}). The other allreduces have no such halves: the star, the tree and
 * recursive doubling reduce whole vectors.
 *
 * @param reduceScatter the first half
 * @param allgather     the second half
 */
public record AllreduceHalves(ReduceScatter reduceScatter, Allgather allgather) {

    private static final List<String> NAMES = List.of("ring", "rabenseifner", "native");

    /** {@return the names of the allreduces that come in halves, as {@code --allreduce} takes them} */
    public static List<String> names() {
        return NAMES;
    }

    /** {@return the names of those that run on every backend: all but MPI's own ({@code native}, last)} */
    public static List<String> portableNames() {
        return NAMES.subList(0, NAMES.size() - 1);
    }

    /**
     * {@return new halves of the allreduce called {@code name}, for one rank}
     * @param name one of {@link #names()}
     * @throws IllegalArgumentException listing the names, if {@code name} is none of them
     */
    public static AllreduceHalves create(String name) {
        return switch (name) {
            case "ring" -> new AllreduceHalves(new RingReduceScatter(), new RingAllgather());
            case "rabenseifner" -> new AllreduceHalves(new RecursiveHalvingReduceScatter(),
                new RecursiveDoublingAllgather());
            case "native" -> new AllreduceHalves(new NativeReduceScatter(), new NativeAllgather());
            default -> throw new IllegalArgumentException("an allreduce in halves must be one of "
                + String.join(", ", NAMES) + ", got '" + name + "'");
        };
    }

    /**
     * {@return the predicted seconds of both halves, each by its own formula}
     * @param p ranks
     * @param n values, 8 bytes each
     * @param m the machine
     */
    public double cost(int p, long n, Allreduce.Machine m) {
        return reduceScatter.cost(p, n, m) + allgather.cost(p, n, m);
    }
}
