package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;

/**
 * An allreduce of the sum's vector after which every rank updates its own copy (see
 * {@code AllreduceExchange} and {@code SumExchange}): the algorithm's own formula
 * {@code A(p, w)} on the sum's {@code w} words, with what the sum adds around it
 * ({@link SumCost}):
 * <pre>
 *   blocks:  A(p, B n) + 8 B n gamma
 *   float:   8 r n gamma + A(p, n)
 *   fixed:k  r n deposit + A(p, k n + 3) + n readout
 * </pre>
 * The fixed sums' grid is the last step's, checked inside the same allreduce: in training it
 * holds at nearly every step, so the steady step is priced without the agreement; a step where
 * it fails pays {@link #failedGuessSeconds} more (a fresh 20-step run fails 1 or 2, a long one
 * about 1 in 100).
 *
 * @param algorithm the allreduce, whose {@link Allreduce#cost} is read
 * @param sum       the sum
 */
public record AllreduceCost(Allreduce algorithm, SumCost sum) implements ExchangeCost {

    /** Checks that both are given. */
    public AllreduceCost {
        if (algorithm == null || sum == null) {
            throw new IllegalArgumentException("an allreduce's cost needs the algorithm and the sum");
        }
    }

    @Override
    public double stepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        long n = params + 1L;
        return sum.prepareSeconds(Shapes.busiest(blocks, p), n, m) + algorithm.cost(p, sum.words(n, blocks), m)
            + sum.finishSeconds(blocks, n, n, m);
    }

    /**
     * {@return a step that agrees its grid (a run's first, which has none to guess from): the
     * steady step's, and the rows observed before the grid is agreed, {@code r n observe +
     * A(p, 2)} more; as {@link #stepSeconds} for the sums without a grid}
     * @param p      ranks
     * @param params parameters, the loss aside
     * @param blocks the step's blocks over all ranks
     * @param m      the machine
     */
    public double agreedStepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        double steady = stepSeconds(p, params, blocks, m);
        if (!sum.sum().fixed()) {
            return steady;
        }
        long n = params + 1L;
        return steady + sum.observedPrepareSeconds(Shapes.busiest(blocks, p), n, m)
            - sum.prepareSeconds(Shapes.busiest(blocks, p), n, m) + algorithm.cost(p, SumCost.AGREEMENT_WORDS, m);
    }

    /**
     * {@return what a step whose guessed grid failed pays beyond {@link #stepSeconds}: the rows
     * observed and deposited again, the grid agreed ({@code A(p, 2)}) and the words reduced again:
     * {@code r n (observe + deposit) + A(p, 2) + A(p, k n + 3)}; 0 for the sums without a grid}
     * Add it times the rate of failed guesses to price a run's average step. Priced as the plain
     * way redoes it (the words reduced whole, then again): the one-ring and by-halves ways of one
     * and two words learn of the failure before their allgather and lose less, so for them this
     * is an upper bound.
     * @param p      ranks
     * @param params parameters, the loss aside
     * @param blocks the step's blocks over all ranks
     * @param m      the machine
     */
    public double failedGuessSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        if (!sum.sum().fixed()) {
            return 0.0;
        }
        long n = params + 1L;
        return sum.observedPrepareSeconds(Shapes.busiest(blocks, p), n, m)
            + algorithm.cost(p, SumCost.AGREEMENT_WORDS, m) + algorithm.cost(p, sum.words(n, blocks), m);
    }
}
