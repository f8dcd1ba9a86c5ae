package org.paratrain.collective.sum;

import java.util.Objects;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;

/**
 * A {@link FixedSum}'s words summed in buckets while the rest of the vector is still being
 * deposited: which words a range of values fills alone ({@link FixedSum#wordsFrom},
 * {@link FixedSum#wordsBefore}; for half words, the cuts of {@link FixedSum#cutHalves}, which
 * lays the words out anew), the sum of a bucket's words ({@link FixedSum#reduceWords}), and the
 * check words and count that finish the step ({@link FixedSum#reduceChecks}). The words and their
 * layout are the sum's own; the format and the segments are handed over. Apart from FixedSum
 * because only the overlapped exchanges sum by buckets, and the deposits never read it.
 */
final class BucketWords {
    /** The sum whose words these buckets are. */
    private final FixedSum f;
    private final FixedFormat format;
    private final Segments segments;

    BucketWords(FixedSum f, FixedFormat format, Segments segments) {
        this.f = f;
        this.format = format;
        this.segments = segments;
    }

    /** {@link FixedSum#cutHalves}. */
    void cutHalves(int... cuts) {
        if (format != FixedFormat.HALF_WORD) {
            return;
        }
        if (f.cleared || f.sealed || f.blocksDeposited() != 0) {
            throw new IllegalStateException("cutHalves after a step's deposits: cut before begin, or right after it");
        }
        HalfLayout laid = new HalfLayout(segments, cuts);
        long[] made = new long[laid.words() + segments.count() + 1];
        f.halves = laid;
        f.checks = laid.words();
        f.words = made;
        f.cleared = false;
    }

    /** {@link FixedSum#wordsFrom}. */
    int wordsFrom(int value) {
        return switch (format) {
            case ONE_WORD -> value;
            case TWO_WORDS -> 2 * value;
            case HALF_WORD -> f.halves.wordsFrom(value);
        };
    }

    /** {@link FixedSum#wordsBefore}. */
    int wordsBefore(int value) {
        return value == segments.size() ? f.checks : switch (format) {
            case ONE_WORD -> value;
            case TWO_WORDS -> 2 * value;
            case HALF_WORD -> f.halves.wordsBefore(value);
        };
    }

    /** {@link FixedSum#reduceWords}. */
    void reduceWords(Communicator comm, Allreduce algorithm, int from, int to) {
        Objects.checkFromToIndex(from, to, f.checks);
        if (to > from) {
            algorithm.allreduce(comm, f.words, from, to - from, Reduction.WORD_SUM);
        }
    }

    /** {@link FixedSum#reduceChecks}. */
    void reduceChecks(Communicator comm, Allreduce algorithm) {
        f.seal();
        algorithm.allreduce(comm, f.words, f.checks, f.words.length - f.checks, Reduction.WORD_SUM);
    }
}
