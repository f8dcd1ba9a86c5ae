package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.paratrain.data.BlockSharding;

/** How the split of a step's blocks follows the ranks' measured speeds, checked against the arithmetic by hand. */
class BlockRangesTest {

    @Test
    void startsAsTheEvenSplit() {
        BlockSharding s = new BlockSharding(1000, 10);
        BlockRanges r = new BlockRanges(s, 3);
        for (int k = 0; k < 3; k++) {
            assertEquals(s.firstBlock(k, 3), r.first(k));
            assertEquals(s.endBlock(k, 3), r.end(k));
        }
        assertArrayEquals(new int[] {33, 33, 34}, r.blocksPerRank());
    }

    /**
     * Rank 1 twice as slow a sample: it should hold a third of the samples, 100 blocks of 300,
     * once two windows in a row have said so.
     */
    @Test
    void aRankTwiceAsSlowGetsAThird() {
        BlockRanges r = new BlockRanges(new BlockSharding(3000, 10), 2);
        assertFalse(r.rebalance(new double[] {1e-9, 2e-9}));
        assertArrayEquals(new int[] {150, 150}, r.blocksPerRank());
        assertTrue(r.rebalance(new double[] {1e-9, 2e-9}));
        assertArrayEquals(new int[] {200, 100}, r.blocksPerRank());
        assertEquals(1, r.moves());
        // The same speeds again: already balanced, nothing moves.
        assertFalse(r.rebalance(new double[] {1e-9, 2e-9}));
        assertEquals(1, r.moves());
    }

    /** Speeds 5% apart promise less than the 10% a move needs: the split stays even. */
    @Test
    void smallDifferencesAreNoise() {
        BlockRanges r = new BlockRanges(new BlockSharding(3000, 10), 2);
        assertFalse(r.rebalance(new double[] {1.0e-9, 1.05e-9}));
        assertFalse(r.rebalance(new double[] {1.0e-9, 1.05e-9}));
        assertArrayEquals(new int[] {150, 150}, r.blocksPerRank());
    }

    /**
     * One window in which rank 0 ran 30 times slower (its kernel recompiled) moves nothing, since
     * the windows around it disagree; a slowdown that lasts two windows moves the split by the
     * mean of the two.
     */
    @Test
    void oneOutlierWindowMovesNothing() {
        BlockRanges r = new BlockRanges(new BlockSharding(3000, 10), 2);
        assertFalse(r.rebalance(new double[] {1e-9, 1e-9}));
        assertFalse(r.rebalance(new double[] {30e-9, 1e-9}));
        assertFalse(r.rebalance(new double[] {1e-9, 1e-9}));
        assertArrayEquals(new int[] {150, 150}, r.blocksPerRank());
        assertFalse(r.rebalance(new double[] {1e-9, 3e-9}));     // with the window before: mean 2x, not shorter then
        assertTrue(r.rebalance(new double[] {1e-9, 3e-9}));
        // Rank 1 three times as slow: a quarter of the samples.
        assertArrayEquals(new int[] {225, 75}, r.blocksPerRank());
    }

    /** A rank that measured nothing (NaN), or fewer blocks than ranks: no move. */
    @Test
    void noMoveWithoutEveryRanksSpeedOrWithFewerBlocksThanRanks() {
        BlockRanges r = new BlockRanges(new BlockSharding(3000, 10), 2);
        assertFalse(r.rebalance(new double[] {1e-9, Double.NaN}));
        BlockRanges few = new BlockRanges(new BlockSharding(30, 10), 4);
        assertFalse(few.rebalance(new double[] {1e-9, 9e-9, 1e-9, 1e-9}));
        assertArrayEquals(new int[] {0, 1, 1, 1}, few.blocksPerRank());
    }

    /** A rank 1000x slower keeps one block, so that its speed can still be measured. */
    @Test
    void everyRankKeepsABlock() {
        BlockRanges r = new BlockRanges(new BlockSharding(100, 10), 3);
        assertFalse(r.rebalance(new double[] {1e-6, 1e-9, 1e-9}));
        assertTrue(r.rebalance(new double[] {1e-6, 1e-9, 1e-9}));
        assertEquals(1, r.owned(0));
        assertEquals(10, r.owned(0) + r.owned(1) + r.owned(2));
    }

    /**
     * Whatever the speeds: the ranges stay consecutive, cover every block once, give every rank
     * a block, and after a move the predicted step (the slowest rank's samples times its time a
     * sample) is at least 10% shorter than before.
     */
    @Property(tries = 300)
    void movesKeepACoverAndShortenTheStep(@ForAll @IntRange(min = 2, max = 9) int ranks,
                                          @ForAll @IntRange(min = 9, max = 400) int blocks,
                                          @ForAll @Size(9) java.util.List<@DoubleRange(min = 0.1, max = 10) Double> t) {
        BlockSharding s = new BlockSharding(blocks * 7 - 3, 7);
        BlockRanges r = new BlockRanges(s, ranks);
        double[] speeds = new double[ranks];
        for (int k = 0; k < ranks; k++) {
            speeds[k] = t.get(k) * 1e-9;
        }
        double before = step(r, speeds);
        assertFalse(r.rebalance(speeds), "no move on one window");
        boolean moved = r.rebalance(speeds);
        assertEquals(0, r.first(0));
        assertEquals(blocks, r.end(ranks - 1));
        for (int k = 0; k < ranks; k++) {
            assertTrue(r.owned(k) >= 1, "rank " + k);
            if (k > 0) {
                assertEquals(r.end(k - 1), r.first(k));
            }
        }
        double after = step(r, speeds);
        assertTrue(moved ? after <= 0.9 * before : after == before, before + " -> " + after);
    }

    private static double step(BlockRanges r, double[] secondsPerSample) {
        double max = 0;
        for (int k = 0; k < secondsPerSample.length; k++) {
            max = Math.max(max, r.samples(k) * secondsPerSample[k]);
        }
        return max;
    }
}
