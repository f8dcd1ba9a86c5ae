package org.paratrain.train.spec;

import java.util.Locale;
import org.paratrain.collective.Allreduces;

/**
 * How the ranks combine their gradients: the scheme (the paper's master-worker, or an
 * allreduce after which every rank updates), the algorithm that moves the data, or
 * {@link Scheme#AUTO} for the fastest by the cost model, decided before training starts.
 *
 * @param scheme    how the ranks cooperate
 * @param algorithm the allreduce algorithm ({@link Allreduces#names()}), for {@link Scheme#ALLREDUCE}
 *                  only; empty otherwise
 */
public record ExchangeSpec(Scheme scheme, String algorithm) {

    /** How the ranks cooperate. */
    public enum Scheme {
        /** Gather to rank 0, which updates and sends the weights back (the paper's scheme). */
        MASTER_WORKER,
        /** An allreduce of the gradient, after which every rank updates its own copy. */
        ALLREDUCE,
        /** Not chosen yet: the cost model picks among the others before training. */
        AUTO
    }

    /** The paper's scheme. */
    public static final ExchangeSpec MASTER_WORKER = new ExchangeSpec(Scheme.MASTER_WORKER, "");

    /** The cost model's choice, to be resolved before training. */
    public static final ExchangeSpec AUTO = new ExchangeSpec(Scheme.AUTO, "");

    /** Checks that an allreduce names a known algorithm, and that the other schemes name none. */
    public ExchangeSpec {
        SpecException.check(scheme != null, "exchange", "must be given");
        algorithm = algorithm == null ? "" : algorithm;
        if (scheme == Scheme.ALLREDUCE) {
            SpecException.check(Allreduces.names().contains(algorithm), "exchange", "must be one of "
                + String.join(", ", Allreduces.names()) + ", master-worker or auto, got '" + algorithm + "'");
        } else {
            SpecException.check(algorithm.isEmpty(), "exchange", "of scheme "
                + scheme.name().toLowerCase(Locale.ROOT) + " takes no algorithm, got '" + algorithm + "'");
        }
    }

    /**
     * The exchange of this name, as the command line and the records write it.
     *
     * @param name {@code master-worker}, {@code auto} or an allreduce algorithm ({@code ring})
     * @return the spec
     * @throws SpecException listing the names, for any other
     */
    public static ExchangeSpec parse(String name) {
        return switch (name) {
            case "master-worker" -> MASTER_WORKER;
            case "auto" -> AUTO;
            default -> new ExchangeSpec(Scheme.ALLREDUCE, name);
        };
    }

    /** {@return the name, as the command line and the records write it ({@code ring}, {@code master-worker})} */
    public String label() {
        return switch (scheme) {
            case MASTER_WORKER -> "master-worker";
            case AUTO -> "auto";
            case ALLREDUCE -> algorithm;
        };
    }

    /** {@return whether the cost model still has to choose} */
    public boolean isAuto() {
        return scheme == Scheme.AUTO;
    }
}
