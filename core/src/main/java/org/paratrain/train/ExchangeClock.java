package org.paratrain.train;

import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;
import org.paratrain.optim.ForwardingOptimizer;
import org.paratrain.optim.Optimizer;

/**
 * A rank's exchange time step by step, without the optimizer's update, for the exchange without
 * waits. A rank's exchange of a step includes waiting for the ranks that arrive after it; the
 * rank that arrives last waits for no one, so the least exchange over the ranks in that step is
 * the exchange itself. Totals per rank cannot give it where the last to arrive changes from step
 * to step (ranks that share a core take turns): the least of the totals then still holds waits.
 * So each rank keeps its last {@value #WINDOW} steps' figures, and at the end one allreduce
 * (32 KB) takes, step by step, the least over the ranks. No clocks are compared across ranks.
 *
 * <p>Where ranks share a core (virtual threads on one carrier), a rank woken at the end of a
 * meeting may wait for the core while a sibling computes its next step: the trainer takes that
 * out ({@link org.paratrain.comm.ProcessGroup#lateNanos}), else the rank that arrived last would
 * show its sibling's computation whenever the sibling got the core first.
 *
 * <p>The update is timed apart ({@link #timed}, two clock readings a step): it is computation
 * that happens to run inside the exchange's call, and a model of the exchange does not price it.
 * The hot path writes one double a step into an array made once.
 */
final class ExchangeClock {
    /** Steps kept: the end's allreduce is this many words. */
    static final int WINDOW = 4096;
    private final double[] steps = new double[WINDOW];
    private long count;
    private long updateNanos;
    private long stepUpdateNanos;

    /** {@return {@code o}, its updates timed by this clock} */
    Optimizer timed(Optimizer o) {
        return new ForwardingOptimizer(o) {
            @Override
            public void step(double[] params, double[] grad, int from, int to) {
                long t = System.nanoTime();
                inner.step(params, grad, from, to);
                stepUpdateNanos += System.nanoTime() - t;
            }
        };
    }

    /**
     * Ends a step whose exchange (update included) took {@code seconds} on this rank.
     *
     * @return the seconds of the step's update
     */
    double endStep(double seconds) {
        double update = stepUpdateNanos * 1e-9;
        updateNanos += stepUpdateNanos;
        stepUpdateNanos = 0;
        steps[(int) (count++ % WINDOW)] = Math.max(0.0, seconds - update);
        return update;
    }

    /** Forgets the steps so far: the run's times start again ({@link TrainingControl#untimedSteps}). */
    void restart() {
        count = 0;
        updateNanos = 0;
    }

    /** {@return the seconds this rank spent in the optimizer's updates} */
    double updateSeconds() {
        return updateNanos * 1e-9;
    }

    /**
     * The exchange without waits over the last steps: every rank calls it, at the same point.
     *
     * @return {seconds summed over the steps, the steps, the median step's seconds}: step by step
     *         the least over the ranks
     */
    double[] leastOverRanks(Communicator comm) {
        int n = (int) Math.min(count, WINDOW);
        // The whole window whatever the count, so that ranks that counted differently still make one call.
        long[] bits = new long[WINDOW + 2];
        bits[WINDOW] = count;               // the same on every rank (greatest = -least), else no step lines up
        bits[WINDOW + 1] = -count;
        for (int i = 0; i < n; i++) {
            // Non-negative doubles order as their bits: the least is the greatest negated.
            bits[i] = -Double.doubleToRawLongBits(steps[i]);
        }
        org.paratrain.collective.Allreduces.create("recursive-doubling", comm).allreduce(comm, bits, 0, WINDOW + 2,
            Reduction.WORD_MAX);
        if (bits[WINDOW] != -bits[WINDOW + 1]) {
            return new double[] {Double.NaN, 0, Double.NaN};
        }
        double total = 0.0;
        double[] least = new double[n];         // once a run: the median's sort
        for (int i = 0; i < n; i++) {
            least[i] = Double.longBitsToDouble(-bits[i]);
            total += least[i];
        }
        java.util.Arrays.sort(least);
        double median = n == 0 ? Double.NaN : (least[(n - 1) / 2] + least[n / 2]) / 2;
        return new double[] {total, n, median};
    }
}
