package org.paratrain.collective.sum;

/**
 * Exact arithmetic between doubles and fixed-point integers: powers of two, the exponent bound
 * of a magnitude, and the correctly rounded value of one word or of a high/low pair.
 *
 * <p>Correct rounding of {@code t 2^g}: when the result is normal, Java's {@code long} to
 * {@code double} conversion rounds {@code t} to 53 bits, to nearest, ties to even (JLS 5.1.2),
 * and the scaling by {@code 2^g} is then exact, so there is one rounding. When the result is
 * subnormal its grid is {@code 2^-1074}, coarser than 53 bits of {@code t}: converting first
 * and scaling after would round twice, so the integer is rounded onto that grid here, once.
 *
 * <p>A high/low pair {@code (hi 2^s + lo) 2^g} is up to 127 bits. It is normalised (the low
 * word's carry moved up, so that {@code 0 <= lo < 2^s}), its magnitude cut to its top 63 bits
 * with a sticky bit for everything below, and that converted as one word. The sticky bit is
 * at least 10 places below the rounding position (63 bits are kept, at most 53 survive), so a
 * tie of the cut value is a tie of the exact one and an excess of either is an excess of both:
 * the rounding is the one of the exact value. No floating-point addition is involved, so there
 * is no double rounding to argue about.
 */
final class FixedPoint {
    private FixedPoint() { }

    /** Bits of a double's magnitude at and above which it is infinite (above: NaN). */
    static final long INFINITY_BITS = 0x7ff0000000000000L;
    /** The least exponent bound, zero's: {@link #exponentBound(long) exponentBound(0)}. */
    static final int LEAST_BOUND = -1074;

    /**
     * The band a carried grid exponent {@code E} keeps: the step's largest magnitude in
     * {@code [2^(E-QUANTUM), 2^E)} (see {@code Exponents.band}). Training's gradients wander across
     * a power of two from one mini-batch to the next: with the tight bound, the grid guessed from
     * the step before failed in 21 of 38 steps of the Fashion-MNIST CNN (each failure a second
     * round and a second pass, and with buckets sent during backward, a second exchange); with
     * bounds rounded up to multiples of 4 binades, in 123 of 470 steps of the Fashion-MNIST MLP,
     * whose largest gradient hovered about 2^4; carried in a band of 4 binades, in 4. The price:
     * up to 3 bits of the grid's precision.
     */
    static final int QUANTUM = 4;

    /** {@return {@code 2^e} as a double, for {@code -1074 <= e <= 1023}, exactly} */
    static double pow2(int e) {
        if (e >= -1022) {
            return Double.longBitsToDouble((long) (e + 1023) << 52);
        }
        return Double.longBitsToDouble(1L << (e + 1074));   // subnormal, still exact
    }

    /**
     * {@return the least {@code E} with {@code m < 2^E} and {@code 2^(E-1) <= m}, for the bits of a
     * finite magnitude {@code m}; {@code -1074} for zero}
     */
    static int exponentBound(long magnitudeBits) {
        if (magnitudeBits >= 0x0010000000000000L) {
            return (int) (magnitudeBits >>> 52) - 1022;
        }
        return 64 - Long.numberOfLeadingZeros(magnitudeBits) - 1074;
    }

    /** {@return {@code d 2^g}, exact when the result is normal; {@code d} has at most 53 bits} */
    static double scale(double d, int g) {
        if (g >= -1022 && g <= 1023) {
            return d * pow2(g);
        }
        // Two exact steps: the intermediate stays normal whenever the result is.
        return g < 0 ? d * pow2(g + 600) * pow2(-600) : d * pow2(g - 600) * pow2(600);
    }

    /**
     * {@return {@code w 2^g} rounded to nearest, ties to even; infinite if beyond the doubles}
     * @param w a word, not {@code Long.MIN_VALUE}
     * @param g the exponent of the word's unit
     */
    static double toDouble(long w, int g) {
        return w < 0 ? -magnitude(-w, g) : magnitude(w, g);
    }

    /** {@code t 2^g} correctly rounded, for {@code t >= 0}. */
    static double magnitude(long t, int g) {
        if (t == 0) {
            return 0.0;
        }
        int top = g + 63 - Long.numberOfLeadingZeros(t);   // exponent of t's leading bit, scaled
        if (top >= -1022) {
            return scale((double) t, g);                    // one rounding, to 53 bits
        }
        int k = -1074 - g;                                  // bits below the subnormal grid
        if (k <= 0) {
            return scale((double) t, g);                    // already on the grid: exact
        }
        if (k >= 64) {
            return 0.0;                                     // t < 2^63 <= half a unit of the grid
        }
        long q = t >>> k;
        long rest = t & ((1L << k) - 1);
        long half = 1L << (k - 1);
        if (rest > half || (rest == half && (q & 1) != 0)) {
            q++;
        }
        return q * Double.MIN_VALUE;                        // q <= 2^52: exact
    }

    /**
     * {@return {@code (hi 2^s + lo) 2^g} rounded to nearest, ties to even; infinite if beyond
     * the doubles}
     * @param hi the high word, {@code |hi| <= 2^62}
     * @param lo the low word, {@code |lo| <= 2^62}
     * @param s  the low word's bits, {@code 1 <= s <= 63}
     * @param g  the exponent of the low word's unit
     */
    static double toDouble(long hi, long lo, int s, int g) {
        long mask = (1L << s) - 1;              // s <= 63: the right mask
        long carried = hi + (lo >> s);          // lo = (lo >> s) 2^s + (lo & mask), exactly
        long rest = lo & mask;                  // 0 <= rest < 2^s
        if (carried >= 0) {
            return magnitude(carried, rest, s, g);
        }
        // -(|carried| 2^s - rest): borrow one unit of the high word when rest is not zero.
        return rest == 0 ? -magnitude(-carried, 0, s, g) : -magnitude(-carried - 1, mask - rest + 1, s, g);
    }

    /** {@code (m 2^s + r) 2^g} correctly rounded, for {@code m >= 0} and {@code 0 <= r < 2^s}. */
    private static double magnitude(long m, long r, int s, int g) {
        if (m == 0) {
            return magnitude(r, g);
        }
        int bits = 64 - Long.numberOfLeadingZeros(m) + s;
        if (bits <= 63) {
            return magnitude((m << s) | r, g);                  // fits one word exactly
        }
        int drop = bits - 63;                                   // 1 <= drop <= s
        long t = (m << (s - drop)) | (r >>> drop);              // the top 63 bits
        long sticky = (r & ((1L << drop) - 1)) != 0 ? 1 : 0;    // drop <= 63: the mask is right
        return magnitude(t | sticky, g + drop);
    }
}
