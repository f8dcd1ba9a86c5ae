package org.paratrain.collective.sum;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;

/**
 * A {@link FixedSum}'s step summed over the ranks in one call: every word by one allreduce
 * ({@link FixedSum#reduce}), or the sums written out as doubles ({@link FixedSum#reduceInto},
 * {@link FixedSum#ringInto}), which {@link ChunkedSum} cuts in chunks for one or two words and
 * {@link #wholeInto} sums whole for half words. The words are the sum's own; the format is
 * handed over. Apart from FixedSum because it only moves the words the deposits left, after
 * them, and holds nothing of its own (one instance per sum).
 */
final class StepReduce {
    /** The sum whose words this step moves. */
    private final FixedSum f;
    private final FixedFormat format;

    StepReduce(FixedSum f, FixedFormat format) {
        this.f = f;
        this.format = format;
    }

    /** {@link FixedSum#reduce}. */
    void reduce(Communicator comm, Allreduce algorithm) {
        f.seal();
        algorithm.allreduce(comm, f.words, 0, f.words.length, Reduction.WORD_SUM);
    }

    /** {@link FixedSum#reduceInto}. */
    boolean reduceInto(Communicator comm, Allreduce tail, AllreduceHalves halves, double[] out, int offset) {
        if (format == FixedFormat.HALF_WORD) {
            return wholeInto(comm, tail, out, offset);
        }
        return f.chunked().reduceInto(comm, tail, halves, out, offset);
    }

    /** {@link FixedSum#ringInto}. */
    boolean ringInto(Communicator comm, Allreduce tail, double[] rows, int offset, int stride, int count,
                     int previousCount, double[] out, int outOffset) {
        if (format == FixedFormat.HALF_WORD) {
            // As reduceInto: deposit, the whole words by tail, convert; the same bits, no fused ring.
            for (int k = 0; k < count; k++) {
                f.deposit(0, rows, offset + k * stride, f.size());
                f.endBlock();
            }
            return wholeInto(comm, tail, out, outOffset);
        }
        return f.chunked().ringInto(comm, tail, rows, offset, stride, count, previousCount, out, outOffset);
    }

    /**
     * The way of {@link #reduceInto} for half words, whose words each hold two values of a range
     * (a chunk of words is not a range of values): the check words and the count first, and if
     * the guess held, the value words whole by {@code tail}, every rank converting all.
     */
    private boolean wholeInto(Communicator comm, Allreduce tail, double[] out, int offset) {
        f.seal();
        tail.allreduce(comm, f.words, f.checks, f.words.length - f.checks, Reduction.WORD_SUM);
        if (!f.guessHeld()) {
            return false;
        }
        tail.allreduce(comm, f.words, 0, f.checks, Reduction.WORD_SUM);
        f.get(0, out, offset, f.size());
        return true;
    }
}
