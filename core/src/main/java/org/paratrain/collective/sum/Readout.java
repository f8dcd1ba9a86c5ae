package org.paratrain.collective.sum;

/**
 * The conversion of a sum's words back to doubles, checked: a word beyond what the declared
 * number of deposits can reach, or a sum beyond the largest double, is an error, not a number.
 */
final class Readout {
    private Readout() { }

    /** {@code N} deposits of at most {@code 2^(62-h)} each stay within this, in either word. */
    private static final long LIMIT = 1L << 62;
    /** {@code N} deposits of at most {@code 2^(30-h)} each stay within this, in either lane. */
    private static final long HALF_LIMIT = 1L << 30;

    /**
     * {@return the signed sum in the lane at {@code shift} (0 or 32) of word {@code word}}: the word
     * is {@code H 2^32 + L} with {@code |L| <= 2^30}, so {@code L} is its low 32 bits sign-extended,
     * and {@code H} what is left, shifted down (exact: {@code w - L} is a multiple of 2^32).
     */
    static long lane(long[] words, int word, int shift) {
        long w = words[word];
        long low = (int) w;
        return shift == 0 ? low : (w - low) >> 32;
    }

    /**
     * {@code out[offset + k] = L(words[word + k]) 2^G}: the low lanes of a range's words, a loop
     * without a branch, so that it vectorises; returns the OR of the lanes' magnitudes.
     */
    static long lowLanes(long[] words, int word, double unit, double[] out, int offset, int length) {
        long or = 0;
        for (int k = 0; k < length; k++) {
            long low = (int) words[word + k];
            or |= Math.abs(low);
            out[offset + k] = low * unit;
        }
        return or;
    }

    /** As {@link #lowLanes}, for the high lanes: {@code H = (w - L) >> 32}. */
    static long highLanes(long[] words, int word, double unit, double[] out, int offset, int length) {
        long or = 0;
        for (int k = 0; k < length; k++) {
            long w = words[word + k];
            long high = (w - (int) w) >> 32;
            or |= Math.abs(high);
            out[offset + k] = high * unit;
        }
        return or;
    }

    /**
     * {@return the value at {@code index}, correctly rounded}
     * @param words    the words of the sum
     * @param format   one or two words a value
     * @param index    which value
     * @param g        the grid of its segment
     * @param lowBits  how much finer the low word is than the high one (two words)
     * @param blocks   the blocks the headroom was sized for, for the message
     * @param halves   where half words put each value (null for the other formats)
     */
    static double value(long[] words, FixedFormat format, int index, Grid g, int lowBits, int blocks,
                        HalfLayout halves) {
        int grid = g.gridExponent();
        double r;
        if (format == FixedFormat.ONE_WORD) {
            long w = check(words[index], index, blocks);
            r = g.normal() ? w * g.unit() : FixedPoint.toDouble(w, grid);
        } else if (format == FixedFormat.HALF_WORD) {
            long w = lane(words, halves.word(index), halves.shift(index));
            if (w > HALF_LIMIT || w < -HALF_LIMIT) {
                throw new SumOverflowException("the lane at index " + index + " holds more than " + blocks
                    + " deposits can reach (|lane| > 2^30): an index was deposited more than once in a block");
            }
            r = g.normal() ? w * g.unit() : FixedPoint.toDouble(w, grid);
        } else {
            long hi = check(words[2 * index], index, blocks);
            long lo = check(words[2 * index + 1], index, blocks);
            r = g.normal() ? twoWords(hi, lo, lowBits, grid) : FixedPoint.toDouble(hi, lo, lowBits, grid);
        }
        if (Double.isInfinite(r)) {
            throw beyondDoubles(index);
        }
        return r;
    }

    /**
     * Writes the values of {@code [index, index + length)}, all in one segment of grid {@code g},
     * into {@code out[offset, ...)}, as {@link #value} does one by one. Where every nonzero value
     * of the segment is a normal double ({@code -1022 <= G}, and far enough below the largest
     * exponent), a value converts without a branch that depends on its bits: see
     * {@link #twoWords}. Words out of range or a sum beyond the doubles are found after the loop,
     * and the loop is then redone value by value to throw the explained error.
     */
    static void values(long[] words, FixedFormat format, Grid g, int lowBits, int blocks, HalfLayout halves,
                       int index, double[] out, int offset, int length) {
        int grid = g.gridExponent();
        boolean fast = g.normal();
        boolean bad = false;
        if (fast && format == FixedFormat.ONE_WORD) {
            double unit = g.unit();
            long or = 0;
            // Branch-free, so that it vectorises. A word of 2^62 or more in magnitude (the OR of the
            // magnitudes has bit 62 or 63 set) sends the run to the slow path, which says whether
            // it is beyond what the deposits can reach (2^62 itself is not). A result cannot leave
            // the doubles here: |w| < 2^62 and 2^G <= 2^900.
            for (int k = 0; k < length; k++) {
                long w = words[index + k];
                or |= Math.abs(w);
                out[offset + k] = w * unit;       // (double) w rounds once; times 2^G is exact
            }
            bad = or >>> 62 != 0;
        } else if (fast && format == FixedFormat.HALF_WORD) {
            // A range's low lanes, then its high ones, each a unit-stride loop (HalfLayout).
            long or = halves.values(words, g.unit(), index, out, offset, length);
            bad = or >>> 30 != 0;      // 2^30 or more: the careful path says whether it is beyond what deposits reach
        } else if (fast) {
            // Two words reach 2^(E + h), beyond the doubles when E is near 1024: the largest result
            // finds an infinity. (The loop is scalar, twoWords' shift being per value; a maximum
            // costs less here than the integer checks of the one-word loop.)
            long most = 0;
            double largest = 0.0;
            for (int k = 0; k < length; k++) {
                long hi = words[2 * (index + k)];
                long lo = words[2 * (index + k) + 1];
                double r = twoWords(hi, lo, lowBits, grid);
                most = Math.max(most, Math.max(Math.abs(hi), Math.abs(lo)));
                largest = Math.max(largest, Math.abs(r));
                out[offset + k] = r;
            }
            bad = most > LIMIT || most < 0 || Double.isInfinite(largest);
        }
        if (!fast || bad) {
            for (int k = 0; k < length; k++) {
                out[offset + k] = value(words, format, index + k, g, lowBits, blocks, halves);
            }
        }
    }

    /**
     * {@code (hi 2^s + lo) 2^g}, correctly rounded, for {@code -1022 <= g <= 900}: the value
     * of {@link FixedPoint#toDouble(long, long, int, int)} without a branch on the data and
     * without taking the magnitude. The low word's carry is moved up, so the value is
     * {@code c 2^s + rest} with {@code 0 <= rest < 2^s}; {@code c} is shifted up over its
     * redundant sign bits and the top bits of {@code rest} fill in below, which is the value
     * rounded toward minus infinity at {@code 2^drop}, 62 or more significant bits; the lowest
     * bit set when anything was dropped makes that the value rounded to odd, and rounding to odd
     * with at least two bits more than the 53 kept and then to nearest is rounding to nearest
     * once (Boldo and Melquiond), for either sign. The conversion of the signed word does that
     * last rounding; the scaling by {@code 2^(g + drop)} is exact (every nonzero result is
     * normal).
     */
    static double twoWords(long hi, long lo, int s, int g) {
        long mask = (1L << s) - 1;
        long c = hi + (lo >> s);
        long rest = lo & mask;
        int shift = Math.min(Long.numberOfLeadingZeros(c ^ (c >> 63)) - 1, s);
        int drop = s - shift;
        long dropped = rest & ((1L << drop) - 1);
        long t = (c << shift) | (rest >>> drop) | ((dropped | -dropped) >>> 63);
        return (double) t * Double.longBitsToDouble((long) (g + drop + 1023) << 52);
    }

    /** Refuses a sum whose block count, which travelled with its words, exceeds the headroom. */
    static void checkBlocks(long deposited, int blocks) {
        if (deposited > blocks || deposited < 0) {
            throw new SumOverflowException(deposited + " blocks were deposited over all ranks, more than the " + blocks
                + " the headroom of the words was sized for (begin(blocks))");
        }
    }

    private static long check(long w, int index, int blocks) {
        if (w > LIMIT || w < -LIMIT) {
            throw new SumOverflowException("the words at index " + index + " hold more than " + blocks
                + " deposits can reach (|word| > 2^62): an index was deposited more than once in a block");
        }
        return w;
    }

    private static SumOverflowException beyondDoubles(int index) {
        return new SumOverflowException("the sum at index " + index + " is beyond the largest double ("
            + Double.MAX_VALUE + ")");
    }
}
