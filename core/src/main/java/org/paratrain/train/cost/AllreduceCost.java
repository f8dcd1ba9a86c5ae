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
 *   fixed:k  r n deposit + A(p, k n + 3) + n readout    (+ a round of 3 words by halves, below)
 * </pre>
 * The fixed sums' grid is the last step's, checked inside the same allreduce: in training it
 * holds at nearly every step, so the steady step is priced without the agreement; a step where
 * it fails pays {@link #failedGuessSeconds} more (a fresh 20-step run fails 1 or 2, a long one
 * about 1 in 100).
 *
 *
 * <p>From {@link #BY_HALVES} values on, one or two words a value go by halves where the
 * algorithm comes in halves and each rank is a process of its own ({@link #goesByHalves}): the
 * value words reduce-scattered, each rank converting its own chunk, the doubles allgathered, and
 * the check words and the count in a small allreduce of their own. The same bytes as one
 * allreduce of the words, and one small round more, which is priced: the ring's one-ring way
 * sends them after its reduce-scatter by recursive doubling ({@code + RD(p, 3)}), Rabenseifner
 * and MPI's own first, by the algorithm itself ({@code + A(p, 3)}). Across the unshaped emulated
 * link that round took 0.12 ms (median of 100 CNN steps, the ring) of an exchange of 1.7; the
 * conversion of only the own chunk is not taken off, as the scaling that follows still passes
 * over every value.
 *
 * @param algorithm the allreduce, whose {@link Allreduce#cost} is read
 * @param sum       the sum
 * @param flat      whether each rank is a process of its own (the by-halves way needs it); a
 *                  process that holds several ranks sums in two levels, whole
 */
public record AllreduceCost(Allreduce algorithm, SumCost sum, boolean flat) implements ExchangeCost {
    /** The least vector (loss and gradient) a fixed sum of one or two words sends by halves. */
    public static final int BY_HALVES = 1 << 16;

    /** Checks that both are given. */
    public AllreduceCost {
        if (algorithm == null || sum == null) {
            throw new IllegalArgumentException("an allreduce's cost needs the algorithm and the sum");
        }
    }

    /**
     * Ranks that are processes of their own, as {@code plan} and the local backend price them.
     *
     * @param algorithm the allreduce, whose {@link Allreduce#cost} is read
     * @param sum       the sum
     */
    public AllreduceCost(Allreduce algorithm, SumCost sum) {
        this(algorithm, sum, true);
    }

    /**
     * {@return whether a step's fixed sum of {@code values} values goes by halves with the
     * allreduce named {@code algorithm} between ranks that are processes of their own: one or two
     * words a value (half words share a word between two values of a range, so a chunk of words
     * is not a range of values), at least {@link #BY_HALVES} values, an algorithm that comes in
     * halves (ring, rabenseifner, native)} The trainer takes the same way by this test.
     * @param sum       the sum
     * @param values    the loss and the gradient
     * @param algorithm the allreduce's name
     */
    public static boolean goesByHalves(org.paratrain.train.spec.ExchangeSpec.Sum sum, long values, String algorithm) {
        return (sum == org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_1
            || sum == org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_2)
            && values >= BY_HALVES && org.paratrain.collective.AllreduceHalves.names().contains(algorithm);
    }

    @Override
    public double stepSeconds(int p, int params, int blocks, Allreduce.Machine m) {
        Shapes.check(p, params, blocks);
        long n = params + 1L;
        double halves = flat && p > 1 && goesByHalves(sum.sum(), n, algorithm.name())
            ? (algorithm.name().equals("ring") ? CHECK_ROUND : algorithm).cost(p, SumCost.CHECK_WORDS + 1, m) : 0.0;
        return sum.prepareSeconds(Shapes.busiest(blocks, p), n, m) + algorithm.cost(p, sum.words(n, blocks), m)
            + halves + sum.finishSeconds(blocks, n, n, m);
    }

    /** The one-ring way's round of the check words and the count, as the trainer makes it (SumExchange). */
    private static final Allreduce CHECK_ROUND = new org.paratrain.collective.RecursiveDoublingAllreduce();

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
