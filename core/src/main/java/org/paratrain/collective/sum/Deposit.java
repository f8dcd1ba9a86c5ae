package org.paratrain.collective.sum;

/**
 * The hot path of a fixed-point sum: values rounded onto a segment's grid and added into the
 * words, one loop per format, allocation-free.
 *
 * <p>{@code y = x 2^-G_h} in two exact multiplications ({@link Grid}); {@code |y| < 2^(62-h)}
 * is checked over the whole run once it is deposited (the largest {@code |y|} is returned; NaN
 * and infinities fail the comparison), so that the loop has no exit and vectorises; on an agreed
 * grid a run with a value beyond the bound is refused and its step abandoned, on a guessed one
 * the largest also says whether the guess holds. {@code rint} rounds to nearest, ties to even, and the cast to {@code long} is exact. For
 * two words the remainder {@code y - rint(y)} is exact (it is a multiple of {@code ulp(y)} no
 * larger than one half), and {@code 2^s} times it is rounded to the low word:
 * {@code hi 2^s + lo = rint(y 2^s)}, one rounding onto the finer grid, since adding the even
 * integer {@code hi 2^s} does not move a tie.
 */
final class Deposit {
    private Deposit() { }

    /**
     * Adds {@code values[offset, offset + length)} at {@code [index, index + length)} of a one-word
     * sum, or, when {@code add} is false, writes them there (the first deposit of a step, on words
     * not yet cleared); returns the largest scaled magnitude {@code max |y|} (NaN if a value was),
     * for the caller to compare with the bound.
     */
    static double oneWord(long[] words, Grid g, boolean add, int index, double[] values, int offset, int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        double worst = 0.0;
        // No exit inside the loops, so that they compile to vector instructions; a value beyond
        // the bound (or NaN: Math.max keeps it) is found by the caller from the largest.
        if (add) {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                worst = Math.max(worst, Math.abs(y));
                words[index + k] += (long) Math.rint(y);
            }
        } else {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                worst = Math.max(worst, Math.abs(y));
                words[index + k] = (long) Math.rint(y);
            }
        }
        return worst;
    }

    /** As {@link #oneWord}, for a two-word sum: the high and low word of each value. */
    static double twoWords(long[] words, Grid g, boolean add, double lowScale, int index, double[] values, int offset,
                           int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        double worst = 0.0;
        if (add) {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                worst = Math.max(worst, Math.abs(y));
                double hi = Math.rint(y);
                int w = 2 * (index + k);
                words[w] += (long) hi;
                words[w + 1] += (long) Math.rint((y - hi) * lowScale);
            }
        } else {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                worst = Math.max(worst, Math.abs(y));
                double hi = Math.rint(y);
                int w = 2 * (index + k);
                words[w] = (long) hi;
                words[w + 1] = (long) Math.rint((y - hi) * lowScale);
            }
        }
        return worst;
    }

    /**
     * Adds {@code values[offset + k stride]}, {@code k < count}, all at {@code index} of a sum
     * of {@code words} words a value (one block's value each): the column of a table of blocks.
     * The same words as depositing them one block at a time. Returns the largest scaled
     * magnitude, as {@link #oneWord} does.
     */
    static double column(long[] words, int perValue, Grid g, double lowScale, int index, double[] values,
                      int offset, int stride, int count) {
        double a = g.scaleA();
        double b = g.scaleB();
        double worst = 0.0;
        long hiSum = 0;
        long loSum = 0;
        for (int k = 0; k < count; k++) {
            double y = values[offset + k * stride] * a * b;
            worst = Math.max(worst, Math.abs(y));
            double hi = Math.rint(y);
            hiSum += (long) hi;
            loSum += perValue == 1 ? 0 : (long) Math.rint((y - hi) * lowScale);
        }
        words[perValue * index] += hiSum;
        if (perValue == 2) {
            words[2 * index + 1] += loSum;
        }
        return worst;
    }

    /** The position of the first of {@code values[offset + k stride]} at or beyond the bound (or not a number). */
    static int firstBeyond(Grid g, double limit, double[] values, int offset, int stride, int length) {
        for (int k = 0; k < length; k++) {
            if (!(Math.abs(values[offset + k * stride] * g.scaleA() * g.scaleB()) < limit)) {
                return k;
            }
        }
        return -1;
    }
}
