package org.paratrain.collective.sum;

/**
 * The hot path of a fixed-point sum: values rounded onto a segment's grid and added into the
 * words, one loop per format, allocation-free.
 *
 * <p>{@code y = x 2^-G_h} in two exact multiplications ({@link Grid}); {@code |y| < 2^(62-h)}
 * is checked first (it also refuses NaN and infinities, for which the comparison is false);
 * then {@code rint} rounds to nearest, ties to even, and the cast to {@code long} is exact. For
 * two words the remainder {@code y - rint(y)} is exact (it is a multiple of {@code ulp(y)} no
 * larger than one half), and {@code 2^s} times it is rounded to the low word:
 * {@code hi 2^s + lo = rint(y 2^s)}, one rounding onto the finer grid, since adding the even
 * integer {@code hi 2^s} does not move a tie.
 */
final class Deposit {
    private Deposit() { }

    /**
     * Adds {@code values[offset, offset + length)} at {@code [index, index + length)} of a one-word
     * sum; stops at the first value beyond the bound and returns its position {@code k}, else -1.
     */
    static int oneWord(long[] words, Grid g, double limit, int index, double[] values, int offset, int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        for (int k = 0; k < length; k++) {
            double y = values[offset + k] * a * b;
            if (!(Math.abs(y) < limit)) {
                return k;
            }
            words[index + k] += (long) Math.rint(y);
        }
        return -1;
    }

    /** As {@link #oneWord}, for two words a value: high at {@code 2 i}, low at {@code 2 i + 1}. */
    static int twoWords(long[] words, Grid g, double limit, double lowScale, int index, double[] values, int offset,
                        int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        for (int k = 0; k < length; k++) {
            double y = values[offset + k] * a * b;
            if (!(Math.abs(y) < limit)) {
                return k;
            }
            double hi = Math.rint(y);
            int w = 2 * (index + k);
            words[w] += (long) hi;
            words[w + 1] += (long) Math.rint((y - hi) * lowScale);
        }
        return -1;
    }
}
