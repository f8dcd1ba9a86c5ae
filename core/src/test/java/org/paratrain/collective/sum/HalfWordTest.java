package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.local.LocalCluster;

/**
 * Half a word a value: two signed 32-bit lanes share a 64-bit word, and the low lane's sign
 * borrows from the high one. Checked where that could go wrong: lanes at their extremes, of
 * either sign, side by side; runs that start or stop inside a word, across segment edges; and
 * against the exact sum of the rounded deposits (BigDecimal) and a one-rank sum at several
 * rank counts and algorithms.
 */
class HalfWordTest {
    /**
     * Every deposit at the most a lane takes, {@code +-2^(30-h)} units, with the sign of
     * neighbouring lanes alternating by index and by block pattern: the lane sums reach
     * {@code +-2^30}, and each must read back exactly.
     */
    @Test
    void lanesAtTheirExtremesOfEitherSignReadBackExactly() {
        for (int blocks : new int[] {1, 2, 3, 4, 7, 64, 1000}) {
            int h = FixedFormat.headroom(blocks);
            int n = 9;
            // Values of magnitude just below 2^0 round to 2^(30-h) units on the grid of E = 0.
            double top = Math.nextDown(1.0);
            for (int pattern = 0; pattern < 4; pattern++) {
                FixedSum sum = new FixedSum(FixedFormat.HALF_WORD, n);
                sum.begin(blocks);
                double[][] rows = new double[blocks][n];
                for (int b = 0; b < blocks; b++) {
                    for (int i = 0; i < n; i++) {
                        boolean negative = switch (pattern) {
                            case 0 -> i % 2 == 0;
                            case 1 -> i % 2 == 1;
                            case 2 -> true;
                            default -> (i / 2) % 2 == 0;
                        };
                        rows[b][i] = negative ? -top : top;
                    }
                    sum.observe(0, rows[b], 0, n);
                }
                sum.carry(0, 0);     // a grid carried at 2^0: the band keeps it for magnitudes in [2^-4, 2^0)
                sum.fixGrid();
                assertEquals(0, sum.exponentBound(0));
                assertEquals(-(30 - h), sum.gridExponent(0));
                for (double[] row : rows) {
                    sum.deposit(0, row, 0, n);
                    sum.endBlock();
                }
                for (int i = 0; i < n; i++) {
                    double expected = Math.signum(rows[0][i]) * blocks * Math.scalb(1.0, 30 - h) * Math.scalb(1.0, -(30 - h));
                    assertEquals(expected, sum.get(i), 0.0, "blocks " + blocks + " pattern " + pattern + " index " + i);
                }
            }
        }
    }

    /** Runs deposited from any start, odd or even, across segment edges, give the words of value-by-value deposits. */
    @Test
    void runsThatStartOrStopInsideAWordGiveTheWordsOfSingleDeposits() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (int trial = 0; trial < 200; trial++) {
            int n = 1 + rnd.nextInt(40);
            int first = rnd.nextInt(n + 1);
            int[] segments = {first, n - first};
            int blocks = 1 + rnd.nextInt(9);
            double[][] rows = new double[blocks][n];
            for (double[] row : rows) {
                for (int i = 0; i < n; i++) {
                    row[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-20, 20));
                }
            }
            FixedSum single = new FixedSum(FixedFormat.HALF_WORD, segments);
            FixedSum runs = new FixedSum(FixedFormat.HALF_WORD, segments);
            for (FixedSum s : List.of(single, runs)) {
                s.begin(blocks);
                for (double[] row : rows) {
                    s.observe(0, row, 0, n);
                }
                s.fixGrid();
            }
            for (double[] row : rows) {
                for (int i = 0; i < n; i++) {
                    single.deposit(i, row[i]);
                }
                single.endBlock();
                for (int i = 0; i < n; ) {          // the row in runs of random lengths
                    int len = Math.min(n - i, 1 + rnd.nextInt(7));
                    runs.deposit(i, row, i, len);
                    i += len;
                }
                runs.endBlock();
            }
            assertArrayEquals(single.words(), runs.words(), "trial " + trial);
            double[] out = new double[n];
            runs.get(0, out, 0, n);
            for (int i = 0; i < n; i++) {
                int g = runs.gridExponent(i < first ? 0 : 1);
                BigDecimal words = BigDecimal.ZERO;
                for (double[] row : rows) {
                    words = words.add(Exact.of(row[i]).divide(Exact.pow2(g)).setScale(0, RoundingMode.HALF_EVEN));
                }
                assertEquals(Exact.round(words.multiply(Exact.pow2(g))), out[i], 0.0, "trial " + trial + " index " + i);
                assertEquals(out[i], single.get(i), 0.0);
            }
        }
    }

    /** The same bits on 1 to 6 ranks, by every algorithm, and half the words of one word a value. */
    @Test
    void theSameBitsAtEveryRankCountAndAlgorithmOnHalfTheWords() {
        int n = 1001;
        int blocks = 12;
        double[] reference = sumOn(1, "ring", n, blocks);
        for (int p : new int[] {2, 3, 4, 6}) {
            for (String algorithm : List.of("ring", "recursive-doubling", "rabenseifner", "tree", "star")) {
                assertArrayEquals(reference, sumOn(p, algorithm, n, blocks), 0.0, algorithm + " p=" + p);
            }
        }
        assertEquals((n + 1) / 2 + 2 + 1, new FixedSum(FixedFormat.HALF_WORD, 1, n - 1).words().length,
            "values, a check word per segment, the block count");
        assertTrue(reference[n - 1] != 0.0);
    }

    private static double[] sumOn(int p, String algorithm, int n, int blocks) {
        return LocalCluster.run(p, comm -> {
            FixedSum sum = new FixedSum(FixedFormat.HALF_WORD, 1, n - 1);
            double[] out = new double[n];
            for (int step = 0; step < 3; step++) {        // a guessed grid after the first
                sum.begin(blocks);
                boolean agreed = !sum.guessGrid();
                depositAndReduce(comm, sum, algorithm, step, blocks, n, agreed);
                if (!sum.guessHeld()) {
                    sum.retry();
                    depositAndReduce(comm, sum, algorithm, step, blocks, n, true);
                }
                sum.get(0, out, 0, n);
            }
            return out;
        }).get(0);
    }

    /** This rank's blocks (every size-th from its rank) deposited and summed, the grid agreed first if asked. */
    private static void depositAndReduce(org.paratrain.comm.Communicator comm, FixedSum sum, String algorithm, int step,
                                         int blocks, int n, boolean agree) {
        if (agree) {
            for (int b = comm.rank(); b < blocks; b += comm.size()) {
                sum.observe(0, row(step, b, n), 0, n);
            }
            sum.agree(comm, Allreduces.create(algorithm));
        }
        for (int b = comm.rank(); b < blocks; b += comm.size()) {
            sum.deposit(0, row(step, b, n), 0, n);
            sum.endBlock();
        }
        sum.reduce(comm, Allreduces.create(algorithm));
    }

    private static double[] row(int step, int block, int n) {
        SplittableRandom rnd = new SplittableRandom(1000L * step + block);
        double[] v = new double[n];
        v[0] = 100 + rnd.nextDouble();              // a loss, on a grid of its own
        for (int i = 1; i < n; i++) {
            v[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-12, 0));
        }
        return v;
    }

    /**
     * The layout: every value has a lane of its own, a range's values fill its words and no
     * other's (low lanes the first half, high lanes the rest), and {@code wordsFrom}/{@code
     * wordsBefore} name exactly the words of the ranges between two cuts.
     */
    @Test
    void everyValueHasALaneOfItsOwnInItsRangesWords() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int trial = 0; trial < 300; trial++) {
            int n = 1 + rnd.nextInt(60);
            int first = rnd.nextInt(n + 1);
            Segments segments = new Segments(first, n - first);
            int[] cuts = rnd.ints(rnd.nextInt(5), 0, n + 1).toArray();
            HalfLayout layout = new HalfLayout(segments, cuts);
            java.util.Set<Long> lanes = new java.util.HashSet<>();
            for (int i = 0; i < n; i++) {
                int r = layout.range(i);
                assertTrue(layout.start(r) <= i && i < layout.start(r + 1));
                int w = layout.word(i);
                assertTrue(layout.base(r) <= w && w < layout.base(r) + layout.half(r), "trial " + trial + " value " + i);
                assertEquals(i - layout.start(r) < layout.half(r) ? 0 : 32, layout.shift(i));
                assertTrue(lanes.add(2L * w + layout.shift(i) / 32), "two values in one lane: trial " + trial);
            }
            int expectedWords = 0;
            for (int r = 0; r < layout.ranges(); r++) {
                expectedWords += (layout.start(r + 1) - layout.start(r) + 1) / 2;
            }
            assertEquals(expectedWords, layout.words());
            for (int c : cuts) {
                // Values [c, n) are exactly words [wordsFrom(c), words), values [0, c) words [0, wordsBefore(c)).
                for (int i = 0; i < n; i++) {
                    int w = layout.word(i);
                    assertEquals(i >= c, w >= layout.wordsFrom(c), "trial " + trial + " cut " + c + " value " + i);
                    assertEquals(i < c, w < layout.wordsBefore(c));
                }
                assertEquals(layout.wordsFrom(c), layout.wordsBefore(c));
            }
        }
    }

    /**
     * Cutting the half words' layout changes no bit: random cuts, runs deposited across them, the
     * sums read back equal to those of the uncut layout, and to value-by-value deposits.
     */
    @Test
    void cutsChangeNoBit() {
        SplittableRandom rnd = new SplittableRandom(17);
        for (int trial = 0; trial < 200; trial++) {
            int n = 2 + rnd.nextInt(80);
            int blocks = 1 + rnd.nextInt(6);
            double[][] rows = new double[blocks][n];
            for (double[] row : rows) {
                for (int i = 0; i < n; i++) {
                    row[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-20, 4));
                }
            }
            FixedSum uncut = new FixedSum(FixedFormat.HALF_WORD, 1, n - 1);
            FixedSum cut = new FixedSum(FixedFormat.HALF_WORD, 1, n - 1);
            FixedSum single = new FixedSum(FixedFormat.HALF_WORD, 1, n - 1);
            cut.cutHalves(rnd.ints(1 + rnd.nextInt(6), 0, n + 1).toArray());
            single.cutHalves(rnd.ints(rnd.nextInt(4), 0, n + 1).toArray());
            for (FixedSum s : List.of(uncut, cut, single)) {
                s.begin(blocks);
                for (double[] row : rows) {
                    s.observe(0, row, 0, n);
                }
                s.fixGrid();
            }
            for (double[] row : rows) {
                uncut.deposit(0, row, 0, n);
                uncut.endBlock();
                for (int i = 0; i < n; ) {
                    int len = Math.min(n - i, 1 + rnd.nextInt(9));
                    cut.deposit(i, row, i, len);
                    i += len;
                }
                cut.endBlock();
                for (int i = n - 1; i >= 0; i--) {
                    single.deposit(i, row[i]);
                }
                single.endBlock();
            }
            double[] a = new double[n];
            double[] b = new double[n];
            double[] c = new double[n];
            uncut.get(0, a, 0, n);
            cut.get(0, b, 0, n);
            single.get(0, c, 0, n);
            assertArrayEquals(a, b, 0.0, "trial " + trial);
            assertArrayEquals(a, c, 0.0, "trial " + trial);
            for (int i = 0; i < n; i++) {
                assertEquals(a[i], cut.get(i), 0.0);
            }
        }
    }

    /** A cut made once a step deposited, or while a sum is held, would drop it: refused; and sums cut apart do not merge. */
    @Test
    void cutsAreRefusedOnceAStepDepositedAndDifferentCutsDoNotMerge() {
        FixedSum sum = new FixedSum(FixedFormat.HALF_WORD, 1, 9);
        sum.cutHalves(4);                 // before the first step
        sum.begin(1);
        sum.cutHalves(6);                 // right after begin: nothing deposited yet
        sum.observe(0, new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10);
        sum.fixGrid();
        sum.deposit(0, new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10);
        assertThrows(IllegalStateException.class, () -> sum.cutHalves(5));
        sum.endBlock();
        assertEquals(10.0, sum.get(9), 0.0);
        assertThrows(IllegalStateException.class, () -> sum.cutHalves(5), "the step's sum is held");
        FixedSum other = new FixedSum(FixedFormat.HALF_WORD, 1, 9);
        other.cutHalves(7);
        other.begin(1);
        other.observe(0, new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10);
        other.fixGrid();
        assertThrows(IllegalArgumentException.class, () -> sum.merge(other), "lanes paired differently");
    }

    @Test
    void moreBlocksThanALaneHoldsAreRefusedByName() {
        FixedSum sum = new FixedSum(FixedFormat.HALF_WORD, 4);
        sum.begin(FixedFormat.HALF_WORD_MAX_BLOCKS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> sum.begin(FixedFormat.HALF_WORD_MAX_BLOCKS + 1));
        assertTrue(e.getMessage().contains("fixed:half"), e.getMessage());
    }
}
