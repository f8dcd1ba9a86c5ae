package org.paratrain.collective.sum;

/**
 * What one rank saw of each segment's magnitudes, as the integers the ranks agree on by a
 * maximum: per segment, the exponent bound {@code E} of its largest magnitude, or a code above
 * every bound for an infinity or (higher still) a NaN, so that the maximum over the ranks
 * carries a non-finite value to every rank and all stop alike.
 *
 * <p>The largest magnitude is kept as the bits of {@code |x|}: as longs they order as the
 * magnitudes do, infinity and NaN above every finite value, so observing is an integer
 * maximum per value, with no floating-point comparison.
 */
final class Exponents {
    private static final long ABS = Long.MAX_VALUE;
    private static final long NAN_CODE = Long.MAX_VALUE;
    private static final long INFINITY_CODE = Long.MAX_VALUE - 1;

    private final long[] maxBits;
    private final long[] codes;
    /**
     * The grid's exponent per segment, carried from step to step ({@link #band}); {@link #NONE}
     * before the first agreement.
     */
    private final int[] carried;
    /** The grids last made, per segment, and for how many blocks: a step like the last reuses them. */
    private final Grid[] made;
    private final int[] madeBlocks;
    private final FixedFormat format;
    /** Whether {@link #codes} holds this step's codes. */
    private boolean filled;

    Exponents(int segments, FixedFormat format) {
        this.format = format;
        madeBlocks = new int[segments];
        maxBits = new long[segments];
        codes = new long[segments];
        made = new Grid[segments];
        carried = new int[segments];
        java.util.Arrays.fill(carried, NONE);
    }

    /** No exponent carried yet. */
    static final int NONE = Integer.MIN_VALUE;
    /** The largest exponent bound a grid takes: every finite double is below {@code 2^1024}. */
    private static final int MOST = 1024;

    /**
     * The grid's exponent for a step whose largest magnitude over the ranks is below {@code 2^n}
     * (and at least {@code 2^(n-1)}), after a step whose grid's exponent was {@code e}: kept while
     * {@code n} stays within the band {@code [e - 3, e]} (the magnitude is below the grid's bound
     * and at most {@link FixedPoint#QUANTUM} binades under it: at least {@code 2^(e-4)}), else set afresh
     * {@link #MARGIN} binades above {@code n}, in the middle of the band. So the largest magnitude
     * can rise 4x or fall 2x before the grid moves, and the grid's bound is always at most 4
     * binades above it ({@link FixedFormat}'s error bound). A function of the maxima over the
     * ranks alone, step after step: the same at any node count; a checkpoint carries it.
     *
     * @param e the exponent carried from the step before, or {@link #NONE}
     * @param n the step's exponent bound, {@link FixedPoint#LEAST_BOUND} for zeros alone
     */
    static int band(int e, int n) {
        boolean kept = e != NONE && (e == FixedPoint.LEAST_BOUND ? n == e : n <= e && n > e - FixedPoint.QUANTUM);
        if (kept) {
            return e;
        }
        return n == FixedPoint.LEAST_BOUND ? n : Math.min(n + MARGIN, MOST);
    }

    /** Binades a fresh grid's bound sits above the step's largest magnitude's. */
    static final int MARGIN = 2;

    /** {@return the exponent carried for segment {@code s}, {@link #NONE} before the first agreement} */
    int carried(int s) {
        return carried[s];
    }

    /**
     * Sets the exponent carried for segment {@code s} (from a checkpoint, or from the rank that
     * summed the step before), or forgets it with {@link #NONE}.
     */
    void carry(int s, int e) {
        if (e != NONE && (e < FixedPoint.LEAST_BOUND || e > MOST)) {
            throw new IllegalArgumentException("a grid exponent of " + e + ": expected " + FixedPoint.LEAST_BOUND
                + " to " + MOST);
        }
        carried[s] = e;
    }

    void clear() {
        java.util.Arrays.fill(maxBits, 0L);
        filled = false;
    }

    void observe(int s, double x) {
        maxBits[s] = Math.max(maxBits[s], Double.doubleToRawLongBits(x) & ABS);
    }

    /** Observes {@code values[from, to)}, all of segment s. */
    void observe(int s, double[] values, int from, int to) {
        long m = maxBits[s];
        for (int j = from; j < to; j++) {
            m = Math.max(m, Double.doubleToRawLongBits(values[j]) & ABS);
        }
        maxBits[s] = m;
    }

    /** Observes {@code values[offset + k stride]}, {@code k < count}, all of segment s. */
    void observe(int s, double[] values, int offset, int stride, int count) {
        long m = maxBits[s];
        for (int k = 0; k < count; k++) {
            m = Math.max(m, Double.doubleToRawLongBits(values[offset + k * stride]) & ABS);
        }
        maxBits[s] = m;
    }

    /** Fills the codes from what was observed and returns them (the live array, to be reduced in place). */
    long[] codes() {
        for (int s = 0; s < codes.length; s++) {
            long m = maxBits[s];
            codes[s] = m > FixedPoint.INFINITY_BITS ? NAN_CODE : m == FixedPoint.INFINITY_BITS ? INFINITY_CODE
                : FixedPoint.exponentBound(m);
        }
        filled = true;
        return codes;
    }

    /**
     * {@return the grid of the exponent carried for segment {@code s}, for {@code blocks} blocks,
     * or null when none is carried yet}
     * @param s      the segment
     * @param blocks this step's blocks
     */
    Grid last(int s, int blocks) {
        return carried[s] == NONE ? null : grid(s, carried[s], blocks);
    }

    /** The grid of exponent {@code e} for segment s: the one made last when it matches, else a new one. */
    private Grid grid(int s, int e, int blocks) {
        Grid g = made[s];
        if (g == null || g.exponent() != e || madeBlocks[s] != blocks) {
            g = Grid.of(e, format, blocks);
            made[s] = g;
            madeBlocks[s] = blocks;
        }
        return g;
    }

    /**
     * Sets {@code grids} from the codes (this rank's own if {@link #codes()} was not called since
     * {@link #clear()}).
     *
     * @throws NonFiniteValueException if a code says a NaN or an infinity was observed
     */
    void fix(Grid[] grids, int blocks, Segments segments) {
        if (!filled) {
            codes();
        }
        for (int s = 0; s < codes.length; s++) {
            if (codes[s] >= INFINITY_CODE) {
                throw new NonFiniteValueException(segments.describe(s) + " holds " + (codes[s] == NAN_CODE ? "a NaN"
                    : "an infinity") + " on some rank: a fixed-point sum needs finite values");
            }
        }
        for (int s = 0; s < codes.length; s++) {     // only once every segment is finite: nothing carried from a failed step
            carried[s] = band(carried[s], (int) codes[s]);
            grids[s] = grid(s, carried[s], blocks);
        }
    }
}
