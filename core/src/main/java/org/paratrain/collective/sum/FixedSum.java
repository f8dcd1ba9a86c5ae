package org.paratrain.collective.sum;

import java.util.Arrays;
import java.util.Objects;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;

/**
 * A reproducible sum of a vector over blocks and ranks: every value is rounded once onto a
 * grid fixed for the step and added as 64-bit integer words, whose addition is exact and
 * associative, so any split of the blocks among ranks and any allreduce gives the same bits.
 * {@link FixedFormat} states the error bound of each format.
 *
 * <p>The vector is cut into segments, each with its own grid (from the largest magnitude in
 * it): a loss of 10^4 and gradients of 10^-3 would otherwise share the loss's grid and lose
 * 23 bits. A trainer declares {@code new FixedSum(format, 1, params)}: the loss at index 0, the
 * gradient at {@code 1..params}.
 *
 * <p>Call order, per step, on every rank (one instance per rank, reused: no allocation after
 * construction):
 * <ol>
 *   <li>{@link #begin(int) begin(blocks)}: {@code blocks} is the number of blocks of the step
 *       over all ranks, which sizes the headroom.</li>
 *   <li>{@link #observe(int, double[], int, int) observe} every value this rank will deposit
 *       (the block's loss and gradient once computed): it records the largest magnitude per
 *       segment. The grid must be known before the first deposit, so a rank keeps its own
 *       blocks' partials until step 3.</li>
 *   <li>{@link #agree(Communicator, Allreduce) agree}: a maximum over the ranks of one
 *       integer per segment, exact and order-free, fixes every segment's grid alike on every
 *       rank. (Or {@link #exponentWords()}, reduce them by maximum yourself, {@link #fixGrid()}.)
 *       A NaN or an infinity observed anywhere stops every rank here.</li>
 *   <li>{@link #deposit(int, double[], int, int) deposit} each block's values, then
 *       {@link #endBlock()}; each index at most once a block.</li>
 *   <li>{@link #reduce(Communicator, Allreduce) reduce}: the integer allreduce of
 *       {@link #words()} (or move them yourself: any sum of the words works, {@link #merge}
 *       too).</li>
 *   <li>{@link #get(int)} or {@link #get(int, double[], int, int)}: the sum, correctly rounded.</li>
 * </ol>
 * An exception ends the step (a deposit of many values may have added some): {@link #begin}
 * starts afresh.
 *
 * <p><b>A guessed grid, one round fewer.</b> In training the largest magnitude of each segment
 * seldom changes its power of two from one step to the next, so the agreement of step 3 can
 * be skipped: {@link #guessGrid()} takes the grids agreed at the last step, and puts beside the
 * words one check word per segment saying whether this rank's largest magnitude is above that
 * grid's bound or at it. Deposit and reduce as usual; then {@link #guessHeld()} reads the summed
 * check words: when no rank was above and some rank was at the bound, the guessed grid is
 * exactly the one the agreement would have fixed, and the sum is the same bits. Otherwise
 * {@link #retry()} and go on from step 3: the step then costs one round more than without the
 * guess. Every rank decides alike, from the same summed words.
 */
public final class FixedSum {
    /** A check word's count of ranks above the guessed bound, in its high half (at most 2^31 ranks). */
    private static final long ABOVE = 1L << 32;
    private final FixedFormat format;
    private final Segments segments;
    /**
     * Per value 1 or 2 words (high, low), then a check word per segment (a guessed grid's: see
     * {@link #guessGrid()}), then the number of blocks deposited.
     */
    private final long[] words;
    /** Index in {@link #words} of the first check word. */
    private final int checks;
    /** Whether this step's grids are the last step's, not agreed. */
    private boolean guessed;
    /** A guessed grid too small for a value of this rank: its deposits are skipped (the guess fails anyway). */
    private boolean skipDeposits;
    private final Exponents exponents;
    private final Grid[] grids;
    private int blocks;
    /** Scaled magnitudes must stay below {@code 2^(62-h)}. */
    private double limit;
    private int lowBits;
    private double lowScale;

    /**
     * An accumulator for a vector of {@code sum(segmentLengths)} values.
     *
     * @param format         one or two words a value
     * @param segmentLengths the lengths of the segments, in order, each 0 or more; at least one
     */
    public FixedSum(FixedFormat format, int... segmentLengths) {
        this.format = Objects.requireNonNull(format, "format");
        this.segments = new Segments(segmentLengths);
        this.checks = segments.size() * format.words();
        this.words = new long[checks + segments.count() + 1];
        this.exponents = new Exponents(segments.count());
        this.grids = new Grid[segments.count()];
        Arrays.fill(grids, Grid.NONE);
    }

    /** {@return the number of values} */
    public int size() {
        return segments.size();
    }

    /** {@return the format} */
    public FixedFormat format() {
        return format;
    }

    /**
     * Starts a step: clears the words and the observed magnitudes.
     *
     * @param blocks the number of blocks of the step over all ranks: at most this many deposits
     *               at any index, the same on every rank
     */
    public void begin(int blocks) {
        int h = FixedFormat.headroom(blocks);
        this.blocks = blocks;
        this.limit = FixedPoint.pow2(62 - h);
        this.lowBits = FixedFormat.lowBits(blocks);
        this.lowScale = FixedPoint.pow2(lowBits);
        Arrays.fill(words, 0L);
        Arrays.fill(grids, Grid.NONE);
        exponents.clear();
        guessed = false;
        skipDeposits = false;
    }

    /**
     * Instead of {@link #agree}, takes the grids the last step agreed (or fixed), once every value
     * this rank will deposit was observed; fills this rank's check words. After the
     * {@link #reduce}, {@link #guessHeld()} says whether the guess was right. Every rank gets the
     * same answer here, since all went through the same agreements.
     *
     * @return false, with nothing changed, when there is no grid to guess from: the first step,
     *         or a step of another number of blocks than the last; then agree as usual
     */
    public boolean guessGrid() {
        if (blocks == 0) {
            throw new IllegalStateException("guessGrid before begin(blocks)");
        }
        for (int s = 0; s < grids.length; s++) {
            if (exponents.last(s, blocks) == null) {
                return false;
            }
        }
        long[] codes = exponents.codes();
        for (int s = 0; s < grids.length; s++) {
            Grid g = exponents.last(s, blocks);
            long bound = g.exponent();
            words[checks + s] = codes[s] > bound ? ABOVE : codes[s] == bound ? 1L : 0L;
            skipDeposits |= codes[s] > bound;
            grids[s] = g;
        }
        guessed = true;
        return true;
    }

    /**
     * {@return whether the guessed grids were the ones an agreement would have fixed, read from
     * the check words once reduced: no rank above any segment's bound, and some rank at each}
     * True when the grids were agreed, not guessed.
     */
    public boolean guessHeld() {
        if (!guessed) {
            return true;
        }
        for (int s = 0; s < grids.length; s++) {
            long w = words[checks + s];
            if ((w >>> 32) != 0 || (w & 0xffffffffL) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * After a guess that did not hold: clears the words and grids and keeps what was observed, so
     * that {@link #agree} and the deposits can follow again.
     */
    public void retry() {
        Arrays.fill(words, 0L);
        Arrays.fill(grids, Grid.NONE);
        guessed = false;
        skipDeposits = false;
    }

    /**
     * Records {@code x}, which this rank will deposit at {@code index}, for the grid.
     *
     * @param index where it will be deposited
     * @param x     the value; NaN and infinities are reported by {@link #fixGrid()}
     */
    public void observe(int index, double x) {
        exponents.observe(segments.of(index), x);
    }

    /**
     * Records {@code values[offset, offset + length)}, to be deposited at
     * {@code [index, index + length)}, for the grid.
     *
     * @param index  where the first will be deposited
     * @param values the values
     * @param offset index in {@code values} of the first
     * @param length how many
     */
    public void observe(int index, double[] values, int offset, int length) {
        checkRange(index, values.length, offset, length);
        for (int i = index; i < index + length; ) {
            int s = segments.of(i);
            int stop = Math.min(index + length, segments.end(s));
            exponents.observe(s, values, offset + i - index, offset + stop - index);
            i = stop;
        }
    }

    /**
     * {@return the exponent codes of the segments, filled from what this rank observed: reduce
     * them in place by maximum over the ranks ({@link Reduction#WORD_MAX}), then call
     * {@link #fixGrid()}} The array is this instance's own.
     */
    public long[] exponentWords() {
        return exponents.codes();
    }

    /**
     * Fixes every segment's grid from {@link #exponentWords()}, once they hold the maximum over
     * the ranks: the same grids on every rank. Called without {@link #exponentWords()} since
     * {@link #begin}, it takes this rank's own exponents: a sum on one rank.
     *
     * @throws NonFiniteValueException if a NaN or an infinity was observed on any rank
     */
    public void fixGrid() {
        if (blocks == 0) {
            throw new IllegalStateException("fixGrid before begin(blocks)");
        }
        exponents.fix(grids, format, blocks, segments);
    }

    /**
     * Agrees the grids with every rank: the maximum of the exponent codes by {@code algorithm},
     * then {@link #fixGrid()}. One allreduce of one word per segment.
     *
     * @param comm      the ranks; each calls this at the same point of the step
     * @param algorithm any allreduce (the result is exact and the same with each)
     * @throws NonFiniteValueException on every rank if a NaN or an infinity was observed on any
     */
    public void agree(Communicator comm, Allreduce algorithm) {
        long[] e = exponentWords();
        algorithm.allreduce(comm, e, 0, e.length, Reduction.WORD_MAX);
        fixGrid();
    }

    /**
     * Adds {@code x}, rounded to nearest on its segment's grid, at {@code index}. Allocation-free.
     *
     * @param index where
     * @param x     a value observed before the grid was fixed (or any below its bound)
     * @throws SumOverflowException if {@code |x|} is not below the segment's agreed bound
     * @throws NonFiniteValueException if {@code x} is NaN or infinite
     */
    public void deposit(int index, double x) {
        if (skipDeposits) {
            return;
        }
        Grid g = grids[segments.of(index)];
        double y = x * g.scaleA() * g.scaleB();
        if (!(Math.abs(y) < limit)) {
            throw refused(index, x);
        }
        if (format == FixedFormat.ONE_WORD) {
            words[index] += (long) Math.rint(y);
        } else {
            double hi = Math.rint(y);
            words[2 * index] += (long) hi;
            words[2 * index + 1] += (long) Math.rint((y - hi) * lowScale);    // y - hi is exact
        }
    }

    /**
     * Adds {@code values[offset, offset + length)} at {@code [index, index + length)}, as
     * {@link #deposit(int, double)} one by one, in one loop per segment.
     *
     * @param index  where the first goes
     * @param values the values
     * @param offset index in {@code values} of the first
     * @param length how many
     */
    public void deposit(int index, double[] values, int offset, int length) {
        checkRange(index, values.length, offset, length);
        if (skipDeposits) {
            return;
        }
        for (int i = index; i < index + length; ) {
            int s = segments.of(i);
            int stop = Math.min(index + length, segments.end(s));
            int at = offset + i - index;
            int k = format == FixedFormat.ONE_WORD ? Deposit.oneWord(words, grids[s], limit, i, values, at, stop - i)
                : Deposit.twoWords(words, grids[s], limit, lowScale, i, values, at, stop - i);
            if (k >= 0) {
                throw refused(i + k, values[at + k]);
            }
            i = stop;
        }
    }

    /**
     * Records one value of each of {@code count} blocks, {@code values[offset + k stride]}, all to
     * be deposited at {@code index}: a column of a table of blocks, as {@link #observe(int, double)}
     * of each.
     *
     * @param index  where they will be deposited
     * @param values the table
     * @param offset index in {@code values} of the first block's value
     * @param stride distance between two blocks' values
     * @param count  the blocks
     */
    public void observeColumn(int index, double[] values, int offset, int stride, int count) {
        checkColumn(index, values.length, offset, stride, count);
        exponents.observe(segments.of(index), values, offset, stride, count);
    }

    /**
     * Adds one value of each of {@code count} blocks at {@code index}, as
     * {@link #deposit(int, double)} of each would (the same words); for a table of few columns,
     * where a loop over the blocks is faster than a call a block. Count the blocks with
     * {@link #endBlocks(int)}.
     *
     * @param index  where
     * @param values the table
     * @param offset index in {@code values} of the first block's value
     * @param stride distance between two blocks' values
     * @param count  the blocks
     */
    public void depositColumn(int index, double[] values, int offset, int stride, int count) {
        checkColumn(index, values.length, offset, stride, count);
        if (skipDeposits) {
            return;
        }
        int k = Deposit.column(words, format.words(), grids[segments.of(index)], limit, lowScale, index, values,
            offset, stride, count);
        if (k >= 0) {
            throw refused(index, values[offset + k * stride]);
        }
    }

    /**
     * Counts {@code count} blocks deposited, as {@link #endBlock()} does one.
     *
     * @param count the blocks
     */
    public void endBlocks(int count) {
        words[words.length - 1] += count;
    }

    private void checkColumn(int index, int arrayLength, int offset, int stride, int count) {
        Objects.checkIndex(index, segments.size());
        if (count > 0) {
            Objects.checkIndex(offset, arrayLength);
            Objects.checkIndex(offset + (long) (count - 1) * stride > Integer.MAX_VALUE ? -1
                : offset + (count - 1) * stride, arrayLength);
        }
    }

    /** Counts one block deposited: the count travels with the words, and the conversion checks it. */
    public void endBlock() {
        words[words.length - 1]++;
    }

    /**
     * {@return the words: per value its word (or high and low word), then a check word per
     * segment, then the number of blocks deposited} Summing them element-wise with other ranks' (modulo 2^64) in any order, by any
     * means, is what {@link #reduce} does. The array is this instance's own.
     */
    public long[] words() {
        return words;
    }

    /**
     * Sums the words of every rank into every rank's: an allreduce of {@code words().length}
     * 64-bit words, exact, so every algorithm gives the same words.
     *
     * @param comm      the ranks; each calls this at the same point of the step
     * @param algorithm any allreduce, {@code native} included
     */
    public void reduce(Communicator comm, Allreduce algorithm) {
        algorithm.allreduce(comm, words, 0, words.length, Reduction.WORD_SUM);
    }

    /**
     * Adds another accumulator's words to this one's: for ranks that sum in shared memory before
     * (or instead of) an allreduce.
     *
     * @param other an accumulator of the same layout, begun with the same blocks, on the same grids
     * @throws IllegalArgumentException if the layout, the blocks or a grid differs
     */
    public void merge(FixedSum other) {
        if (other.format != format || !other.segments.sameAs(segments) || other.blocks != blocks
            || !Arrays.equals(other.grids, grids)) {
            throw new IllegalArgumentException("only accumulators of the same layout, blocks and grids can be merged");
        }
        for (int i = 0; i < words.length; i++) {
            words[i] += other.words[i];
        }
    }

    /** {@return the number of blocks deposited (over all ranks, once reduced)} */
    public long blocksDeposited() {
        return words[words.length - 1];
    }

    /**
     * {@return {@code E} of segment {@code s}: its values are below {@code 2^E}} Valid once fixed.
     * @param s the segment
     */
    public int exponentBound(int s) {
        return grids[s].exponent();
    }

    /**
     * {@return {@code G} of segment {@code s}: the grid {@code 2^G} its values are rounded onto}
     * @param s the segment
     */
    public int gridExponent(int s) {
        return grids[s].gridExponent();
    }

    /**
     * {@return the sum at {@code index}: the exact value of its words, rounded to nearest, ties to even}
     * @param index which value
     * @throws SumOverflowException if it exceeds the largest double, or more blocks were
     *         deposited than {@link #begin} was told
     */
    public double get(int index) {
        int s = segments.of(index);
        checkReadable(s);
        return Readout.value(words, format, index, grids[s], lowBits, blocks);
    }

    /**
     * Writes the sums of {@code [index, index + length)} into {@code out[offset, ...)}, as
     * {@link #get(int)} does one by one, in one loop per segment.
     *
     * @param index  the first value
     * @param out    where the sums go
     * @param offset index in {@code out} of the first
     * @param length how many
     */
    public void get(int index, double[] out, int offset, int length) {
        checkRange(index, out.length, offset, length);
        for (int i = index; i < index + length; ) {
            int s = segments.of(i);
            int stop = Math.min(index + length, segments.end(s));
            checkReadable(s);
            Readout.values(words, format, grids[s], lowBits, blocks, i, out, offset + i - index, stop - i);
            i = stop;
        }
    }

    private void checkReadable(int s) {
        if (grids[s] == Grid.NONE) {
            throw new IllegalStateException("get before the grid of " + segments.describe(s) + " was fixed");
        }
        Readout.checkBlocks(blocksDeposited(), blocks);
    }

    private void checkRange(int index, int arrayLength, int offset, int length) {
        Objects.checkFromIndexSize(index, length, segments.size());
        Objects.checkFromIndexSize(offset, length, arrayLength);
    }

    /** Why a deposit was refused: no grid yet, a non-finite value, or one beyond the agreed bound. */
    private RuntimeException refused(int index, double x) {
        int s = segments.of(index);
        if (grids[s] == Grid.NONE) {
            return new IllegalStateException("deposit at index " + index + " before the grid was fixed: begin, "
                + "observe every value, agree (or fixGrid), then deposit");
        }
        if (!Double.isFinite(x)) {
            return new NonFiniteValueException("deposit of " + x + " at index " + index
                + ": a fixed-point sum needs finite values");
        }
        return new SumOverflowException("value " + x + " at index " + index + " is not below 2^" + grids[s].exponent()
            + ", the bound agreed for segment " + s + ": every value must be observed before the grid is fixed");
    }
}
