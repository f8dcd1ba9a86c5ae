/**
 * A reproducible sum of one vector over blocks and ranks, at the traffic of one vector:
 * fixed-point integer words on a grid fixed for the step.
 *
 * <h2>Why fixed point</h2>
 * Floating-point addition is not associative, so a sum over ranks depends on who adds what
 * in which order: on the node count, on the allreduce algorithm, on MPI's choice of
 * algorithm by message size. paratrain gets the same bits at any node count today by
 * reducing a table of every block's partials ({@code -0.0} elsewhere) and adding the rows in
 * block order on every rank: exact, but the message grows with the number of blocks. Here
 * every block partial is instead rounded once onto a grid that depends only on the values (the
 * largest magnitudes of this step and the steps before), and the rounded values, integers, are added as 64-bit words. Integer addition is
 * associative (and no partial sum can leave the range of a word: the headroom below bounds
 * the sum of any subset of the step's deposits), so every grouping gives the same words:
 * any split of the blocks among ranks, every algorithm of {@code org.paratrain.collective},
 * MPI's own {@code MPI_Allreduce} with {@code MPI_SUM} on {@code MPI_INT64_T} (no
 * user-defined operation has to cross FFM), or a merge of threads' accumulators before one of
 * them. The words are converted back to doubles once, correctly rounded.
 *
 * <h2>Why this grid</h2>
 * The grid of a segment is {@code 2^(E - b)}: {@code E} is an exponent bound of its largest
 * magnitude over all ranks and blocks, at most 4 binades above it, from a maximum allreduce of
 * one integer per segment (exact and order-free, so every rank derives the same grid) and the
 * {@code E} of the step before, kept while the magnitude stays within 4 binades under it; {@code b} is chosen
 * from {@code N}, the number of blocks of the step, which every rank knows, so that {@code N}
 * rounded values cannot overflow a word: {@code ceil(log2 N)} bits of headroom are left for
 * the carries, and one more so that the bound is strict. So the grid follows the data (a
 * gradient of 10^-3 is not summed on a grid made for 10^3) but not the decomposition. The
 * price: the grid must be known before the first deposit, so a rank first computes and
 * observes its blocks, then agrees, then deposits: one extra small allreduce a step, and the
 * rank's own partials kept until then. In training the grid of the step before is guessed and
 * checked after the deposits instead ({@link org.paratrain.collective.sum.FixedSum#guessGrid()}),
 * and a long vector is summed in one ring whose loops deposit and convert as they combine
 * ({@link org.paratrain.collective.sum.FixedSum#ringInto}): nearly the memory traffic of a
 * double allreduce. {@link org.paratrain.collective.sum.FixedFormat} states
 * the error bounds: {@code n 2^(h-62)} times the largest magnitude with one word, {@code n
 * 2^(2h-125)} with two, plus the final rounding, for {@code n <= N} deposits at an index and
 * {@code h = ceil(log2 N)}.
 *
 * <h2>What the literature does</h2>
 * <ul>
 *   <li>Demmel and Nguyen ("Parallel Reproducible Summation", IEEE TC 2015) and ReproBLAS
 *       (Ahrens, Nguyen, Demmel, ACM TOMS 2020) keep a few floating-point "bins" aligned to
 *       absolute exponent boundaries; a value is split among the bins by error-free
 *       transformations, and bins slide up when a larger value arrives. No prior agreement on
 *       the maximum is needed, and the result is reproducible, but the accumulator is several
 *       doubles a value and the reduction needs a user-defined MPI operation.</li>
 *   <li>ExBLAS (Iakymchuk, Collange and others) and Neal's superaccumulators keep the exact sum
 *       in a long fixed-point accumulator (over 2,000 bits, to cover every double), carry-save,
 *       reduced with {@code MPI_SUM} on {@code MPI_LONG}: exact, but tens of words a value, fit
 *       for one dot product, not for a gradient vector.</li>
 *   <li>Hallberg and Adcroft (Parallel Computing 2014; the MOM6 ocean model) add integers in a
 *       fixed-point range chosen in advance, several 64-bit integers a value, carried and
 *       normalised after the reduction.</li>
 * </ul>
 * This package takes the integer words and {@code MPI_SUM} of the last two and replaces their
 * fixed, data-independent range by a grid agreed per step and per segment: one or two words a
 * value are then enough for an error bound relative to the largest magnitude, and the exact
 * sum of the integers makes the result independent of the order. No text or code of those
 * libraries is used here.
 */
package org.paratrain.collective.sum;
