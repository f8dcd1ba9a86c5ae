package org.paratrain.cli.experiment;

import java.util.Arrays;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * A sweep over node counts: the same training at each count, repeated.
 *
 * @param nodes   node counts, each valid for {@link org.paratrain.train.spec.RunSpec}, no duplicates
 * @param repeats timed runs per node count, 1..1000
 * @param warmup  untimed runs per node count before timing, 0..1000 (so JIT compilation
 *                does not land on the first count measured)
 * @param warmupSeconds on the local backend, the least time the warm-up lasts in all, 0..60:
 *                rounds over every node count go on until it has passed, even after
 *                {@code warmup} of them (on MPI, where each node count is its own job, only
 *                {@code warmup} counts)
 * @param base    training settings; its node count is replaced by each of {@code nodes}; its exchange
 *                (scheme, algorithm and sum) is every run's, and must be named, not auto
 */
public record SweepSpec(int[] nodes, int repeats, int warmup, double warmupSeconds, TrainSpec base) {
    /** The warm-up time that lets the JIT compile the paper's training before it is timed, in seconds. */
    public static final double JIT_WARMUP_SECONDS = 1.0;

    /**
     * A sweep whose warm-up is {@code warmup} runs per node count, however short.
     *
     * @param nodes   node counts
     * @param repeats timed runs per node count
     * @param warmup  untimed runs per node count before timing
     * @param base    training settings
     */
    public SweepSpec(int[] nodes, int repeats, int warmup, TrainSpec base) {
        this(nodes, repeats, warmup, 0.0, base);
    }

    /** Validates, naming the option. */
    public SweepSpec {
        if (nodes == null || nodes.length == 0) {
            throw new IllegalArgumentException("--nodes needs at least one node count");
        }
        nodes = nodes.clone();
        for (int p : nodes) {
            base.withNodes(p);
        }
        if (base.exchange().isAuto()) {
            throw new SpecException("exchange", "auto is not for a sweep, which compares node counts with one "
                + "exchange: name it (plan predicts which is fastest)");
        }
        if (Arrays.stream(nodes).distinct().count() != nodes.length) {
            throw new IllegalArgumentException("--nodes lists a node count twice: " + Arrays.toString(nodes));
        }
        if (repeats < 1 || repeats > 1000) {
            throw new IllegalArgumentException("--repeats must be in [1, 1000], got " + repeats);
        }
        if (warmup < 0 || warmup > 1000) {
            throw new IllegalArgumentException("--warmup must be in [0, 1000], got " + warmup);
        }
        if (!(warmupSeconds >= 0 && warmupSeconds <= 60)) {
            throw new IllegalArgumentException("the warm-up time must be in [0, 60] seconds, got " + warmupSeconds);
        }
    }

    /** {@return the node counts in the order given, a copy} */
    @Override
    public int[] nodes() {
        return nodes.clone();
    }

    /** Runs in all, warm-up included. */
    int totalRuns() {
        return nodes.length * (repeats + warmup);
    }
}
