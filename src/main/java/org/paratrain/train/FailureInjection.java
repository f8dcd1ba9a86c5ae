package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.model.Model;

/**
 * Makes one rank throw in one epoch, to check how a job ends when a rank fails (the
 * command line's hidden {@code --inject-failure RANK:EPOCH}).
 *
 * @param rank  the rank that fails
 * @param epoch the epoch (1-based) in which it fails
 */
public record FailureInjection(int rank, int epoch) {

    /** Parses {@code RANK:EPOCH}. */
    public static FailureInjection parse(String s) {
        String[] parts = s.split(":");
        try {
            return new FailureInjection(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--inject-failure must be RANK:EPOCH, got '" + s + "'");
        }
    }

    /** The model to use on {@code myRank}: {@code model} itself, or one that fails on time. */
    public Model wrap(Model model, int myRank) {
        return myRank != rank ? model : new Failing(model, epoch);
    }

    private static final class Failing implements Model {
        private final Model inner;
        private final int failAtEpoch;
        private int epoch;
        private int firstFrom = -1;

        Failing(Model inner, int failAtEpoch) {
            this.inner = inner;
            this.failAtEpoch = failAtEpoch;
        }

        @Override
        public int parameterCount() {
            return inner.parameterCount();
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
            if (firstFrom < 0) {
                firstFrom = from;
            }
            if (from == firstFrom) {
                epoch++;   // a rank visits its first block once per epoch
            }
            if (epoch == failAtEpoch) {
                throw new IllegalStateException("failure injected on purpose");
            }
            return inner.lossAndGradient(data, from, to, params, grad, offset);
        }

        @Override
        public double loss(Dataset data, int from, int to, double[] params) {
            return inner.loss(data, from, to, params);
        }

        @Override
        public void initialize(double[] params, long seed) {
            inner.initialize(params, seed);
        }
    }
}
