package org.paratrain.collective.sum;

import java.util.Arrays;

/**
 * Where {@link FixedFormat#HALF_WORD} puts each value: the vector is cut into ranges (its
 * segments, and any further cuts a caller asks for: {@link FixedSum#cutHalves}), and a range of
 * {@code n} values takes {@code H = ceil(n/2)} words of its own, word {@code j} holding the
 * range's value {@code j} in its low lane and value {@code H + j} in its high one.
 *
 * <p>Why not value {@code i} in word {@code i/2}: a run of values then goes to its words by
 * pairs, two doubles a word read at stride 2, and that loop does not vectorise (2.1 ns a value
 * on this machine's AVX-512 cores, against 0.4-0.5 for the loops of a range's two halves, each
 * unit-stride: {@code words[w + j] += rint(y) << lane}). And since a range fills words no other
 * range touches, the words of a bucket cut at a range's edge can be summed while the rest of
 * the vector is still being deposited ({@link FixedSum#wordsFrom}); the old layout left a word
 * shared at each such cut, summed after the others. The layout changes no bit: each lane sums
 * exactly, and a word is the same {@code H 2^32 + L} whichever lanes it pairs.
 */
final class HalfLayout {
    /** Range {@code r} holds values {@code [starts[r], starts[r + 1])}; the last entry is the size. */
    private final int[] starts;
    /** Range {@code r} fills words {@code [bases[r], bases[r + 1])}; the last entry is the word count. */
    private final int[] bases;

    /**
     * The ranges of a vector cut at each segment's edge and at each of {@code cuts}.
     *
     * @param segments the sum's segments
     * @param cuts     further value indices to cut at, each within {@code [0, size]}, in any order
     */
    HalfLayout(Segments segments, int... cuts) {
        int size = segments.size();
        int[] all = new int[segments.count() + cuts.length + 1];
        int n = 0;
        for (int s = 0; s < segments.count(); s++) {
            all[n++] = segments.start(s);
        }
        for (int c : cuts) {
            if (c < 0 || c > size) {
                throw new IllegalArgumentException("a cut of the half words at value " + c
                    + " is outside the vector's 0.." + size);
            }
            all[n++] = c;
        }
        all[n++] = size;
        int[] sorted = Arrays.stream(all, 0, n).sorted().distinct().toArray();
        this.starts = sorted;
        this.bases = new int[sorted.length];
        for (int r = 0; r + 1 < sorted.length; r++) {
            bases[r + 1] = bases[r] + (sorted[r + 1] - sorted[r] + 1) / 2;
        }
    }

    /** {@return whether {@code other} cuts the vector at the same values: the same words for each} */
    boolean sameAs(HalfLayout other) {
        return Arrays.equals(starts, other.starts);
    }

    /** {@return the value words: every range's} */
    int words() {
        return bases[bases.length - 1];
    }

    /** {@return the range of value {@code index}, {@code 0 <= index < size}: a binary search} */
    int range(int index) {
        int r = Arrays.binarySearch(starts, index);
        return r >= 0 ? r : -r - 2;
    }

    /** {@return the first value of range {@code r}; {@code start(ranges())} is the size} */
    int start(int r) {
        return starts[r];
    }

    /** {@return the first word of range {@code r}} */
    int base(int r) {
        return bases[r];
    }

    /** {@return the number of ranges} */
    int ranges() {
        return starts.length - 1;
    }

    /** {@return {@code H} of range {@code r}: its words, and its low half's values} */
    int half(int r) {
        return bases[r + 1] - bases[r];
    }

    /** {@return the word of value {@code index}} */
    int word(int index) {
        int r = range(index);
        int j = index - starts[r];
        int h = half(r);
        return bases[r] + (j < h ? j : j - h);
    }

    /** {@return the shift of value {@code index}'s lane: 0 (low) or 32 (high)} */
    int shift(int index) {
        int r = range(index);
        return index - starts[r] < half(r) ? 0 : 32;
    }

    /**
     * {@return the first word holding values at or after {@code value} only}: the first word of the
     * range starting there, or of the next range when {@code value} falls inside one
     */
    int wordsFrom(int value) {
        if (value >= starts[starts.length - 1]) {
            return words();
        }
        int r = range(value);
        return starts[r] == value ? bases[r] : bases[r + 1];
    }

    /**
     * {@return the end (exclusive) of the words holding values before {@code value} only}: the first
     * word of the range starting there, or of the range {@code value} falls inside
     */
    int wordsBefore(int value) {
        if (value >= starts[starts.length - 1]) {
            return words();
        }
        return bases[range(value)];
    }

    /**
     * Adds {@code values[offset, offset + length)}, value indices {@code [index, index + length)}
     * all of one segment (so of one grid), into their lanes; returns the runs' summary
     * ({@link Deposit}). A run that covers a range whole goes in one loop a word (both lanes);
     * else each half of each range it touches goes in a loop of its own.
     */
    long deposit(long[] words, Grid g, int index, double[] values, int offset, int length) {
        long summary = 0;
        int end = index + length;
        int delta = offset - index;                // value v is at values[v + delta]
        for (int r = range(index); index < end; r++) {
            int lo = starts[r];
            int h = half(r);
            int stop = Math.min(end, starts[r + 1]);
            int at = lo + delta;                   // where value lo is (or would be) in values
            if (index == lo && stop == starts[r + 1]) {
                int n = stop - lo;
                summary |= Deposit.halfPairs(words, g, bases[r], values, at, at + h, n - h);
                if (n - h < h) {                   // n odd: the last low lane has no partner
                    summary |= Deposit.halfLane(words, g, bases[r] + h - 1, 0, values, at + h - 1, 1);
                }
            } else {
                int lowStop = Math.min(stop, lo + h);
                if (index < lowStop) {
                    summary |= Deposit.halfLane(words, g, bases[r] + index - lo, 0, values, at + index - lo,
                        lowStop - index);
                }
                int highFrom = Math.max(index, lo + h);
                if (highFrom < stop) {
                    summary |= Deposit.halfLane(words, g, bases[r] + highFrom - lo - h, 32, values,
                        at + highFrom - lo, stop - highFrom);
                }
            }
            index = stop;
        }
        return summary;
    }

    /**
     * Writes the sums of value indices {@code [index, index + length)}, all of one segment, into
     * {@code out[offset, ...)}; returns the OR of the lanes' magnitudes (2^30 or more: the caller
     * redoes the run value by value, which explains what is wrong).
     */
    long values(long[] words, double unit, int index, double[] out, int offset, int length) {
        long or = 0;
        int end = index + length;
        int delta = offset - index;                // value v goes to out[v + delta]
        for (int r = range(index); index < end; r++) {
            int lo = starts[r];
            int h = half(r);
            int stop = Math.min(end, starts[r + 1]);
            int at = lo + delta;
            int lowStop = Math.min(stop, lo + h);
            if (index < lowStop) {
                or |= Readout.lowLanes(words, bases[r] + index - lo, unit, out, at + index - lo, lowStop - index);
            }
            int highFrom = Math.max(index, lo + h);
            if (highFrom < stop) {
                or |= Readout.highLanes(words, bases[r] + highFrom - lo - h, unit, out, at + highFrom - lo,
                    stop - highFrom);
            }
            index = stop;
        }
        return or;
    }
}
