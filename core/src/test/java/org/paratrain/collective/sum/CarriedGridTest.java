package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;

/**
 * The grid carried from step to step: a largest magnitude that hovers about a power of two
 * keeps one grid (with bounds fixed from each step alone, such a magnitude moved the grid in
 * half the steps, each a failed guess and a second exchange); one that leaves the band moves it,
 * to where the rule says; and a sum resumed from the carried exponents gives the bits of one that
 * never stopped.
 */
class CarriedGridTest {
    /** Largest magnitudes alternating just under and just over 2^4, then falling 8x a step. */
    static final double[] LARGEST = {15.9, 16.1, 15.8, 16.3, 15.99, 16.01, 15.7, 16.2, 2.0, 0.25, 0.03125, 0.03};

    /** The grid exponent the rule gives each step, worked out from {@link #LARGEST} by hand. */
    static final int[] EXPECTED = {
        6, 6, 6, 6, 6, 6, 6, 6,     // 15.9 is below 2^4: 2 binades above is 2^6; 16.x is below 2^5, in [2^2, 2^6)
        4,                          // 2.0 is below 2^2, under the band [2^2, 2^6): afresh 2 binades above 2^2
        1,                          // 0.25 below 2^-1, under [2^0, 2^4): 2^1
        -2,                         // 0.03125 below 2^-4, under [2^-3, 2^1): 2^-2
        -2};                        // 0.03 below 2^-5... at least 2^-6: in [2^-6, 2^-2), kept

    static final int BLOCKS = 6;

    /** Block b's value at step t: the step's largest on block t mod 6, smaller ones on the others. */
    static double value(int t, int b) {
        return b == t % BLOCKS ? LARGEST[t] : LARGEST[t] / (3 + b);
    }

    record Run(int[] exponents, double[] sums, long retries) { }

    static Run run(Communicator comm, int from, int to, int carried, boolean guess) {
        FixedSum sum = new FixedSum(FixedFormat.ONE_WORD, 1);
        if (carried != Integer.MIN_VALUE) {
            sum.carry(0, carried);
        }
        int[] e = new int[to - from];
        double[] sums = new double[to - from];
        int p = comm.size();
        int first = BLOCKS * comm.rank() / p;
        int end = BLOCKS * (comm.rank() + 1) / p;
        for (int t = from; t < to; t++) {
            sum.begin(BLOCKS);
            boolean held = false;
            if (guess && sum.guessGrid()) {
                deposit(sum, t, first, end);
                sum.reduce(comm, Allreduces.create("ring"));
                held = sum.guessHeld();
                if (!held) {
                    sum.retry();
                }
            }
            if (!held) {
                for (int b = first; b < end; b++) {
                    sum.observe(0, value(t, b));
                }
                sum.agree(comm, Allreduces.create("ring"));
                deposit(sum, t, first, end);
                sum.reduce(comm, Allreduces.create("ring"));
            }
            e[t - from] = sum.exponentBound(0);
            sums[t - from] = sum.get(0);
        }
        return new Run(e, sums, sum.retries());
    }

    private static void deposit(FixedSum sum, int t, int first, int end) {
        for (int b = first; b < end; b++) {
            sum.deposit(0, value(t, b));
            sum.endBlock();
        }
    }

    @Test
    void aMagnitudeHoveringAboutAPowerOfTwoKeepsOneGrid() {
        for (int p : new int[] {1, 2, 3}) {
            List<Run> agreed = LocalCluster.run(p, c -> run(c, 0, LARGEST.length, Integer.MIN_VALUE, false));
            List<Run> guessed = LocalCluster.run(p, c -> run(c, 0, LARGEST.length, Integer.MIN_VALUE, true));
            for (int r = 0; r < p; r++) {
                assertArrayEquals(EXPECTED, agreed.get(r).exponents(), "agreed, p=" + p + " rank " + r);
                assertArrayEquals(EXPECTED, guessed.get(r).exponents(), "guessed, p=" + p + " rank " + r);
                assertArrayEquals(agreed.get(r).sums(), guessed.get(r).sums(), "p=" + p);
                // Misses: only where the grid moved (3 of the 11 guesses), never while it hovered.
                assertEquals(3, guessed.get(r).retries(), "p=" + p);
            }
        }
    }

    @Test
    void aSumResumedFromTheCarriedExponentGivesTheBitsOfOneThatNeverStopped() {
        Run whole = LocalCluster.run(2, c -> run(c, 0, LARGEST.length, Integer.MIN_VALUE, true)).get(0);
        for (int cut = 1; cut < LARGEST.length; cut++) {
            int at = cut;
            int carried = whole.exponents()[cut - 1];
            for (int p : new int[] {1, 3}) {
                Run rest = LocalCluster.run(p, c -> run(c, at, LARGEST.length, carried, true)).get(0);
                assertArrayEquals(java.util.Arrays.copyOfRange(whole.sums(), cut, LARGEST.length), rest.sums(),
                    "resumed at step " + cut + " on " + p + " ranks");
            }
        }
        // Without it, the step after the cut fixes its grid afresh: other bits.
        Run fresh = LocalCluster.run(2, c -> run(c, 1, LARGEST.length, Integer.MIN_VALUE, true)).get(0);
        assertEquals(5 + 2, fresh.exponents()[0], "16.1 afresh: 2 binades above 2^5");
    }

    /**
     * At the edges of the doubles, a guess holds exactly when the band keeps the grid: steps of
     * zeros after grids just above the least bound (kept: zeros are within 4 binades of any bound
     * below 2^-1070), after 2^-1074 itself, and after a grid far above; subnormals; values near the
     * largest double (the bound is capped at 2^1024). Each step guessed, its outcome compared with
     * whether an agreement changed the exponent, on every format.
     */
    @Test
    void atTheEdgesAGuessHoldsExactlyWhenTheBandKeepsTheGrid() {
        double[][] steps = {{0.0}, {Double.MIN_VALUE}, {0.0}, {4 * Double.MIN_VALUE}, {0.0}, {0.0},
            {Double.MIN_NORMAL}, {0.0}, {1.0}, {0.0}, {Double.MAX_VALUE}, {0x1p1021}, {0x1p1020}, {0x1p1019},
            {-Double.MAX_VALUE}, {0.0}};
        for (FixedFormat f : FixedFormat.values()) {
            FixedSum guessing = new FixedSum(f, 1);
            FixedSum agreeing = new FixedSum(f, 1);
            for (int t = 0; t < steps.length; t++) {
                double x = steps[t][0];
                int before = agreeing.carried(0);
                agreeing.begin(1);
                agreeing.observe(0, x);
                agreeing.fixGrid();
                agreeing.deposit(0, x);
                agreeing.endBlock();
                boolean kept = before == agreeing.carried(0);
                guessing.begin(1);
                if (guessing.guessGrid()) {
                    guessing.deposit(0, x);
                    guessing.endBlock();
                    guessing.seal();
                    assertEquals(kept, guessing.guessHeld(), f + " step " + t + " (" + x + ") after 2^" + before);
                    if (!kept) {
                        guessing.retry();
                    }
                } else {
                    assertEquals(Integer.MIN_VALUE, before);
                }
                if (guessing.carried(0) == Integer.MIN_VALUE || !kept) {
                    guessing.observe(0, x);
                    guessing.fixGrid();
                    guessing.deposit(0, x);
                    guessing.endBlock();
                }
                assertEquals(agreeing.carried(0), guessing.carried(0), f + " step " + t);
                assertEquals(value(agreeing), value(guessing), 0.0, f + " step " + t);
                if (f != FixedFormat.HALF_WORD) {
                    assertEquals(x, value(agreeing), 0.0, f + " step " + t + ": one value comes back exactly");
                }
            }
        }
    }

    /** The sum, or NaN where it rounds beyond the doubles (half a word's grid near 2^1024 is 2^994). */
    private static double value(FixedSum s) {
        try {
            return s.get(0);
        } catch (SumOverflowException e) {
            return Double.NaN;
        }
    }

    @Test
    void anExponentOutOfRangeIsRefused() {
        FixedSum sum = new FixedSum(FixedFormat.ONE_WORD, 1, 2);
        assertThrows(IllegalArgumentException.class, () -> sum.carry(1, 1025));
        assertThrows(IllegalArgumentException.class, () -> sum.carry(0, -1075));
        sum.carry(1, 1024);
        assertEquals(1024, sum.carried(1));
        assertEquals(Integer.MIN_VALUE, sum.carried(0));
    }
}
