package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BlockShardingTest {

    /** Ranks get contiguous, disjoint runs of whole blocks that cover every sample once. */
    @Property(tries = 500)
    void ranksCoverEverySampleOnceInOrder(@ForAll @IntRange(min = 1, max = 5000) int samples,
                                          @ForAll @IntRange(min = 1, max = 700) int blockSize,
                                          @ForAll @IntRange(min = 1, max = 70) int ranks) {
        BlockSharding s = new BlockSharding(samples, blockSize);
        int next = 0;
        int minBlocks = Integer.MAX_VALUE;
        int maxBlocks = 0;
        for (int r = 0; r < ranks; r++) {
            int first = s.firstBlock(r, ranks);
            int end = s.endBlock(r, ranks);
            assertTrue(first <= end);
            minBlocks = Math.min(minBlocks, end - first);
            maxBlocks = Math.max(maxBlocks, end - first);
            for (int b = first; b < end; b++) {
                assertEquals(next, s.blockStart(b));
                next = s.blockEnd(b);
            }
        }
        assertEquals(samples, next);
        assertTrue(maxBlocks - minBlocks <= 1, "balanced to within one block");
    }

    /** Block boundaries are a function of the sample count and block size only. */
    @Property(tries = 200)
    void boundariesDoNotDependOnRanks(@ForAll @IntRange(min = 1, max = 5000) int samples,
                                      @ForAll @IntRange(min = 1, max = 70) int ranks) {
        BlockSharding s = BlockSharding.byDefault(samples);
        for (int r = 0; r < ranks; r++) {
            for (int b = s.firstBlock(r, ranks); b < s.endBlock(r, ranks); b++) {
                assertEquals(Math.min((long) b * s.blockSize(), samples), s.blockStart(b));
            }
        }
        assertTrue(s.blocks() <= BlockSharding.MAX_DEFAULT_BLOCKS);
    }

    @Test
    void defaultForThePaperIsThirtyTwoBlocksOfSixteen() {
        BlockSharding s = BlockSharding.byDefault(500);
        assertEquals(16, s.blockSize());
        assertEquals(32, s.blocks());
        assertEquals(3907, BlockSharding.byDefault(1_000_000).blockSize());
        assertEquals(64, BlockSharding.byDefault(10_000).blockSize());
        assertEquals(1, BlockSharding.byDefault(3).blockSize());
    }

    /** A mini-batch gets at least 4 blocks of at most 64 samples (at most 256 blocks), whatever the node count. */
    @Test
    void aBatchIsCutIntoFewLargeBlocks() {
        int[][] cases = {{256, 64, 4}, {1024, 64, 16}, {32, 8, 4}, {3, 1, 3}, {100_000, 391, 256}, {255, 64, 4}};
        for (int[] c : cases) {
            BlockSharding s = BlockSharding.forBatch(c[0]);
            org.junit.jupiter.api.Assertions.assertEquals(c[1], s.blockSize(), "block size of a batch of " + c[0]);
            org.junit.jupiter.api.Assertions.assertEquals(c[2], s.blocks(), "blocks of a batch of " + c[0]);
        }
    }
}
