package org.paratrain.collective.sum;

/**
 * The grid of one segment for one step: where a value's words lie, derived from the agreed
 * exponent bound {@code E}, the format and the number of blocks alone, so that every rank
 * derives the same one.
 *
 * <p>A deposit scales {@code x} by {@code 2^-G_h} ({@code G_h} the high word's grid) in two
 * multiplications by powers of two, {@code scaleA} and {@code scaleB}, both normal doubles:
 * {@code 2^-G_h} itself reaches {@code 2^1136} for a segment of subnormals. Scaling up is
 * exact; scaling down is exact except where the result falls below {@code 2^-1022}, and such a
 * result rounds to 0 whatever its last bits, so no value's rounding depends on it.
 *
 * @param exponent     {@code E}: every value of the segment is below {@code 2^E} in magnitude
 * @param highExponent {@code G_h}: the unit of the high (or only) word is {@code 2^G_h}
 * @param gridExponent {@code G}: the unit of the finest word, the grid values are rounded onto
 * @param scaleA       first factor of {@code 2^-G_h}
 * @param scaleB       second factor of {@code 2^-G_h}
 * @param unit         {@code 2^G} when one word's value converts by one multiplication (a
 *                     nonzero word times it is normal); NaN when it must take the careful path
 */
record Grid(int exponent, int highExponent, int gridExponent, double scaleA, double scaleB, double unit) {
    /**
     * {@return whether every nonzero value of the segment is a normal double that a word (or a
     * cut high/low pair) converts to with one conversion and one exact scaling: {@code G} from
     * {@code -1022} to 900, so that {@code 2^(G + 63)} is a normal double too}
     */
    boolean normal() {
        return gridExponent >= -1022 && gridExponent <= 900;
    }

    /** The grid before agreement: every deposit fails the range check and is refused. */
    static final Grid NONE = new Grid(0, 0, 0, Double.NaN, Double.NaN, Double.NaN);

    /**
     * {@return the grid for exponent bound {@code e}}
     * @param e      the agreed exponent bound, in {@code [-1074, 1024]}
     * @param format one or two words, or half a word
     * @param blocks the number of blocks of the step
     */
    static Grid of(int e, FixedFormat format, int blocks) {
        int high = e - format.unitBits(blocks);
        int grid = e - format.fractionBits(blocks);
        int up = -high;                                    // in [-993, 1136]
        double a = up > 1000 ? FixedPoint.pow2(up - 200) : FixedPoint.pow2(up);
        double b = up > 1000 ? FixedPoint.pow2(200) : 1.0;
        double unit = grid >= -1022 ? FixedPoint.pow2(grid) : Double.NaN;
        return new Grid(e, high, grid, a, b, unit);
    }
}
