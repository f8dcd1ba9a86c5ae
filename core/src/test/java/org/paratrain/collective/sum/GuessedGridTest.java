package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * The guessed grid (the last step's, checked inside the words' allreduce) against the agreed
 * one, over steps whose largest magnitudes stay, grow on one rank, shrink everywhere and jump:
 * every step the same bits as the agreement gives, at any rank count, with both outcomes of the
 * guess seen; and each sum within the format's bound of the exact one (BigDecimal).
 */
class GuessedGridTest {
    static final int BLOCKS = 24;
    static final int PARAMS = 9;
    static final int STEPS = 40;

    /** Block b's partials at step t: the magnitude's power of two moves at some steps, on some blocks only. */
    static double[] block(int t, int b) {
        SplittableRandom rnd = new SplittableRandom(31L * t + b);
        int shift = switch (t % 10) {
            case 3 -> b == 17 ? 5 : 0;     // one block (one rank) grows: the guess fails, and the step after
            case 6, 7 -> -3;               // all shrink: no rank at the old bound; then the same: holds
            default -> 0;
        };
        double[] v = new double[1 + PARAMS];
        v[0] = 100 + rnd.nextDouble();
        for (int j = 1; j <= PARAMS; j++) {
            v[j] = Math.scalb(rnd.nextDouble() - 0.5, shift + (j % 3));
        }
        return v;
    }

    /** The largest magnitude of the segment of value {@code j} (the loss, or the gradient) at step {@code t}. */
    static double segmentLargest(int t, int j) {
        double m = 0;
        for (int b = 0; b < BLOCKS; b++) {
            for (int i = j == 0 ? 0 : 1; i <= (j == 0 ? 0 : PARAMS); i++) {
                m = Math.max(m, Math.abs(block(t, b)[i]));
            }
        }
        return m;
    }

    /** Every step's sums on this rank, the guess tried (or not); and how many guesses held and failed. */
    record Steps(double[][] sums, int held, int failed) { }

    static Steps run(Communicator comm, FixedFormat format, Allreduce algorithm, boolean guess) {
        return run(comm, format, algorithm, guess, true);
    }

    /**
     * As training runs it when {@code observeFirst} is false: the guess deposits straight away and
     * the values are observed only after a guess that failed.
     */
    static Steps run(Communicator comm, FixedFormat format, Allreduce algorithm, boolean guess, boolean observeFirst) {
        int p = comm.size();
        int first = BLOCKS * comm.rank() / p;
        int end = BLOCKS * (comm.rank() + 1) / p;
        FixedSum sum = new FixedSum(format, 1, PARAMS);
        double[][] out = new double[STEPS][1 + PARAMS];
        int held = 0;
        int failed = 0;
        for (int t = 0; t < STEPS; t++) {
            sum.begin(BLOCKS);
            boolean guessing = guess && sum.guessGrid();
            if (observeFirst || !guessing) {
                observe(sum, t, first, end);
            }
            boolean done = false;
            if (guessing) {
                deposit(sum, t, first, end);
                sum.reduce(comm, algorithm);
                done = sum.guessHeld();
                if (done) {
                    held++;
                } else {
                    failed++;
                    sum.retry();
                    if (!observeFirst) {
                        observe(sum, t, first, end);
                    }
                }
            }
            if (!done) {
                sum.agree(comm, algorithm);
                deposit(sum, t, first, end);
                sum.reduce(comm, algorithm);
            }
            assertEquals(BLOCKS, sum.blocksDeposited());
            sum.get(0, out[t], 0, 1 + PARAMS);
        }
        return new Steps(out, held, failed);
    }

    private static void observe(FixedSum sum, int t, int first, int end) {
        for (int b = first; b < end; b++) {
            sum.observe(0, block(t, b), 0, 1 + PARAMS);
        }
    }

    private static void deposit(FixedSum sum, int t, int first, int end) {
        for (int b = first; b < end; b++) {
            sum.deposit(0, block(t, b), 0, 1 + PARAMS);
            sum.endBlock();
        }
    }

    /**
     * The steps whose grid moves, by the rule as documented, worked out here from the largest
     * magnitudes alone: a segment's exponent E is kept while its largest magnitude m has
     * {@code 2^(E-4) <= m < 2^E}, and otherwise set to 2 binades above m's bound (the least e
     * with {@code m < 2^e}).
     */
    static int changes() {
        int n = 0;
        int[] e = {bound(0, 0, 1) + 2, bound(0, 1, 1 + PARAMS) + 2};
        for (int t = 1; t < STEPS; t++) {
            boolean moved = false;
            int[][] segments = {{0, 1}, {1, 1 + PARAMS}};
            for (int s = 0; s < 2; s++) {
                int b = bound(t, segments[s][0], segments[s][1]);
                if (b > e[s] || b <= e[s] - 4) {
                    e[s] = b + 2;
                    moved = true;
                }
            }
            n += moved ? 1 : 0;
        }
        assertTrue(n >= STEPS / 10, "the data moves as planned: " + n);
        return n;
    }

    /** The least e with every magnitude of values [from, to) of step t below 2^e (all normal here). */
    private static int bound(int t, int from, int to) {
        double m = 0;
        for (int b = 0; b < BLOCKS; b++) {
            for (int j = from; j < to; j++) {
                m = Math.max(m, Math.abs(block(t, b)[j]));
            }
        }
        return Math.getExponent(m) + 1;
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aGuessGivesTheAgreementsBitsAtEveryStepAndRankCount(FixedFormat format) {
        double[][] agreed = LocalCluster.run(1, c -> run(c, format, Allreduces.create("star"), false)).get(0).sums();
        for (int p : new int[] {1, 2, 3, 5, 8}) {
            for (String name : List.of("ring", "tree", "recursive-doubling")) {
                boolean observeFirst = p % 2 == 1;   // both orders of the training loop: guessing before or after observing
                List<Steps> ranks = LocalCluster.run(p, c -> run(c, format, Allreduces.create(name), true,
                    observeFirst));
                for (int r = 0; r < p; r++) {
                    Steps s = ranks.get(r);
                    for (int t = 0; t < STEPS; t++) {
                        assertArrayEquals(agreed[t], s.sums()[t], 0.0, name + " p=" + p + " rank " + r + " step " + t);
                    }
                    assertEquals(STEPS - 1, s.held() + s.failed(), "every step after the first guesses");
                    assertEquals(changes(), s.failed(), name + " p=" + p + ": fails exactly where the grid moves");
                    assertTrue(s.held() > s.failed(), "most guesses hold");
                }
            }
        }
        for (int t = 0; t < STEPS; t++) {
            for (int j = 0; j <= PARAMS; j++) {
                BigDecimal exact = BigDecimal.ZERO;
                double largest = 0;
                for (int b = 0; b < BLOCKS; b++) {
                    exact = exact.add(new BigDecimal(block(t, b)[j]));
                    largest = Math.max(largest, Math.abs(block(t, b)[j]));
                }
                double error = Math.abs(exact.subtract(new BigDecimal(agreed[t][j]), MathContext.DECIMAL128).doubleValue());
                double bound = switch (format) {
                    case ONE_WORD -> Math.ulp(largest) * BLOCKS;
                    case TWO_WORDS -> Math.ulp(exact.doubleValue());
                    // n 2^(G-1) <= n 2^(h-30) M (FixedFormat), plus the final rounding
                    case HALF_WORD -> Math.scalb(segmentLargest(t, j), FixedFormat.headroom(BLOCKS) - 27) * BLOCKS
                        + Math.ulp(exact.doubleValue());
                };
                assertTrue(error <= bound, "step " + t + " value " + j + ": error " + error + " > " + bound);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aNanOrAnInfinityAfterAGuessStopsEveryRankAtTheRetry(FixedFormat format) {
        for (double bad : new double[] {Double.NaN, Double.NEGATIVE_INFINITY}) {
            for (boolean observeFirst : new boolean[] {true, false}) {
                RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(3, comm -> {
                    FixedSum sum = new FixedSum(format, 1, 2);
                    for (int t = 0; t < 2; t++) {
                        sum.begin(3);
                        double[] v = {1.0, 0.5, t == 1 && comm.rank() == 2 ? bad : 0.25};
                        boolean guessing = sum.guessGrid();
                        if (observeFirst || !guessing) {
                            sum.observe(0, v, 0, 3);
                        }
                        if (guessing) {
                            sum.deposit(0, v, 0, 3);      // not refused on a guessed grid: the guess fails
                            sum.endBlock();
                            sum.reduce(comm, Allreduces.create("ring"));
                            assertFalse(sum.guessHeld(), "a non-finite value is above every bound");
                            sum.retry();
                            sum.observe(0, v, 0, 3);
                        }
                        sum.agree(comm, Allreduces.create("ring"));
                        sum.deposit(0, v, 0, 3);
                        sum.endBlock();
                        sum.reduce(comm, Allreduces.create("ring"));
                    }
                    return null;
                }));
                assertTrue(e.getCause() instanceof NonFiniteValueException, bad + ": " + e.getCause());
            }
        }
    }

    /**
     * The words are not cleared by begin: a step where some ranks deposit nothing, or deposit a
     * part of the vector first, or one value at a time, must not count the step before's words.
     * Each step's sum is checked against one rank depositing the same blocks afresh.
     */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void theWordsOfTheStepBeforeNeverCount(FixedFormat format) {
        int steps = 6;
        List<double[][]> ranks = LocalCluster.run(4, comm -> {
            FixedSum sum = new FixedSum(format, 1, PARAMS);
            double[][] out = new double[steps][1 + PARAMS];
            for (int t = 0; t < steps; t++) {
                sum.begin(4);
                boolean guessing = sum.guessGrid();
                // Step t: ranks below t % 4 + 1 hold block (t, rank); the others hold none this step.
                boolean holds = comm.rank() <= t % 4;
                double[] v = block(t, comm.rank());
                if (!guessing && holds) {
                    sum.observe(0, v, 0, 1 + PARAMS);
                }
                if (!guessing) {
                    sum.agree(comm, Allreduces.create("ring"));
                }
                if (holds) {
                    depositOneWay(sum, v, t);
                }
                sum.reduce(comm, Allreduces.create("ring"));
                if (!sum.guessHeld()) {
                    sum.retry();
                    if (holds) {
                        sum.observe(0, v, 0, 1 + PARAMS);
                    }
                    sum.agree(comm, Allreduces.create("ring"));
                    if (holds) {
                        depositOneWay(sum, v, t);
                    }
                    sum.reduce(comm, Allreduces.create("ring"));
                }
                assertEquals(t % 4 + 1, sum.blocksDeposited());
                sum.get(0, out[t], 0, 1 + PARAMS);
            }
            return out;
        });
        for (int t = 0; t < steps; t++) {
            FixedSum one = new FixedSum(format, 1, PARAMS);
            one.begin(4);
            for (int r = 0; r <= t % 4; r++) {
                one.observe(0, block(t, r), 0, 1 + PARAMS);
            }
            one.fixGrid();
            for (int r = 0; r <= t % 4; r++) {
                one.deposit(0, block(t, r), 0, 1 + PARAMS);
                one.endBlock();
            }
            double[] expected = new double[1 + PARAMS];
            one.get(0, expected, 0, 1 + PARAMS);
            for (int r = 0; r < 4; r++) {
                assertArrayEquals(expected, ranks.get(r)[t], 0.0, "step " + t + " rank " + r);
            }
        }
    }

    /** Deposits a block whole, in two parts (the later part first), or value by value, by the step. */
    private static void depositOneWay(FixedSum sum, double[] v, int t) {
        switch (t % 3) {
            case 0 -> sum.deposit(0, v, 0, v.length);
            case 1 -> {
                sum.deposit(4, v, 4, v.length - 4);
                sum.deposit(0, v, 0, 4);
            }
            default -> {
                for (int j = 0; j < v.length; j++) {
                    sum.deposit(j, v[j]);
                }
            }
        }
        sum.endBlock();
    }
}
