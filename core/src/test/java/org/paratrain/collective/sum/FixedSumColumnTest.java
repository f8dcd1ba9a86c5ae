package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A column of a table of blocks deposited in one call gives the words of depositing it one
 * block at a time, in one and two words, with magnitudes over 40 binades; a value beyond the
 * grid is refused as a deposit of it alone would be.
 */
class FixedSumColumnTest {
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aColumnGivesTheWordsOfItsBlocks(FixedFormat format) {
        SplittableRandom rng = new SplittableRandom(7);
        int blocks = 37;
        int width = 3;
        double[] table = new double[blocks * width];
        for (int i = 0; i < table.length; i++) {
            table[i] = (rng.nextDouble() - 0.5) * Math.scalb(1.0, rng.nextInt(-20, 20));
        }
        FixedSum byBlock = new FixedSum(format, 1, width - 1);
        FixedSum byColumn = new FixedSum(format, 1, width - 1);
        byBlock.begin(blocks);
        byColumn.begin(blocks);
        for (int k = 0; k < blocks; k++) {
            byBlock.observe(0, table, k * width, width);
        }
        for (int j = 0; j < width; j++) {
            byColumn.observeColumn(j, table, j, width, blocks);
        }
        byBlock.fixGrid();
        byColumn.fixGrid();
        for (int k = 0; k < blocks; k++) {
            byBlock.deposit(0, table, k * width, width);
            byBlock.endBlock();
        }
        for (int j = 0; j < width; j++) {
            byColumn.depositColumn(j, table, j, width, blocks);
        }
        byColumn.endBlocks(blocks);
        assertArrayEquals(byBlock.words(), byColumn.words());
        double[] a = new double[width];
        double[] b = new double[width];
        byBlock.get(0, a, 0, width);
        byColumn.get(0, b, 0, width);
        assertArrayEquals(a, b, 0.0);
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aValueBeyondTheGridIsRefused(FixedFormat format) {
        FixedSum s = new FixedSum(format, 1);
        s.begin(4);
        s.observeColumn(0, new double[] {1, 2, 3, 4}, 0, 1, 4);
        s.fixGrid();
        assertThrows(SumOverflowException.class, () -> s.depositColumn(0, new double[] {1, 2, 1e6, 4}, 0, 1, 4));
    }
}
