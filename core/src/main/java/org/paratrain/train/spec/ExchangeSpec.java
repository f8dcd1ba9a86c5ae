package org.paratrain.train.spec;

import java.util.Locale;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Allreduces;

/**
 * How the ranks combine their gradients: the scheme (the paper's master-worker, an
 * allreduce after which every rank updates, or the local ranks' shared step), the algorithm
 * that moves the data, or
 * {@link Scheme#AUTO} for the fastest, decided before training starts: by the cost model, or on MPI
 * measured by the ranks on the job's links.
 *
 * @param scheme    how the ranks cooperate
 * @param algorithm the allreduce algorithm ({@link Allreduces#names()}) for {@link Scheme#ALLREDUCE}, the
 *                  allreduce whose halves shard the optimizer ({@link AllreduceHalves#names()}) for
 *                  {@link Scheme#SHARDED}; empty otherwise
 * @param sum       how the partial gradients are added up; null for the default,
 *                  {@link Sum#DEFAULT_FIXED} for every scheme (so that every exchange gives the same
 *                  bits), which {@link Scheme#AUTO} keeps until the scheme is chosen
 */
public record ExchangeSpec(Scheme scheme, String algorithm, Sum sum) {

    /** How the ranks cooperate. */
    public enum Scheme {
        /** Gather to rank 0, which updates and sends the weights back (the paper's scheme). */
        MASTER_WORKER,
        /** An allreduce of the gradient, after which every rank updates its own copy. */
        ALLREDUCE,
        /**
         * A sharded optimizer (as ZeRO stage 1): a reduce-scatter of the gradient, each rank
         * updating its own slice of the parameters with its own slice of the optimizer state,
         * and an allgather of the parameters: the halves of the ring, of Rabenseifner's allreduce
         * (recursive halving and doubling) or of MPI's own; a one-vector sum only.
         */
        SHARDED,
        /**
         * Ranks that are threads of one JVM (the local backend) take a step's blocks a chunk at
         * a time as they are ready, into tables they share, and whoever finds every chunk done
         * sums the rows in block order: no rank waits for one that is off its core. No messages.
         */
        SHARED,
        /** Not chosen yet: the cost model (on MPI, the ranks' measurement) picks among the others before training. */
        AUTO
    }

    /**
     * How the partial gradients of the blocks are added up. Every sum but {@link #FLOAT} gives
     * the same bits at any node count.
     */
    public enum Sum {
        /**
         * Every block's partial is kept apart (a table of blocks x (parameters + 1) doubles) and
         * added in block order: the bits of a one-rank block-ordered sum; traffic grows with blocks.
         */
        BLOCKS("blocks", 0),
        /** One 64-bit fixed-point word a value (see {@code collective.sum}): the traffic of a double allreduce. */
        FIXED_1("fixed:1", 1),
        /** Two 64-bit fixed-point words a value: more accurate than a double sum. */
        FIXED_2("fixed:2", 2),
        /**
         * Half a 64-bit word a value, two signed 32-bit lanes a word: half the bytes on the wire of
         * a double allreduce, for float32 networks on links of finite bandwidth; the same bits at
         * any node count, an error relative to a segment's largest magnitude near float32's.
         */
        FIXED_HALF("fixed:half", 1),
        /** A plain double allreduce of each rank's sum: not reproducible across node counts; the baseline. */
        FLOAT("float", 1);

        /** What {@code fixed} means: the format chosen by measurement (see the README). */
        public static final Sum DEFAULT_FIXED = FIXED_1;

        private final String label;
        private final int words;

        Sum(String label, int words) {
            this.label = label;
            this.words = words;
        }

        /** {@return the name, as on the command line ({@code fixed:2})} */
        public String label() {
            return label;
        }

        /** {@return 64-bit words sent a value by an allreduce of one vector; 0 for the block table, 0.5 for fixed:half} */
        public double wordsPerValue() {
            return this == FIXED_HALF ? 0.5 : words;
        }

        /** {@return whether this is a fixed-point sum of one vector: fixed:1, fixed:2 or fixed:half} */
        public boolean fixed() {
            return this == FIXED_1 || this == FIXED_2 || this == FIXED_HALF;
        }

        /**
         * The sum of this name.
         *
         * @param s {@code fixed}, {@code fixed:1}, {@code fixed:2}, {@code fixed:half}, {@code blocks} or {@code float}
         * @return the sum
         * @throws SpecException for any other name
         */
        public static Sum parse(String s) {
            if (s.equals("fixed")) {
                return DEFAULT_FIXED;
            }
            for (Sum v : values()) {
                if (v.label.equals(s)) {
                    return v;
                }
            }
            throw new SpecException("sum", "must be fixed, fixed:1, fixed:2, fixed:half, blocks or float, got '" + s + "'");
        }
    }

    /** The paper's scheme. */
    public static final ExchangeSpec MASTER_WORKER = new ExchangeSpec(Scheme.MASTER_WORKER, "", Sum.DEFAULT_FIXED);

    /** The local ranks' shared step, with the default sum. */
    public static final ExchangeSpec SHARED = new ExchangeSpec(Scheme.SHARED, "", Sum.DEFAULT_FIXED);

    /** The fastest, to be chosen before training (by the cost model, or on MPI by the ranks' measurement). */
    public static final ExchangeSpec AUTO = new ExchangeSpec(Scheme.AUTO, "", null);

    /**
     * Checks that an allreduce names a known algorithm and that the other schemes name none.
     * Every scheme sums onto the fixed-point grid unless told otherwise: one default, so that
     * the same command gives the same bits whichever exchange runs it.
     */
    public ExchangeSpec {
        SpecException.check(scheme != null, "exchange", "must be given");
        algorithm = algorithm == null ? "" : algorithm;
        if (sum == null && scheme != Scheme.AUTO) {
            sum = Sum.DEFAULT_FIXED;
        }
        if (scheme == Scheme.SHARDED) {
            SpecException.check(AllreduceHalves.names().contains(algorithm), "exchange", shardedMessage(algorithm));
            if (sum == Sum.BLOCKS || sum == Sum.FIXED_HALF) {
                throw new SpecException("sum", "must be fixed, fixed:1, fixed:2 or float with a sharded optimizer "
                    + "(it reduce-scatters one vector of whole words), got " + sum.label());
            }
        } else if (scheme == Scheme.ALLREDUCE) {
            SpecException.check(Allreduces.names().contains(algorithm), "exchange", "must be one of "
                + String.join(", ", Allreduces.names()) + ", master-worker, shared or auto, got '" + algorithm + "'");
        } else {
            SpecException.check(algorithm.isEmpty(), "exchange", "of scheme "
                + scheme.name().toLowerCase(Locale.ROOT) + " takes no algorithm, got '" + algorithm + "'");
        }
    }

    /**
     * The exchange of this name, as the command line and the records write it.
     *
     * @param name {@code master-worker}, {@code shared}, {@code auto} or an allreduce algorithm ({@code ring})
     * @return the spec
     * @throws SpecException listing the names, for any other
     */
    public static ExchangeSpec parse(String name) {
        return parse(name, null);
    }

    /**
     * The exchange of this name with this sum.
     *
     * @param name {@code master-worker}, {@code shared}, {@code auto} or an allreduce algorithm ({@code ring})
     * @param sum  the sum, or null for the scheme's default
     * @return the spec
     * @throws SpecException if the name is unknown or the sum does not suit the scheme
     */
    public static ExchangeSpec parse(String name, Sum sum) {
        return switch (name) {
            case "master-worker" -> new ExchangeSpec(Scheme.MASTER_WORKER, "", sum);
            case "shared" -> new ExchangeSpec(Scheme.SHARED, "", sum);
            case "auto" -> new ExchangeSpec(Scheme.AUTO, "", sum);
            default -> new ExchangeSpec(Scheme.ALLREDUCE, name, sum);
        };
    }

    /** {@return the name, as the command line and the records write it ({@code ring}, {@code master-worker})} */
    public String label() {
        return switch (scheme) {
            case MASTER_WORKER -> "master-worker";
            case SHARED -> "shared";
            case AUTO -> "auto";
            case ALLREDUCE, SHARDED -> algorithm;
        };
    }

    /**
     * {@return this exchange with the optimizer sharded over the ranks (see {@link Scheme#SHARDED})}
     * @throws SpecException unless this is an allreduce that comes in halves
     *                       ({@link AllreduceHalves#names()}) with a one-vector sum
     */
    public ExchangeSpec sharded() {
        SpecException.check(scheme == Scheme.ALLREDUCE, "exchange", shardedMessage(label()));
        return new ExchangeSpec(Scheme.SHARDED, algorithm, sum);
    }

    private static String shardedMessage(String got) {
        return "of a sharded optimizer must be " + String.join(", ", AllreduceHalves.names()) + " (an allreduce that "
            + "is a reduce-scatter and an allgather), got '" + got + "'";
    }

    /** {@return whether the exchange is still to be chosen} */
    public boolean isAuto() {
        return scheme == Scheme.AUTO;
    }
}
