package org.paratrain.collective.sum;

/**
 * The hot path of a fixed-point sum: values rounded onto a segment's grid and added into the
 * words, one loop per format, allocation-free.
 *
 * <p>{@code y = x 2^-G_h} in two exact multiplications ({@link Grid}). {@code rint} rounds to
 * nearest, ties to even, and the cast to {@code long} is exact. For two words the remainder
 * {@code y - rint(y)} is exact (it is a multiple of {@code ulp(y)} no larger than one half), and
 * {@code 2^s} times it is rounded to the low word: {@code hi 2^s + lo = rint(y 2^s)}, one
 * rounding onto the finer grid, since adding the even integer {@code hi 2^s} does not move a tie.
 *
 * <p><b>The magnitude summary.</b> Each loop returns, instead of stopping at a value beyond the
 * bound, a summary of the run's magnitudes: the bitwise OR of {@code |trunc(y)|} over the run,
 * with the sign bit set if a value was NaN or infinite (the two-word loops make it from their
 * largest {@code |y|}: an infinity then gives {@code Long.MAX_VALUE}, which reaches every bound
 * alike). Since the bounds that matter are powers
 * of two, {@code 2^(62-h)} (the limit) and {@code 2^(61-h)} (half of it), and {@code |y| >= 2^k}
 * holds exactly when {@code |trunc(y)| >= 2^k} for an integer {@code k >= 0}, the summary says
 * exactly whether some {@code |y|} reached either: {@code summary >>> k != 0}
 * ({@link #reaches}). A NaN is found by {@code (long) (y * 0 + 1)}, which is 1 for a finite
 * {@code y} and 0 for NaN or an infinity. All of it is integer ORs and ANDs and conversions, which
 * vectorise; a floating-point maximum over the run (Java's {@code Math.max}, with its NaN and
 * signed-zero rules) does not, and cost twice the loop. On an agreed grid a run with a value
 * beyond the bound is refused and its step abandoned; on a guessed one the summary says whether
 * the guess holds.
 */
final class Deposit {
    private Deposit() { }

    /** {@return whether a run with this summary holds a magnitude of {@code 2^k} or more, or a non-finite value} */
    static boolean reaches(long summary, int k) {
        return summary >>> k != 0;
    }

    /** {@return the summary of one scaled value} */
    static long summary(double y) {
        return Math.abs((long) y) | ((1L - (long) (y * 0.0 + 1.0)) << 63);
    }

    /** {@return the summary from the OR of the magnitudes and the AND of the finite flags} */
    private static long summary(long magnitudes, long finite) {
        return magnitudes | ((1L - finite) << 63);
    }

    /**
     * Adds {@code values[offset, offset + length)} at {@code [index, index + length)} of a one-word
     * sum, or, when {@code add} is false, writes them there (the first deposit of a step, on words
     * not yet cleared); returns the run's summary.
     */
    static long oneWord(long[] words, Grid g, boolean add, int index, double[] values, int offset, int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        long or = 0;
        long finite = 1;
        // No exit inside the loops, so that they compile to vector instructions.
        if (add) {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                or |= Math.abs((long) y);
                finite &= (long) (y * 0.0 + 1.0);
                words[index + k] += (long) Math.rint(y);
            }
        } else {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                or |= Math.abs((long) y);
                finite &= (long) (y * 0.0 + 1.0);
                words[index + k] = (long) Math.rint(y);
            }
        }
        return summary(or, finite);
    }

    /**
     * As {@link #oneWord}, for a two-word sum: the high and low word of each value. This loop does
     * not vectorise (two words a value), and there a maximum of {@code |y|} costs less than the
     * integer summary's conversions: the summary is made from it at the end, one that reaches
     * the same bounds.
     */
    static long twoWords(long[] words, Grid g, boolean add, double lowScale, int index, double[] values, int offset,
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
        return ofLargest(worst);
    }

    /**
     * As {@link #oneWord} (adding), for half a word a value, the values of one half of a range
     * ({@link HalfLayout}): {@code values[offset + k]} is added into the lane at {@code shift}
     * (0 or 32) of word {@code word + k}, as {@code rint(y) 2^shift}; the low lane's sign borrows
     * from the high one, which the read-back undoes ({@link FixedFormat}). Unit-stride, so it
     * vectorises.
     */
    static long halfLane(long[] words, Grid g, int word, int shift, double[] values, int offset, int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        long or = 0;
        long finite = 1;
        for (int k = 0; k < length; k++) {
            double y = values[offset + k] * a * b;
            or |= Math.abs((long) y);
            finite &= (long) (y * 0.0 + 1.0);
            words[word + k] += (long) Math.rint(y) << shift;
        }
        return summary(or, finite);
    }

    /**
     * Both lanes of {@code pairs} words from {@code word} on: the low lane takes
     * {@code values[low + k]}, the high one {@code values[high + k]}, as two {@link #halfLane}
     * calls would add them, in one pass over the words (a range deposited whole): a loop of its
     * own because one pass costs 0.36 ns a value against 0.47 for the two lane loops.
     */
    static long halfPairs(long[] words, Grid g, int word, double[] values, int low, int high, int pairs) {
        double a = g.scaleA();
        double b = g.scaleB();
        long or = 0;
        long finite = 1;
        for (int k = 0; k < pairs; k++) {
            double y = values[low + k] * a * b;
            double z = values[high + k] * a * b;
            or |= Math.abs((long) y) | Math.abs((long) z);
            finite &= (long) (y * 0.0 + 1.0) & (long) (z * 0.0 + 1.0);
            words[word + k] += (long) Math.rint(y) + ((long) Math.rint(z) << 32);
        }
        return summary(or, finite);
    }

    /**
     * {@return the summary of a run whose largest {@code |y|} is {@code worst} (NaN if a value was)}:
     * {@code trunc} is monotonic, so {@code trunc(max |y|)} is the largest {@code |trunc(y)|}, and
     * it has every bit the OR has at or above its own highest.
     */
    private static long ofLargest(double worst) {
        return Double.isNaN(worst) ? Long.MIN_VALUE : (long) worst;
    }

    /**
     * {@code words[index + k] = in[index + k] + rint(y)} for a one-word sum: a deposit fused with
     * the combine of a ring's reduce-scatter (the words received plus this rank's own), one pass;
     * returns the run's summary. {@code in} is laid out as {@code words}: with the same index in
     * both, the loop vectorises even though the compiler cannot tell the two arrays apart (with
     * two indices, it could not rule out an overlap, and the loop ran 5 times slower).
     */
    static long oneWordOnto(long[] words, long[] in, Grid g, int index, double[] values, int offset, int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        long or = 0;
        long finite = 1;
        for (int k = 0; k < length; k++) {
            double y = values[offset + k] * a * b;
            or |= Math.abs((long) y);
            finite &= (long) (y * 0.0 + 1.0);
            words[index + k] = in[index + k] + (long) Math.rint(y);
        }
        return summary(or, finite);
    }

    /**
     * The last step of a ring's reduce-scatter for a rank's own chunk, fused with the conversion:
     * {@code out[outAt + k] = (in[index + k] + rint(y)) 2^G}, for a one-word sum on a grid whose
     * words convert by one multiplication ({@link Grid#normal()}); the words themselves are not
     * stored. Returns the run's summary; {@code wordBits[0]} gets the OR of the words' magnitudes,
     * which the caller checks as {@link Readout} does (2^62 or more: redo the run the careful way).
     */
    static long oneWordOntoOut(long[] in, Grid g, int index, double[] values, int offset, int length, double[] out,
                               int outAt, long[] wordBits) {
        double a = g.scaleA();
        double b = g.scaleB();
        double unit = g.unit();
        long or = 0;
        long finite = 1;
        long words = 0;
        if (offset == outAt) {
            // The same index into both arrays of doubles: the compiler, unable to rule out that they
            // are one array, vectorises this loop only so (the other ran 3 times slower).
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                or |= Math.abs((long) y);
                finite &= (long) (y * 0.0 + 1.0);
                long w = in[index + k] + (long) Math.rint(y);
                words |= Math.abs(w);
                out[offset + k] = w * unit;
            }
        } else {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                or |= Math.abs((long) y);
                finite &= (long) (y * 0.0 + 1.0);
                long w = in[index + k] + (long) Math.rint(y);
                words |= Math.abs(w);
                out[outAt + k] = w * unit;
            }
        }
        wordBits[0] |= words;
        return summary(or, finite);
    }

    /**
     * Two ranks' values of one chunk summed and converted in one pass, for a one-word sum on a
     * grid whose words convert by one multiplication: {@code out[outAt + k] =
     * (rint(y_peer) + rint(y_own)) 2^G}, where {@code peer} holds the other rank's values laid out
     * as {@code values} (the same index). Returns the summary of both runs.
     *
     * <p>The two words are added as doubles, which gives the words' bits: each {@code rint(y)} is
     * an integer double, so their sum is exact below 2^53 and above it rounded once to nearest,
     * as the cast of the exact integer sum to {@code double} would round it; {@code 2^G} then
     * scales exactly. Within the summary's bound ({@code |y| < 2^(62-h)}, {@code h >= 1}) the sum
     * stays within 2^62, which {@link Readout} converts the same way; beyond it the guess fails or
     * the run is refused, and what was written does not count. So no word is stored, none is
     * checked, and the loop converts three times a pair (two magnitudes, one finite flag for
     * both) where deposit, add and read-back would convert six: 0.23 against 0.38 ms for 500,000
     * pairs here.
     */
    static long oneWordPairOut(double[] peer, int peerAt, Grid g, double[] values, int offset, int length,
                               double[] out, int outAt) {
        double a = g.scaleA();
        double b = g.scaleB();
        double unit = g.unit();
        long or = 0;
        long finite = 1;
        if (offset == outAt && peerAt == outAt && b == 1.0) {
            // One index into the three arrays of doubles, so that the loop vectorises (see oneWordOntoOut),
            // and one factor where it is the scale (2^-G_h below 2^1000): 13% less time than two.
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a;
                double z = peer[offset + k] * a;
                or |= Math.abs((long) y) | Math.abs((long) z);
                finite &= (long) (y * 0.0 + z * 0.0 + 1.0);
                out[offset + k] = (Math.rint(z) + Math.rint(y)) * unit;
            }
        } else if (offset == outAt && peerAt == outAt) {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                double z = peer[offset + k] * a * b;
                or |= Math.abs((long) y) | Math.abs((long) z);
                finite &= (long) (y * 0.0 + z * 0.0 + 1.0);
                out[offset + k] = (Math.rint(z) + Math.rint(y)) * unit;
            }
        } else {
            for (int k = 0; k < length; k++) {
                double y = values[offset + k] * a * b;
                double z = peer[peerAt + k] * a * b;
                or |= Math.abs((long) y) | Math.abs((long) z);
                finite &= (long) (y * 0.0 + z * 0.0 + 1.0);
                out[outAt + k] = (Math.rint(z) + Math.rint(y)) * unit;
            }
        }
        return summary(or, finite);
    }

    /** As {@link #oneWordOnto}, for a two-word sum (a maximum, as {@link #twoWords}). */
    static long twoWordsOnto(long[] words, long[] in, Grid g, double lowScale, int index, double[] values, int offset,
                             int length) {
        double a = g.scaleA();
        double b = g.scaleB();
        double worst = 0.0;
        for (int k = 0; k < length; k++) {
            double y = values[offset + k] * a * b;
            worst = Math.max(worst, Math.abs(y));
            double hi = Math.rint(y);
            int w = 2 * (index + k);
            words[w] = in[w] + (long) hi;
            words[w + 1] = in[w + 1] + (long) Math.rint((y - hi) * lowScale);
        }
        return ofLargest(worst);
    }

    /**
     * Adds {@code values[offset + k stride]}, {@code k < count}, all at {@code index} of a sum
     * of the given format (one block's value each): the column of a table of blocks.
     * The same words as depositing them one block at a time. Returns the summary.
     */
    static long column(long[] words, FixedFormat format, HalfLayout halves, Grid g, double lowScale, int index,
                       double[] values, int offset, int stride, int count) {
        int perValue = format == FixedFormat.TWO_WORDS ? 2 : 1;
        double a = g.scaleA();
        double b = g.scaleB();
        long or = 0;
        long finite = 1;
        long hiSum = 0;
        long loSum = 0;
        for (int k = 0; k < count; k++) {
            double y = values[offset + k * stride] * a * b;
            or |= Math.abs((long) y);
            finite &= (long) (y * 0.0 + 1.0);
            double hi = Math.rint(y);
            hiSum += (long) hi;
            loSum += perValue == 1 ? 0 : (long) Math.rint((y - hi) * lowScale);
        }
        if (format == FixedFormat.HALF_WORD) {
            words[halves.word(index)] += hiSum << halves.shift(index);    // the lane's exact sum, as deposits add it
        } else {
            words[perValue * index] += hiSum;
        }
        if (perValue == 2) {
            words[2 * index + 1] += loSum;
        }
        return summary(or, finite);
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
