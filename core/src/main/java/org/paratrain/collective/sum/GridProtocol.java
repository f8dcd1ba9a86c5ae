package org.paratrain.collective.sum;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;

/**
 * How a {@link FixedSum}'s step fixes its grids: observed and agreed over the ranks
 * ({@link FixedSum#agree}, {@link FixedSum#fixGrid()}), or guessed from the last step's
 * ({@link FixedSum#guessGrid()}), checked after the reduce by the check words written beside the
 * value words ({@link #seal()}, {@link FixedSum#guessHeld()}), and dropped by
 * {@link FixedSum#retry()} when the guess did not hold. The grids, the observed exponents and the
 * deposits' summary are the sum's own, handed over; the words and the step's state are read
 * from the sum. Apart from FixedSum because it fixes the grids before the deposits and checks
 * them after, and none of it is on the deposits' path; it holds the count of retries (one
 * instance per sum).
 */
final class GridProtocol {
    /** A check word's count of ranks above the guessed bound, in its high half (at most 2^31 ranks). */
    private static final long ABOVE = 1L << 32;
    /** The sum whose grids these are: its words, check words and step state. */
    private final FixedSum f;
    private final Exponents exponents;
    private final Segments segments;
    private final Grid[] grids;
    /** On a guessed grid, the summary of the scaled magnitudes deposited per segment ({@link Deposit}). */
    private final long[] seen;
    /** Guesses that did not hold so far. */
    private long retries;

    GridProtocol(FixedSum f, Exponents exponents, Segments segments, Grid[] grids, long[] seen) {
        this.f = f;
        this.exponents = exponents;
        this.segments = segments;
        this.grids = grids;
        this.seen = seen;
    }

    /** {@link FixedSum#guessGrid()}. */
    boolean guessGrid() {
        if (f.blocks == 0) {
            throw new IllegalStateException("guessGrid before begin(blocks)");
        }
        for (int s = 0; s < grids.length; s++) {
            if (exponents.last(s, f.blocks) == null) {
                return false;
            }
        }
        for (int s = 0; s < grids.length; s++) {
            grids[s] = exponents.last(s, f.blocks);
        }
        f.guessed = true;
        return true;
    }

    /**
     * Writes a guess's check words from the magnitudes deposited, once, before the words leave:
     * above the bound ({@code 2^E}, scaled to {@code 2^(62-h)}: the deposits' own limit, NaN and
     * infinities included) or at it ({@code 2^(E-4)} or more: in the band that keeps the grid; every value, zeros too, when
     * {@code 2^(E-4)} is below the least bound {@code 2^-1074}). The scaling by powers of two is exact near the
     * bound, and the summary of {@link Deposit} exact at powers of two, so the check says what
     * the exponent codes would.
     */
    void seal() {
        f.clear();
        if (!f.guessed || f.sealed) {
            return;
        }
        for (int s = 0; s < grids.length; s++) {
            long m = seen[s];
            boolean above = Deposit.reaches(m, f.limitBits);
            // At: some magnitude of 2^(E - QUANTUM) or more, so that the band keeps E. Where E - QUANTUM
            // is below the least bound, every rank is at it, zeros too (and at E = -1074 itself any
            // nonzero value is above): the band keeps such an E for any step without a value above it.
            boolean at = grids[s].exponent() - FixedPoint.QUANTUM < FixedPoint.LEAST_BOUND
                || Deposit.reaches(m, f.limitBits - FixedPoint.QUANTUM);
            f.words[f.checks + s] = above ? ABOVE : at ? 1L : 0L;
        }
        f.sealed = true;
    }

    /** {@link FixedSum#guessHeld()}. */
    boolean guessHeld() {
        if (!f.guessed) {
            return true;
        }
        for (int s = 0; s < grids.length; s++) {
            long w = f.words[f.checks + s];
            if ((w >>> 32) != 0 || (w & 0xffffffffL) == 0) {
                return false;
            }
        }
        return true;
    }

    /** {@link FixedSum#retry()}. */
    void retry() {
        retries++;
        f.restart();
    }

    /** {@link FixedSum#retries()}. */
    long retries() {
        return retries;
    }

    /** {@link FixedSum#observe(int, double[], int, int)}. */
    void observe(int index, double[] values, int offset, int length) {
        f.checkRange(index, values.length, offset, length);
        for (int i = index; i < index + length; ) {
            int s = segments.of(i);
            int stop = Math.min(index + length, segments.end(s));
            exponents.observe(s, values, offset + i - index, offset + stop - index);
            i = stop;
        }
    }

    /** {@link FixedSum#fixGrid()}. */
    void fixGrid() {
        if (f.blocks == 0) {
            throw new IllegalStateException("fixGrid before begin(blocks)");
        }
        exponents.fix(grids, f.blocks, segments);
    }

    /** {@link FixedSum#agree}. */
    void agree(Communicator comm, Allreduce algorithm) {
        long[] e = f.exponentWords();
        algorithm.allreduce(comm, e, 0, e.length, Reduction.WORD_MAX);
        fixGrid();
    }

    /** {@link FixedSum#observeColumn}. */
    void observeColumn(int index, double[] values, int offset, int stride, int count) {
        f.checkColumn(index, values.length, offset, stride, count);
        exponents.observe(segments.of(index), values, offset, stride, count);
    }
}
