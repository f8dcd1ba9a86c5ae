package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The corners of the fixed-point sum, in both formats: zeros and -0.0, subnormals, the
 * largest finite values, and every way it refuses to give a wrong number.
 */
class FixedSumEdgeTest {

    /** One rank, all values deposited in one block each: begin, observe, fix, deposit. */
    static FixedSum sumOf(FixedFormat format, int blocks, double[]... perBlock) {
        FixedSum s = new FixedSum(format, perBlock[0].length);
        s.begin(blocks);
        for (double[] b : perBlock) {
            s.observe(0, b, 0, b.length);
        }
        s.fixGrid();
        for (double[] b : perBlock) {
            s.deposit(0, b, 0, b.length);
            s.endBlock();
        }
        return s;
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void zerosAndNegativeZeros(FixedFormat f) {
        FixedSum s = sumOf(f, 3, new double[] {0.0, -0.0, -0.0}, new double[] {-0.0, 0.0, 1.5},
            new double[] {-0.0, -0.0, -1.5});
        for (int i = 0; i < 3; i++) {
            assertEquals(0L, Double.doubleToRawLongBits(s.get(i)), "an exact zero comes back as +0.0");
        }
    }

    /** Subnormals sit on their own grid exactly when the blocks are few: their sum is exact. */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void subnormalsAddExactly(FixedFormat f) {
        double a = 3 * Double.MIN_VALUE;
        double b = Double.MIN_NORMAL - Double.MIN_VALUE;     // the largest subnormal
        FixedSum s = sumOf(f, 4, new double[] {a, b}, new double[] {a, b}, new double[] {-Double.MIN_VALUE, b},
            new double[] {Double.MIN_VALUE, -b});
        if (f == FixedFormat.HALF_WORD) {
            // 28 bits a lane below 2^-1020: 2^-1048 is the grid, and a few 2^-1074 round to zero on it.
            assertEquals(0.0, s.get(0));
            assertEquals(2 * b, s.get(1), 0x1p-1049 * 4);
        } else {
            assertEquals(6 * Double.MIN_VALUE, s.get(0));
            assertEquals(2 * b, s.get(1));                   // normal again, exactly
        }
        assertEquals(-1020, s.exponentBound(0), "2 binades above the largest subnormal's bound, 2^-1022");
    }

    /** A value far below the grid rounds to zero there, inside the bound (half a unit of the grid). */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void farBelowTheGridRoundsOntoIt(FixedFormat f) {
        FixedSum s = sumOf(f, 2, new double[] {1.0}, new double[] {0x1p-200});
        assertEquals(1.0, s.get(0));
        assertTrue(s.gridExponent(0) > -200);
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void largestFiniteValues(FixedFormat f) {
        double max = Double.MAX_VALUE;
        if (f == FixedFormat.HALF_WORD) {
            // A lane's grid is 2^(1024-28): the largest double rounds up to 2^1024 on it, beyond the doubles.
            FixedSum up = sumOf(f, 3, new double[] {max}, new double[] {-max}, new double[] {max});
            assertThrows(SumOverflowException.class, () -> up.get(0));
            assertEquals(0x1p1000, sumOf(f, 2, new double[] {0x1p999}, new double[] {0x1p999}).get(0));
            return;
        }
        FixedSum cancel = sumOf(f, 3, new double[] {max}, new double[] {-max}, new double[] {max});
        assertEquals(max, cancel.get(0), "max - max + max is max: no intermediate overflow");
        FixedSum twice = sumOf(f, 2, new double[] {max}, new double[] {max});
        SumOverflowException e = assertThrows(SumOverflowException.class, () -> twice.get(0));
        assertTrue(e.getMessage().contains("beyond the largest double"), e.getMessage());
        assertThrows(SumOverflowException.class, () -> twice.get(0, new double[1], 0, 1));
        FixedSum near = sumOf(f, 2, new double[] {max}, new double[] {Math.ulp(max) / 4});
        assertEquals(max, near.get(0), "below the midpoint to 2^1024 rounds to max");
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void nonFiniteValuesStopTheSum(FixedFormat f) {
        for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            FixedSum s = new FixedSum(f, 1, 2);
            s.begin(1);
            s.observe(1, new double[] {1.0, bad}, 0, 2);
            s.exponentWords();
            NonFiniteValueException e = assertThrows(NonFiniteValueException.class, s::fixGrid);
            assertTrue(e.getMessage().contains("segment 1 (indices 1..2)"), e.getMessage());
            FixedSum unobserved = sumOf(f, 1, new double[] {1.0});
            assertThrows(NonFiniteValueException.class, () -> unobserved.deposit(0, bad));
        }
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void refusesWhatWouldOverflow(FixedFormat f) {
        FixedSum s = sumOf(f, 2, new double[] {1.0});
        // 1.0 is below 2^1, so a first step's bound is 2^3, 2 binades above: 8 is beyond it.
        assertEquals(15.5, sumOf(f, 2, new double[] {15.0}, new double[] {0.5}).get(0));
        SumOverflowException beyond = assertThrows(SumOverflowException.class, () -> s.deposit(0, 8.0));
        assertTrue(beyond.getMessage().contains("not below 2^3"), beyond.getMessage());
        assertThrows(SumOverflowException.class, () -> s.deposit(0, new double[] {0.5, 17.0}, 1, 1));
        // More blocks than begin() was told: the count that travels with the words says so.
        FixedSum more = sumOf(f, 2, new double[] {1.0}, new double[] {1.0}, new double[] {1.0});
        SumOverflowException blocks = assertThrows(SumOverflowException.class, () -> more.get(0));
        assertTrue(blocks.getMessage().contains("3 blocks were deposited"), blocks.getMessage());
        // One index deposited twice in its only block, with the largest values: the word is beyond its reach.
        FixedSum twice = sumOf(f, 1, new double[] {Double.MAX_VALUE});
        twice.deposit(0, Double.MAX_VALUE);
        assertThrows(SumOverflowException.class, () -> twice.get(0));
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void misuseIsNamed(FixedFormat f) {
        FixedSum s = new FixedSum(f, 2);
        s.begin(1);
        IllegalStateException early = assertThrows(IllegalStateException.class, () -> s.deposit(0, 1.0));
        assertTrue(early.getMessage().contains("before the grid was fixed"), early.getMessage());
        assertThrows(IllegalStateException.class, () -> s.get(0));
        assertThrows(IllegalArgumentException.class, () -> s.begin(0));
        assertThrows(IndexOutOfBoundsException.class, () -> s.observe(2, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new FixedSum(f));
        FixedSum other = sumOf(f, 1, new double[] {32.0, 1.0});
        FixedSum mine = sumOf(f, 1, new double[] {1.0, 1.0});
        assertThrows(IllegalArgumentException.class, () -> mine.merge(other), "different grids");
    }

    /** Each segment has its own grid: a huge loss does not coarsen the gradient's. */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void segmentsKeepTheirOwnGrids(FixedFormat f) {
        FixedSum s = new FixedSum(f, 1, 2);
        s.begin(2);
        double[] a = {1e30, 1e-30, 3e-31};
        double[] b = {2e30, -1e-30, 1e-45};
        s.observe(0, a, 0, 3);
        s.observe(0, b, 0, 3);
        s.fixGrid();    // one rank: its own exponents are the maximum
        // A first step's grid: 2 binades above the least e with every magnitude below 2^e.
        assertEquals(Math.getExponent(1e-30) + 1 + 2, s.exponentBound(1));
        assertEquals(Math.getExponent(2e30) + 1 + 2, s.exponentBound(0));
        s.deposit(0, a, 0, 3);
        s.deposit(0, b, 0, 3);
        assertEquals(3e30, s.get(0), f == FixedFormat.HALF_WORD ? 3e30 * 0x1p-25 : 1e15);
        assertEquals(0.0, s.get(1));
        // The gradient's grid follows 1e-30 (2^-99): 2^-128 for one word's 61 bits, 2^-128 times 2^33 for a lane's 29.
        assertEquals(3e-31 + 1e-45, s.get(2), f == FixedFormat.HALF_WORD ? 0x1p-125 : 1e-60);
    }
}
