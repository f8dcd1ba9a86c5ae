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
    /** The grids last made, per segment, and for how many blocks: a step like the last reuses them. */
    private final Grid[] made;
    private int madeBlocks;
    /** Whether {@link #codes} holds this step's codes. */
    private boolean filled;

    Exponents(int segments) {
        maxBits = new long[segments];
        codes = new long[segments];
        made = new Grid[segments];
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
                : FixedPoint.quantized(FixedPoint.exponentBound(m));
        }
        filled = true;
        return codes;
    }

    /**
     * {@return the grid last fixed for segment {@code s}, or null when none was, or it was fixed for
     * another number of blocks}
     * @param s      the segment
     * @param blocks this step's blocks
     */
    Grid last(int s, int blocks) {
        return madeBlocks == blocks ? made[s] : null;
    }

    /**
     * Sets {@code grids} from the codes (this rank's own if {@link #codes()} was not called since
     * {@link #clear()}).
     *
     * @throws NonFiniteValueException if a code says a NaN or an infinity was observed
     */
    void fix(Grid[] grids, FixedFormat format, int blocks, Segments segments) {
        if (!filled) {
            codes();
        }
        for (int s = 0; s < codes.length; s++) {
            if (codes[s] >= INFINITY_CODE) {
                throw new NonFiniteValueException(segments.describe(s) + " holds " + (codes[s] == NAN_CODE ? "a NaN"
                    : "an infinity") + " on some rank: a fixed-point sum needs finite values");
            }
            Grid g = made[s];
            if (g == null || g.exponent() != codes[s] || madeBlocks != blocks) {
                g = Grid.of((int) codes[s], format, blocks);
                made[s] = g;
            }
            grids[s] = g;
        }
        madeBlocks = blocks;
    }
}
