package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The conversions back to double are the correctly rounded value of the words, checked
 * against the exact value (BigDecimal) rounded independently: random words over every scale
 * from below the subnormals to beyond the largest double, ties, near-ties and the words that
 * the sticky bit must tell apart.
 */
class FixedPointTest {

    static long randomWord(SplittableRandom rnd, long limit) {
        int bits = rnd.nextInt(64);
        long w = bits == 0 ? 0 : rnd.nextLong() >>> (64 - bits);
        w = Math.min(w, limit);
        return rnd.nextBoolean() ? -w : w;
    }

    @Property(tries = 3000)
    void oneWordIsCorrectlyRounded(@ForAll long seed, @ForAll @IntRange(min = -1200, max = 1000) int g) {
        long w = randomWord(new SplittableRandom(seed), Long.MAX_VALUE);
        assertEquals(Exact.round(Exact.of(w, g)), FixedPoint.toDouble(w, g), () -> w + " * 2^" + g);
    }

    @Property(tries = 3000)
    void twoWordsAreCorrectlyRounded(@ForAll long seed, @ForAll @IntRange(min = -1200, max = 930) int g,
                                     @ForAll @IntRange(min = 1, max = 63) int s) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long hi = randomWord(rnd, 1L << 62);
        long lo = randomWord(rnd, 1L << 62);
        assertEquals(Exact.round(Exact.of(hi, lo, s, g)), FixedPoint.toDouble(hi, lo, s, g),
            () -> "(" + hi + " 2^" + s + " + " + lo + ") 2^" + g);
    }

    /** The branch-free conversion of a pair, on the grids where it is used (every nonzero result normal). */
    @Property(tries = 3000)
    void twoWordsWithoutBranchesAreCorrectlyRounded(@ForAll long seed, @ForAll @IntRange(min = -1022, max = 900) int g,
                                                    @ForAll @IntRange(min = 1, max = 63) int s) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long hi = randomWord(rnd, 1L << 62);
        long lo = randomWord(rnd, 1L << 62);
        assertEquals(Exact.round(Exact.of(hi, lo, s, g)), Readout.twoWords(hi, lo, s, g),
            () -> "(" + hi + " 2^" + s + " + " + lo + ") 2^" + g);
    }

    /** Exact ties and the values one unit of the low word either side: where double rounding would show. */
    @Test
    void tiesAndNearTiesBetweenTheWords() {
        int s = 40;
        for (int g : new int[] {-1170, -1100, -1074 - 41, -1074 - 40, -1074 - 39, -500, 0, 900}) {
            for (long hi : new long[] {1, 3, (1L << 53) + 1, (1L << 54) + 2, (1L << 62) - 1, -((1L << 54) + 2)}) {
                // Midpoints of the 53-bit grid around hi 2^s land in the low word's range.
                for (long lo : new long[] {1L << 39, (1L << 39) + 1, (1L << 39) - 1, -(1L << 39), 1, -1, 0,
                    1L << 62, -(1L << 62), (1L << 40) - 1}) {
                    double want = Exact.round(Exact.of(hi, lo, s, g));
                    assertEquals(want, FixedPoint.toDouble(hi, lo, s, g), () -> "(" + hi + " 2^" + s + " + " + lo
                        + ") 2^" + g);
                    if (g >= -1022) {
                        assertEquals(want, Readout.twoWords(hi, lo, s, g), () -> "branch-free, (" + hi + " 2^" + s
                            + " + " + lo + ") 2^" + g);
                    }
                }
            }
        }
    }

    @Test
    void subnormalTiesOverflowAndZero() {
        for (long w : new long[] {1, 2, 3, 5, 6, 7, (1L << 53) - 1, (1L << 53) + 1, 3L << 51, Long.MAX_VALUE,
            (1L << 62) + 1}) {
            for (int g : new int[] {-1138, -1137, -1136, -1127, -1076, -1075, -1074, -1073, -1023, -1022, 960,
                961, 962, 970, 971}) {
                assertEquals(Exact.round(Exact.of(w, g)), FixedPoint.toDouble(w, g), () -> w + " * 2^" + g);
                assertEquals(Exact.round(Exact.of(-w, g)), FixedPoint.toDouble(-w, g), () -> -w + " * 2^" + g);
            }
        }
        assertEquals(0.0, FixedPoint.toDouble(0, 100));
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(FixedPoint.toDouble(0, 0, 7, -5)));
    }

    @Test
    void exponentBoundsAndPowersOfTwo() {
        for (double m : new double[] {Double.MIN_VALUE, 3 * Double.MIN_VALUE, Double.MIN_NORMAL / 2, Double.MIN_NORMAL,
            1.0, 1.5, 0.75, Double.MAX_VALUE, 1e300, 1e-300}) {
            int e = FixedPoint.exponentBound(Double.doubleToRawLongBits(m));
            assertEquals(true, Exact.pow2(e - 1).compareTo(Exact.of(m)) <= 0 && Exact.of(m).compareTo(Exact.pow2(e)) < 0,
                m + " not in [2^" + (e - 1) + ", 2^" + e + ")");
        }
        assertEquals(-1074, FixedPoint.exponentBound(0));
        for (int e = -1074; e <= 1023; e++) {
            assertEquals(0, Exact.of(FixedPoint.pow2(e)).compareTo(Exact.pow2(e)), "2^" + e);
        }
    }
}
