package org.paratrain.collective.sum;

import java.util.Arrays;
import java.util.Objects;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
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
 * <p>Call order, per step, on every rank (one instance per rank, reused: no allocation a step;
 * the buffers of {@link #reduceInto} and {@link #ringInto} are made by their first call):
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
 * <p><b>The grid carried from step to step.</b> A segment's grid exponent {@code E} is kept from
 * one step to the next while the step's largest magnitude (over all ranks) stays in the band
 * {@code [2^(E-4), 2^E)}, and set afresh 2 binades above it when it leaves: so a magnitude that
 * hovers about a power of two does not move the grid back and forth (with grids fixed from each
 * step's magnitude alone, the Fashion-MNIST MLP's moved in 123 of 470 steps; carried, in 4). The
 * grids are then a function of the maxima of the steps so far, the same at any node count; a
 * checkpoint keeps them ({@link #carried}, {@link #carry}).
 *
 * <p><b>A guessed grid: no observing pass, one round fewer.</b> Since the grid seldom moves,
 * steps 2 and 3 can be skipped: after {@link #begin}, {@link #guessGrid()} takes the grids
 * carried from the last step, and the deposits go straight onto them, keeping a summary of the magnitudes
 * they see per segment ({@link Deposit}: in the same loop, no pass of its own over the values). Before the words leave,
 * one check word per segment is put beside them, saying whether this rank's largest magnitude
 * was above the guessed bound or at it. Reduce as usual; then {@link #guessHeld()} reads the
 * summed check words: when no rank was above the bound and some rank was at it (within
 * 4 binades under it), the band keeps the grid, so the guessed grid is exactly the one the
 * agreement would have fixed, and the sum is the same bits. Otherwise
 * {@link #retry()}, observe, and go on from step 3: the step then costs one round and one pass
 * more than without the guess. Every rank decides alike, from the same summed words. A value
 * beyond a guessed bound, a NaN or an infinity is not refused at its deposit: it fails the guess,
 * and the agreement after the retry reports a non-finite value on every rank.
 *
 * <p>The words are not cleared by {@link #begin}: the first deposit of a step that covers the
 * whole vector writes them instead of adding to them (one pass over them fewer); anything else
 * clears them first.
 */
public final class FixedSum {
    final FixedFormat format;
    final Segments segments;
    /**
     * Per value 1 or 2 words (high, low), or half a word ({@link #halves}), then a check word per
     * segment (a guessed grid's: see {@link #guessGrid()}), then the number of blocks deposited.
     * Made anew only by {@link #cutHalves}, for half words.
     */
    long[] words;
    /** Index in {@link #words} of the first check word. */
    int checks;
    /** Where half words put each value; null for the other formats. */
    HalfLayout halves;
    /** Whether this step's grids are the last step's, not agreed. */
    boolean guessed;
    /** On a guessed grid, the summary of the scaled magnitudes deposited per segment ({@link Deposit}). */
    final long[] seen;
    /** Whether the value words hold this step's deposits (else they are stale and count as zero). */
    boolean cleared;
    /** Whether a guess's check words are in {@link #words} (written once, before they leave). */
    boolean sealed;
    /** The chunked ways of a step ({@link #reduceInto}, {@link #ringInto}), made by the first. */
    private ChunkedSum chunked;
    /** The grids' agreement, guess, check words and retry ({@link GridProtocol}). */
    private final GridProtocol protocol;
    /** The words summed in buckets and their layout ({@link BucketWords}). */
    private final BucketWords buckets;
    /** The step's words summed in one call ({@link StepReduce}). */
    private final StepReduce stepReduce;
    private final Exponents exponents;
    final Grid[] grids;
    int blocks;
    /** Scaled magnitudes must stay below {@code 2^(62-h)} ({@code 2^(30-h)} for half a word): {@code limit}, {@code 2^limitBits}. */
    double limit;
    int limitBits;
    private int lowBits;
    double lowScale;

    /**
     * An accumulator for a vector of {@code sum(segmentLengths)} values.
     *
     * @param format         one or two words a value
     * @param segmentLengths the lengths of the segments, in order, each 0 or more; at least one
     */
    public FixedSum(FixedFormat format, int... segmentLengths) {
        this.format = Objects.requireNonNull(format, "format");
        this.segments = new Segments(segmentLengths);
        this.halves = format == FixedFormat.HALF_WORD ? new HalfLayout(segments) : null;
        this.checks = halves != null ? halves.words() : format.wordsFor(segments.size());
        this.words = new long[checks + segments.count() + 1];
        this.exponents = new Exponents(segments.count(), format);
        this.grids = new Grid[segments.count()];
        this.seen = new long[segments.count()];
        Arrays.fill(grids, Grid.NONE);
        this.protocol = new GridProtocol(this, exponents, segments, grids, seen);
        this.buckets = new BucketWords(this, format, segments);
        this.stepReduce = new StepReduce(this, format);
    }

    /**
     * Lays half words out so that the values of each range between two cuts fill words of their
     * own: a bucket cut there can be summed while the rest of the vector is still being
     * deposited ({@link #wordsFrom}, {@link #reduceWords}). Segments' edges are always cuts. No
     * bit of any sum changes (each lane sums exactly, whichever lanes share a word); every rank
     * must cut alike, since the words it sends are laid out so. The other formats give each value
     * words of its own already: for them this does nothing.
     *
     * @param cuts value indices, each from 0 to {@link #size()}, in any order
     * @throws IllegalArgumentException for a cut outside the vector
     * @throws IllegalStateException once anything was deposited since the last {@link #begin}, or a
     *         step's sum is held (the words are made anew: cut before a step's first deposit)
     */
    public void cutHalves(int... cuts) {
        buckets.cutHalves(cuts);
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
     * Starts a step: the words count as zero, nothing is observed.
     *
     * @param blocks the number of blocks of the step over all ranks: at most this many deposits
     *               at any index, the same on every rank
     */
    public void begin(int blocks) {
        int bits = format.unitBits(blocks);
        this.blocks = blocks;
        this.limit = FixedPoint.pow2(bits);
        this.limitBits = bits;
        this.lowBits = FixedFormat.lowBits(blocks);
        this.lowScale = FixedPoint.pow2(lowBits);
        exponents.clear();
        restart();
    }

    /** The words count as zero again, no grid, no guess. */
    void restart() {
        Arrays.fill(words, checks, words.length, 0L);
        cleared = false;
        Arrays.fill(grids, Grid.NONE);
        Arrays.fill(seen, 0L);
        guessed = false;
        sealed = false;
    }

    /** Refuses a deposit once a guess's check words were written: they would not count it. */
    private void checkNotSealed() {
        if (sealed) {
            throw new IllegalStateException("deposit after the words left (words(), reduce or merge) on a guessed grid: "
                + "the check words would not count it");
        }
    }

    /** Zeroes the value words if this step has not written them yet. */
    void clear() {
        if (!cleared) {
            Arrays.fill(words, 0, checks, 0L);
            cleared = true;
        }
    }

    /**
     * Instead of observing and {@link #agree}, takes the grids carried from the last step;
     * call it after {@link #begin}, before the first deposit (values observed before are kept
     * for a {@link #retry()}, not used here). After the {@link #reduce}, {@link #guessHeld()}
     * says whether the guess was right. Every rank gets the same answer here, since all went
     * through the same agreements.
     *
     * @return false, with nothing changed, when there is no grid to guess from (before the first
     *         agreement, or after {@link #carry} forgot it); then agree as usual
     */
    public boolean guessGrid() {
        return protocol.guessGrid();
    }

    /** Writes a guess's check words once, before the words leave ({@link GridProtocol#seal()}). */
    void seal() {
        protocol.seal();
    }

    /**
     * {@return whether the guessed grids were the ones an agreement would have fixed, read from
     * the check words once reduced: no rank above any segment's bound, and some rank at each}
     * True when the grids were agreed, not guessed.
     */
    public boolean guessHeld() {
        return protocol.guessHeld();
    }

    /**
     * After a guess that did not hold: the words count as zero again (they are cleared or written
     * before they are read), the grids are dropped, and what was observed is kept, so
     * that the observing of every value (if not done before the guess), {@link #agree} and the
     * deposits can follow again.
     */
    public void retry() {
        protocol.retry();
    }

    /** {@return how many times {@link #retry()} was called: guesses that did not hold} */
    public long retries() {
        return protocol.retries();
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
        protocol.observe(index, values, offset, length);
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
        protocol.fixGrid();
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
        protocol.agree(comm, algorithm);
    }

    /**
     * Adds {@code x}, rounded to nearest on its segment's grid, at {@code index}. Allocation-free.
     *
     * @param index where
     * @param x     a value observed before the grid was fixed (or any below its bound)
     * @throws SumOverflowException if {@code |x|} is not below the segment's agreed bound (on a
     *         guessed grid: the guess fails instead)
     * @throws NonFiniteValueException if {@code x} is NaN or infinite (on a guessed grid: the guess
     *         fails instead)
     */
    public void deposit(int index, double x) {
        checkNotSealed();
        clear();
        int s = segments.of(index);
        Grid g = grids[s];
        double y = x * g.scaleA() * g.scaleB();
        long m = Deposit.summary(y);
        if (Deposit.reaches(m, limitBits)) {
            if (!guessed || g == Grid.NONE) {
                throw refused(index, x);
            }
            seen[s] |= Long.MIN_VALUE;     // fails the guess; the deposit is not made
            return;
        }
        seen[s] |= m;
        if (format == FixedFormat.ONE_WORD) {
            words[index] += (long) Math.rint(y);
        } else if (format == FixedFormat.HALF_WORD) {
            words[halves.word(index)] += (long) Math.rint(y) << halves.shift(index);    // a signed lane: see FixedFormat
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
        checkNotSealed();
        // The first deposit of a step over the whole vector writes the words: no clearing pass
        // (half words add: their loops have no writing form, and a range's odd last word has one lane).
        boolean add = cleared || index != 0 || length != segments.size() || format == FixedFormat.HALF_WORD;
        if (add) {
            clear();
        }
        for (int i = index; i < index + length; ) {
            int s = segments.of(i);
            int stop = Math.min(index + length, segments.end(s));
            int at = offset + i - index;
            long m = switch (format) {
                case ONE_WORD -> Deposit.oneWord(words, grids[s], add, i, values, at, stop - i);
                case TWO_WORDS -> Deposit.twoWords(words, grids[s], add, lowScale, i, values, at, stop - i);
                case HALF_WORD -> halves.deposit(words, grids[s], i, values, at, stop - i);
            };
            cleared = true;
            int k = checkDeposited(s, m, values, at, 1, stop - i);
            if (k >= 0) {
                throw refused(i + k, values[at + k]);
            }
            i = stop;
        }
    }

    /**
     * Checks a run just deposited into segment {@code s}, whose magnitudes' summary was {@code m}
     * ({@link Deposit}): on an agreed grid a value beyond the bound is refused (the position of the
     * first is returned, else -1), on a guessed one the summary is kept for the check words.
     */
    int checkDeposited(int s, long m, double[] values, int offset, int stride, int count) {
        if (guessed) {
            seen[s] |= m;
            return -1;
        }
        return !Deposit.reaches(m, limitBits) ? -1
            : Math.max(0, Deposit.firstBeyond(grids[s], limit, values, offset, stride, count));
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
        protocol.observeColumn(index, values, offset, stride, count);
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
        checkNotSealed();
        clear();
        int s = segments.of(index);
        long m = Deposit.column(words, format, halves, grids[s], lowScale, index, values, offset, stride, count);
        int k = checkDeposited(s, m, values, offset, stride, count);
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

    void checkColumn(int index, int arrayLength, int offset, int stride, int count) {
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
     * {@return the words: per value its word (or high and low word; half words: a range's two
     * halves lane by lane, {@link #cutHalves}), then a check word per segment, then the number of
     * blocks deposited} Summing them element-wise with other ranks' (modulo 2^64) in any order, by any
     * means, is what {@link #reduce} does. The array is this instance's own.
     */
    public long[] words() {
        seal();
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
        stepReduce.reduce(comm, algorithm);
    }

    /**
     * Sums every rank's words and writes the sums of every value into
     * {@code out[offset, offset + size())} on every rank, as {@link #reduce} and then
     * {@link #get(int, double[], int, int)} would (the same bits), by the halves of an allreduce:
     * first the check words and the block count alone (one small allreduce), then, if the guess
     * held, the value words reduce-scattered, each rank converting only its own chunk to doubles,
     * and the doubles allgathered. The conversion is divided by the rank count, and a guess that
     * failed costs the small allreduce only.
     *
     * @param comm   the ranks; each calls this at the same point of the step
     * @param tail   any allreduce, for the check words and the count
     * @param halves the reduce-scatter and the allgather
     * @param out    where the sums go (unspecified when the guess failed)
     * @param offset index in {@code out} of the first
     * @return {@link #guessHeld()}: when false, nothing but the small allreduce was done; retry.
     *         Afterwards the words hold the sum of this rank's own chunk only: read {@code out}
     */
    public boolean reduceInto(Communicator comm, Allreduce tail, AllreduceHalves halves, double[] out, int offset) {
        return stepReduce.reduceInto(comm, tail, halves, out, offset);
    }

    /**
     * The whole step in one ring, for {@code count} rows of {@link #size()} values this rank holds
     * (row {@code k} at {@code rows[offset + k stride]}), in place of their deposits, the
     * {@link #endBlock}s and the {@link #reduce}: the ring's reduce-scatter deposits each chunk
     * as it combines it (the words received plus this rank's own, one pass), the check words and
     * the count follow in one small allreduce, and if the guess held each rank converts its own
     * chunk and the ring allgathers the doubles. The same bits as depositing, reducing and
     * {@link #get(int, double[], int, int) get}; each value is read once and each word written
     * once on its way, and for one word and one row the own chunk's last combine is its
     * conversion (its words are not stored). Afterwards {@link #words()} are not the sum: read
     * {@code out}. Call after {@link #begin} and {@link #guessGrid()} (or an agreement).
     *
     * @param comm      the ranks; each calls this at the same point of the step
     * @param tail      any allreduce, for the check words and the count
     * @param rows      this rank's rows
     * @param offset    index of the first row's first value
     * @param stride    distance between two rows
     * @param count     the rows, 0 or more (each a block)
     * @param previousCount the rows the previous rank of the ring ({@code rank - 1}, modulo the
     *                  size) holds: a rank of one row sends its values themselves, and the next
     *                  rank must know to expect them
     * @param out       where the sums go on every rank (unspecified when the guess failed); when
     *                  the previous rank sends its values, its array (if it is not {@code rows})
     *                  also takes them, and the own chunk is summed there in place
     * @param outOffset index in {@code out} of the first
     * @return {@link #guessHeld()}: when false, retry
     */
    public boolean ringInto(Communicator comm, Allreduce tail, double[] rows, int offset, int stride, int count,
                            int previousCount, double[] out, int outOffset) {
        return stepReduce.ringInto(comm, tail, rows, offset, stride, count, previousCount, out, outOffset);
    }

    /**
     * {@return the first word that holds values at or after {@code value} only}: with
     * {@link #wordsBefore} it names the words a range of values fills alone, which may be summed
     * ({@link #reduceWords}) while other values are still being deposited (half words: exact at
     * the cuts of {@link #cutHalves} and the segments' edges; inside a range, the range's words are
     * left to the rest)
     * @param value a value index, 0 to {@link #size()}
     */
    public int wordsFrom(int value) {
        return buckets.wordsFrom(value);
    }

    /**
     * {@return the end (exclusive) of the words that hold values before {@code value} only}
     * @param value a value index, 0 to {@link #size()}
     */
    public int wordsBefore(int value) {
        return buckets.wordsBefore(value);
    }

    /** {@return the number of value words: the check words and the block count follow them} */
    public int valueWords() {
        return checks;
    }

    /**
     * Zeroes the value words if this step has not written them yet: before words are summed in
     * buckets ({@link #reduceWords}) by a rank that may deposit nothing this step (it holds no
     * block), whose words would otherwise still hold the last step's sum.
     */
    public void clearWords() {
        checkNotSealed();
        clear();
    }

    /**
     * Sums value words {@code [from, to)} of every rank in place, as {@link #reduce} sums them
     * all, without the check words: a bucket of a step whose values in those words are all
     * deposited, sent while others are still being computed. Finish the step with
     * {@link #reduceChecks} after every other value word was summed this way (each word once).
     * Every rank calls it with the same ranges in the same order.
     *
     * @param comm      the ranks
     * @param algorithm any allreduce
     * @param from      the first word
     * @param to        end of the words (exclusive), at most {@link #valueWords()}
     */
    public void reduceWords(Communicator comm, Allreduce algorithm, int from, int to) {
        buckets.reduceWords(comm, algorithm, from, to);
    }

    /**
     * Writes a guess's check words (from every deposit made: call it after the last) and sums
     * them and the block count over the ranks: with {@link #reduceWords} of every value word,
     * what {@link #reduce} does in one call. Then {@link #guessHeld()} and {@link #get}.
     *
     * @param comm      the ranks
     * @param algorithm any allreduce
     */
    public void reduceChecks(Communicator comm, Allreduce algorithm) {
        buckets.reduceChecks(comm, algorithm);
    }

    /** {@return the chunked ways of this sum's steps (the benchmark times their parts)} */
    ChunkedSum chunked() {
        if (chunked == null) {
            chunked = new ChunkedSum(this);
        }
        return chunked;
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
            || !Arrays.equals(other.grids, grids) || (halves != null && !halves.sameAs(other.halves))) {
            throw new IllegalArgumentException("only accumulators of the same layout, blocks and grids can be merged");
        }
        seal();
        other.seal();
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

    /** {@return the number of segments, each with its own grid} */
    public int segmentCount() {
        return grids.length;
    }

    /**
     * {@return the grid exponent {@code E} segment {@code s} carries into the next step, or
     * {@link Integer#MIN_VALUE} before its first agreement} What a checkpoint keeps, with
     * {@link #carry}, so that a resumed run fixes the grids an uninterrupted one would.
     * @param s the segment
     */
    public int carried(int s) {
        return exponents.carried(s);
    }

    /**
     * Sets the grid exponent segment {@code s} carries into the next step: one read back from
     * {@link #carried} of a checkpoint, or of the rank that summed the step before;
     * {@link Integer#MIN_VALUE} forgets it (the next agreement starts afresh).
     *
     * @param s the segment
     * @param e the exponent, from -1074 to 1024, or {@link Integer#MIN_VALUE}
     * @throws IllegalArgumentException for any other
     */
    public void carry(int s, int e) {
        exponents.carry(s, e);
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
        return Readout.value(words, format, index, grids[s], lowBits, blocks, halves);
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
            Readout.values(words, format, grids[s], lowBits, blocks, halves, i, out, offset + i - index, stop - i);
            i = stop;
        }
    }

    void checkReadable(int s) {
        clear();
        if (grids[s] == Grid.NONE) {
            throw new IllegalStateException("get before the grid of " + segments.describe(s) + " was fixed");
        }
        Readout.checkBlocks(blocksDeposited(), blocks);
    }

    void checkRange(int index, int arrayLength, int offset, int length) {
        Objects.checkFromIndexSize(index, length, segments.size());
        Objects.checkFromIndexSize(offset, length, arrayLength);
    }

    /** Why a deposit was refused: no grid yet, a non-finite value, or one beyond the agreed bound. */
    RuntimeException refused(int index, double x) {
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
