package org.paratrain.collective.sum;

/**
 * How many 64-bit words a value of a {@link FixedSum} takes, and so where its grid lies.
 *
 * <p>Notation, per segment of the vector (the loss, the gradient, or any range the caller
 * declares): {@code N} the number of blocks of the step, so at most {@code N} deposits per
 * index over all ranks; {@code h = ceil(log2 N)} the headroom bits; {@code E} the segment's
 * grid exponent, with {@code |x| < 2^E} for every value {@code x} of the segment on every rank
 * and {@code 2^(E-4) <= M}, {@code M} the largest {@code |x|} (agreed by a maximum over the ranks
 * and carried from step to step while the largest magnitude stays in that band, so that a grid
 * guessed from the step before holds while it wanders: {@code FixedSum}, "the grid carried").
 * A deposit is {@code x} rounded to nearest, ties to even, onto the grid {@code 2^G}, once.
 * The words hold the sum of the rounded values exactly; the conversion back rounds that exact
 * value to the nearest double once. For an index with {@code n <= N} deposits whose exact sum
 * is {@code S}, the result {@code r} satisfies
 * <pre>
 *   |r - S| &lt;= n 2^(G-1) + ulp(r)/2        (n/2 units of the grid, plus the final rounding)
 * </pre>
 * where {@code ulp(r)/2} is at most {@code 2^-53 |r|} (or {@code 2^-1075} below the normal
 * range). The first term, relative to {@code M}:
 * <ul>
 *   <li>{@link #ONE_WORD}: {@code G = E - (62 - h)}, so {@code n 2^(G-1) <= n 2^(h-59) M <=
 *       2^(2h-59) M}. With 256 blocks: at most {@code 2^-43 M} in all, whatever the order.
 *       A rounded value is at most {@code 2^(62-h)} units, so {@code N} of them stay within
 *       {@code 2^62}: no carry can overflow the word.</li>
 *   <li>{@link #TWO_WORDS}: a high word on the grid {@code 2^(E-(62-h))} and a low word for
 *       the remainder, {@code 63 - h} bits finer, so {@code G = E - (125 - 2h)} and
 *       {@code n 2^(G-1) <= n 2^(2h-122) M <= 2^(3h-122) M}: {@code 2^-98 M} with 256 blocks,
 *       far below what a double sum loses ({@code (n-1) 2^-53} times the sum of the
 *       magnitudes). The low word of a deposit is at most {@code 2^(62-h)} in magnitude
 *       (the remainder is at most half a unit of the high grid), so again {@code N} deposits
 *       stay within {@code 2^62}; the words are carry-save: no carry passes between them until
 *       the conversion, which combines them exactly.</li>
 *   <li>{@link #HALF_WORD}: two values share a word, each in a 32-bit lane (a range of the
 *       vector pairs its first half with its second: {@code HalfLayout}):
 *       {@code G = E - (30 - h)}, so {@code n 2^(G-1) <= 2^(2h-27) M}: {@code 2^-23 M} with 4
 *       blocks, {@code 2^-11 M} with 256, coarser than a float32's own rounding when values
 *       span few powers of two of the largest. A lane's rounded value is at most
 *       {@code 2^(30-h)} units, so {@code N} deposits keep the lane's sum {@code L} within
 *       {@code 2^30}: the word holds {@code H 2^32 + L} exactly (as a sum of signed lanes, the
 *       low lane borrowing from the high one), and since {@code |L| < 2^31} the low 32 bits
 *       give {@code L} back by sign extension, and the rest {@code H}. So the words of any
 *       number of ranks still add as plain 64-bit integers, by any allreduce, with half the
 *       bytes on the wire: what a link of finite bandwidth pays for. At most
 *       {@link #HALF_WORD_MAX_BLOCKS} blocks a step (16 bits or more a lane).</li>
 * </ul>
 * All are reproducible: the rounded values depend only on {@code x}, {@code E} and
 * {@code N}, and integer addition is associative, so neither the number of ranks, nor the
 * split of blocks among them, nor the algorithm changes a bit.
 */
public enum FixedFormat {
    /** One word a value: the traffic of a double allreduce, error relative to the largest magnitude. */
    ONE_WORD(1),
    /** Two words a value (high and low, carry-save): more accurate than a double sum. */
    TWO_WORDS(2),
    /**
     * Half a word a value (two 32-bit lanes a word): half the bytes of a double allreduce, an
     * error relative to the largest magnitude near float32's; for float32 networks on links.
     */
    HALF_WORD(1);

    /** The most blocks a step of {@link #HALF_WORD} takes: 2^14, which leaves a lane 16 bits. */
    public static final int HALF_WORD_MAX_BLOCKS = 1 << 14;

    private final int words;

    FixedFormat(int words) {
        this.words = words;
    }

    /**
     * {@return the 64-bit words per value, 1 or 2; 1 for {@link #HALF_WORD}, whose two values
     * share a word} A vector of one or two words a value takes {@link #wordsFor(int)}; half words
     * take that a range ({@code FixedSum.cutHalves}).
     */
    public int words() {
        return words;
    }

    /**
     * {@return the 64-bit words {@code values} values of one range take (a sum of half words
     * cut into several ranges takes up to one word more a range)}
     * @param values how many, 0 or more
     */
    public int wordsFor(int values) {
        return switch (this) {
            case ONE_WORD -> values;
            case TWO_WORDS -> 2 * values;
            case HALF_WORD -> (values + 1) / 2;
        };
    }

    /**
     * {@return the bits of this format's high (or only) word, or lane, below the exponent
     * bound: {@code 62 - h}, or {@code 30 - h} for {@link #HALF_WORD}}
     * @param blocks the number of blocks of the step
     * @throws IllegalArgumentException for {@link #HALF_WORD} beyond {@link #HALF_WORD_MAX_BLOCKS}
     */
    public int unitBits(int blocks) {
        if (this != HALF_WORD) {
            return highBits(blocks);
        }
        if (blocks > HALF_WORD_MAX_BLOCKS) {
            throw new IllegalArgumentException("the sum fixed:half takes at most " + HALF_WORD_MAX_BLOCKS
                + " blocks a step (16 bits a lane), got " + blocks + ": use fixed:1, or larger blocks (--block-size)");
        }
        return 30 - headroom(blocks);
    }

    /**
     * {@return {@code h = ceil(log2 blocks)}, the headroom bits kept free for carries: at most 31,
     * which leaves a word at least 31 bits of precision}
     * @param blocks the number of blocks of the step, at least 1
     */
    public static int headroom(int blocks) {
        if (blocks < 1) {
            throw new IllegalArgumentException("a fixed-point sum needs at least 1 block, got " + blocks);
        }
        return 32 - Integer.numberOfLeadingZeros(blocks - 1);
    }

    /**
     * {@return the bits of the high (or only) word below the exponent bound: {@code 62 - h}}
     * @param blocks the number of blocks of the step
     */
    public static int highBits(int blocks) {
        return 62 - headroom(blocks);
    }

    /**
     * {@return the bits the low word adds below the high word's grid: {@code 63 - h}}
     * @param blocks the number of blocks of the step
     */
    public static int lowBits(int blocks) {
        return 63 - headroom(blocks);
    }

    /**
     * {@return {@code E - G}: how far below the exponent bound the finest grid lies}
     * @param blocks the number of blocks of the step
     */
    public int fractionBits(int blocks) {
        return this == TWO_WORDS ? highBits(blocks) + lowBits(blocks) : unitBits(blocks);
    }

    /** {@return the name on the command line: {@code fixed:1}, {@code fixed:2} or {@code fixed:half}} */
    public String label() {
        return this == HALF_WORD ? "fixed:half" : "fixed:" + words;
    }
}
