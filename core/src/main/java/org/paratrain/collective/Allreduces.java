package org.paratrain.collective;

import java.util.List;
import java.util.function.Supplier;

/** The allreduce algorithms by name, each made fresh (an instance belongs to one rank). */
public final class Allreduces {
    private Allreduces() { }

    private static final List<String> NAMES = List.of("star", "tree", "recursive-doubling", "ring", "rabenseifner",
        "native");

    /** {@return every algorithm's name, in order of introduction, MPI's own ({@code native}) last} */
    public static List<String> names() {
        return NAMES;
    }

    /** {@return the names of the point-to-point algorithms, which run on every backend} */
    public static List<String> portableNames() {
        return NAMES.subList(0, NAMES.size() - 1);
    }

    /**
     * {@return a new instance of the algorithm called {@code name}, for one rank}
     * @param name one of {@link #names()}
     * @throws IllegalArgumentException listing the names, if {@code name} is none of them
     */
    public static Allreduce create(String name) {
        return factory(name).get();
    }

    /**
     * {@return the algorithm called {@code name} for a rank of {@code comm}: in its two-level
     * form ({@link HierarchicalAllreduce}) where several of the job's ranks share a process}
     * @param name one of {@link #names()}
     * @param comm the rank's communicator
     * @throws IllegalArgumentException listing the names, if {@code name} is none of them
     */
    public static Allreduce create(String name, org.paratrain.comm.Communicator comm) {
        Allreduce a = create(name);
        return comm.processGroup().isPresent() ? new HierarchicalAllreduce(a) : a;
    }

    private static Supplier<Allreduce> factory(String name) {
        return switch (name) {
            case "star" -> StarAllreduce::new;
            case "tree" -> BinomialTreeAllreduce::new;
            case "recursive-doubling" -> RecursiveDoublingAllreduce::new;
            case "ring" -> RingAllreduce::new;
            case "rabenseifner" -> RabenseifnerAllreduce::new;
            case "native" -> NativeAllreduce::new;
            default -> throw new IllegalArgumentException("no allreduce algorithm named '" + name + "'; there are "
                + String.join(", ", NAMES));
        };
    }
}
