package org.paratrain.collective.sum;

import java.util.Arrays;
import java.util.Objects;
import org.paratrain.collective.Allgather;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Chunks;
import org.paratrain.collective.Reduction;
import org.paratrain.collective.RingAllgather;
import org.paratrain.comm.Communicator;

/**
 * A {@link FixedSum}'s step cut in chunks, one a rank: by the halves of an allreduce
 * ({@link FixedSum#reduceInto}: the check words first, the words reduce-scattered, each rank
 * converting its own chunk, the doubles allgathered) and in one ring ({@link FixedSum#ringInto}:
 * the ring's reduce-scatter deposits as it combines, its first step carrying a one-row rank's
 * values themselves, and the owned chunk's last combine is its conversion). The words, grids and
 * checks are the sum's own; this class holds the cuts and the receive buffers, made by the
 * first call (one instance per sum, reused).
 */
final class ChunkedSum {
    /** The sum whose words these steps move. */
    private final FixedSum f;
    /** The cuts of the vector, words and values, made for the last rank count seen. */
    private Chunks wordChunks;
    private Chunks valueChunks;
    /**
     * {@link FixedSum#ringInto}'s receive buffer, laid out as the value words (each chunk received
     * where its words are: see {@link Deposit#oneWordOnto}), made by its first call.
     */
    private long[] ringIn;
    /**
     * {@link FixedSum#ringInto}'s receive buffer for the other rank's values, laid out as the rows,
     * where the result cannot take them (it is the rows' own array).
     */
    private double[] peerIn;
    /**
     * Where the first step's values from the previous rank are, value i at {@code peer[peerBase + i]}:
     * the result's array itself, whose chunk they are summed into in place (one array fewer for the
     * owner's loop to stream through), or {@link #peerIn}.
     */
    private double[] peer;
    private int peerBase;
    private final Allgather ringGather = new RingAllgather();
    /** Whether {@link FixedSum#ringInto} converted the own chunk on the way, and its scratch. */
    private boolean converted;
    private final long[] wordBits = new long[1];
    private final long[] seenBefore;
    /** The tag of {@link FixedSum#ringInto}'s messages. */
    private static final int RING_TAG = 32012;

    ChunkedSum(FixedSum f) {
        this.f = f;
        this.seenBefore = new long[f.segments.count()];
    }

    /** {@link FixedSum#reduceInto}. */
    boolean reduceInto(Communicator comm, Allreduce tail, AllreduceHalves halves, double[] out, int offset) {
        Objects.checkFromIndexSize(offset, f.segments.size(), out.length);
        if (!reduceTail(comm, tail)) {
            return false;
        }
        scatterWords(comm, halves);
        SumOverflowException failed = convertOwn(comm.rank(), out, offset);
        gatherValues(comm, halves, out, offset, failed);
        return true;
    }

    /** {@link FixedSum#ringInto}. */
    boolean ringInto(Communicator comm, Allreduce tail, double[] rows, int offset, int stride, int count,
                            int previousCount, double[] out, int outOffset) {
        int n = f.segments.size();
        Objects.checkFromIndexSize(outOffset, n, out.length);
        if (count > 0) {
            Objects.checkFromIndexSize(offset, (long) (count - 1) * stride + n > Integer.MAX_VALUE ? -1
                : (count - 1) * stride + n, rows.length);
        }
        int p = comm.size();
        cut(p);
        int r = comm.rank();
        if (p == 1) {
            for (int k = 0; k < count; k++) {
                f.deposit(0, rows, offset + k * stride, n);
            }
        } else {
            if (ringIn == null) {
                ringIn = new long[f.checks];
            }
            int next = (r + 1) % p;
            int prev = (r - 1 + p) % p;
            // A rank of one row sends, in the first step, the values themselves, which the next rank
            // deposits with its own (the same words: each value is rounded once, on the same grid),
            // so that no rank deposits a chunk only to send it. Other ranks send the words.
            boolean sendValues = count == 1;
            boolean receiveValues = previousCount == 1;
            if (receiveValues && out != rows) {
                peer = out;
                peerBase = outOffset;
            } else if (receiveValues) {
                if (peerIn == null || peerIn.length < offset + n) {
                    peerIn = new double[offset + n];
                }
                peer = peerIn;
                peerBase = offset;
            }
            if (!sendValues) {
                depositChunk(Math.floorMod(r - 1, p), rows, offset, stride, count, false);
            }
            converted = false;
            for (int s = 0; s < p - 1; s++) {
                // As RingReduceScatter: step s passes on the chunk that ends s + 1 steps later at its owner.
                int send = Math.floorMod(r - s - 1, p);
                int recv = Math.floorMod(r - s - 2, p);
                if (s == 0 && (sendValues || receiveValues)) {
                    firstStep(comm, send, recv, next, prev, sendValues, receiveValues, rows, offset);
                    if (!receiveValues) {
                        if (recv != r || !convertedOnTheWay(r, rows, offset, count, out, outOffset)) {
                            depositChunk(recv, rows, offset, stride, count, true);
                        }
                    } else if (recv != r || count != 1 || !pairConverted(r, rows, offset, out, outOffset)) {
                        depositPair(recv, rows, offset, stride, count);
                    }
                } else {
                    comm.sendRecv(f.words, wordChunks.start(send), wordChunks.size(send), next, RING_TAG,
                        ringIn, wordChunks.start(recv), wordChunks.size(recv), prev, RING_TAG);
                    if (recv != r || !convertedOnTheWay(r, rows, offset, count, out, outOffset)) {
                        depositChunk(recv, rows, offset, stride, count, true);
                    }
                }
            }
            f.cleared = true;       // every chunk's words were written (p == 1: by the deposits, if any)
        }
        f.endBlocks(count);
        if (!reduceTail(comm, tail)) {
            return false;
        }
        if (p == 1) {
            f.get(0, out, outOffset, n);
            return true;
        }
        SumOverflowException failed = converted ? null : convertOwn(r, out, outOffset);
        gatherValues(comm, ringGather, out, outOffset, failed);
        return true;
    }

    /**
     * The first step of the ring when values travel: the own row's values or the words sent, the
     * previous rank's values or its words received (into {@link #peer} or {@link #ringIn}).
     */
    private void firstStep(Communicator comm, int send, int recv, int next, int prev, boolean sendValues,
                           boolean receiveValues, double[] rows, int offset) {
        // Two one-way messages, as sendRecv would pair them, when their kinds differ: the even
        // ranks send first, so that a ring of any length cannot wait on itself.
        if (sendValues && receiveValues) {
            comm.sendRecv(rows, offset + valueChunks.start(send), valueChunks.size(send), next, RING_TAG,
                peer, peerBase + valueChunks.start(recv), valueChunks.size(recv), prev, RING_TAG);
            return;
        }
        boolean sendFirst = comm.rank() % 2 == 0;
        for (int turn = 0; turn < 2; turn++) {
            if ((turn == 0) == sendFirst) {
                if (sendValues) {
                    comm.send(rows, offset + valueChunks.start(send), valueChunks.size(send), next, RING_TAG);
                } else {
                    comm.send(f.words, wordChunks.start(send), wordChunks.size(send), next, RING_TAG);
                }
            } else if (receiveValues) {
                comm.recv(peer, peerBase + valueChunks.start(recv), valueChunks.size(recv), prev, RING_TAG);
            } else {
                comm.recv(ringIn, wordChunks.start(recv), wordChunks.size(recv), prev, RING_TAG);
            }
        }
    }

    /**
     * Deposits chunk {@code c} of the values received ({@link #peer}) and of the own rows: its
     * words written by the first, added by the others.
     */
    private void depositPair(int c, double[] rows, int offset, int stride, int count) {
        int from = valueChunks.start(c);
        int to = valueChunks.start(c + 1);
        for (int i = from; i < to; ) {
            int s = f.segments.of(i);
            int stop = Math.min(to, f.segments.end(s));
            depositRun(s, i, stop, peer, peerBase + i, false);
            for (int k = 0; k < count; k++) {
                depositRun(s, i, stop, rows, offset + k * stride + i, true);
            }
            i = stop;
        }
    }

    /** Deposits {@code v[at, ...)} at {@code [i, stop)}, all of segment {@code s}: written, or added. */
    private void depositRun(int s, int i, int stop, double[] v, int at, boolean add) {
        long m = f.format == FixedFormat.ONE_WORD ? Deposit.oneWord(f.words, f.grids[s], add, i, v, at, stop - i)
            : Deposit.twoWords(f.words, f.grids[s], add, f.lowScale, i, v, at, stop - i);
        int bad = f.checkDeposited(s, m, v, at, 1, stop - i);
        if (bad >= 0) {
            throw f.refused(i + bad, v[at + bad]);
        }
    }

    /**
     * The own chunk's sum of the values received and the own row, converted in the same pass
     * ({@link Deposit#oneWordPairOut}), where it applies: one word, every segment of the chunk on a
     * grid that converts by one multiplication (no word can reach 2^62 within the bound, see there).
     * {@return whether it was done}
     */
    private boolean pairConverted(int r, double[] rows, int offset, double[] out, int outOffset) {
        int from = valueChunks.start(r);
        int to = valueChunks.start(r + 1);
        if (f.format != FixedFormat.ONE_WORD || !normalGrids(from, to)) {
            return false;
        }
        for (int i = from; i < to; ) {
            int s = f.segments.of(i);
            int stop = Math.min(to, f.segments.end(s));
            long m = Deposit.oneWordPairOut(peer, peerBase + i, f.grids[s], rows, offset + i, stop - i, out,
                outOffset + i);
            if (!f.guessed && Deposit.reaches(m, f.limitBits)) {
                throw refusedPair(s, i, stop, rows, offset, out, outOffset);
            }
            f.checkDeposited(s, m, rows, offset + i, 1, stop - i);
            i = stop;
        }
        converted = true;
        return true;
    }

    /**
     * The refusal of a pair's run {@code [i, stop)} on an agreed grid: its first own value beyond
     * the bound, else the previous rank's. Where those were received into the result, the loop
     * has written their sums over them: a sum that is not finite names a value that was not, and
     * otherwise the run is named, not the value.
     */
    private RuntimeException refusedPair(int s, int i, int stop, double[] rows, int offset, double[] out,
                                         int outOffset) {
        int k = Deposit.firstBeyond(f.grids[s], f.limit, rows, offset + i, 1, stop - i);
        if (k >= 0) {
            return f.refused(i + k, rows[offset + i + k]);
        }
        if (peer != out) {
            k = Math.max(0, Deposit.firstBeyond(f.grids[s], f.limit, peer, peerBase + i, 1, stop - i));
            return f.refused(i + k, peer[peerBase + i + k]);
        }
        for (int j = i; j < stop; j++) {
            if (!Double.isFinite(out[outOffset + j])) {
                return f.refused(j, out[outOffset + j]);
            }
        }
        return new SumOverflowException("a value the previous rank sent for indices " + i + " to " + (stop - 1)
            + " is not below 2^" + f.grids[s].exponent() + ", the bound agreed for segment " + s
            + ": every value must be observed before the grid is fixed");
    }

    /** {@return whether every segment of the values {@code [from, to)} is on a grid that converts by one multiplication} */
    private boolean normalGrids(int from, int to) {
        for (int i = from; i < to; ) {
            int s = f.segments.of(i);
            if (!f.grids[s].normal()) {
                return false;
            }
            i = Math.min(to, f.segments.end(s));
        }
        return true;
    }

    /**
     * The own chunk's last combine and its conversion in one pass ({@link Deposit#oneWordOntoOut}),
     * where it applies: one word, one row, every segment of the chunk on a grid that converts by
     * one multiplication, no word of 2^62 or more. Then the chunk's words are not stored (only
     * its doubles are needed). {@return whether it was done; if not, nothing counts and the chunk
     * goes the usual way}
     */
    private boolean convertedOnTheWay(int r, double[] rows, int offset, int count, double[] out, int outOffset) {
        int from = valueChunks.start(r);
        int to = valueChunks.start(r + 1);
        if (f.format != FixedFormat.ONE_WORD || count != 1 || !normalGrids(from, to)) {
            return false;
        }
        long[] before = seenBefore;
        System.arraycopy(f.seen, 0, before, 0, f.seen.length);
        wordBits[0] = 0;
        for (int i = from; i < to; ) {
            int s = f.segments.of(i);
            int stop = Math.min(to, f.segments.end(s));
            long m = Deposit.oneWordOntoOut(ringIn, f.grids[s], i, rows, offset + i, stop - i, out, outOffset + i,
                wordBits);
            int bad = f.checkDeposited(s, m, rows, offset + i, 1, stop - i);
            if (bad >= 0) {
                throw f.refused(i + bad, rows[offset + i + bad]);
            }
            i = stop;
        }
        if (wordBits[0] >>> 62 != 0) {
            System.arraycopy(before, 0, f.seen, 0, f.seen.length);     // the usual way will see them again
            return false;
        }
        converted = true;
        return true;
    }

    /**
     * Deposits the rows' values of chunk {@code c} into its words: written by the first row (onto
     * the words just received when {@code onto}), added by the others; the largest magnitudes kept.
     */
    private void depositChunk(int c, double[] rows, int offset, int stride, int count, boolean onto) {
        int from = valueChunks.start(c);
        int to = valueChunks.start(c + 1);
        if (count == 0) {
            if (onto) {
                int u = f.format.words();
                System.arraycopy(ringIn, from * u, f.words, from * u, (to - from) * u);
            } else {
                Arrays.fill(f.words, from * f.format.words(), to * f.format.words(), 0L);
            }
            return;
        }
        for (int i = from; i < to; ) {
            int s = f.segments.of(i);
            int stop = Math.min(to, f.segments.end(s));
            for (int k = 0; k < count; k++) {
                int at = offset + k * stride + i;
                int len = stop - i;
                long m;
                if (k > 0 || !onto) {
                    m = f.format == FixedFormat.ONE_WORD ? Deposit.oneWord(f.words, f.grids[s], k > 0, i, rows, at, len)
                        : Deposit.twoWords(f.words, f.grids[s], k > 0, f.lowScale, i, rows, at, len);
                } else {
                    m = f.format == FixedFormat.ONE_WORD ? Deposit.oneWordOnto(f.words, ringIn, f.grids[s], i, rows, at, len)
                        : Deposit.twoWordsOnto(f.words, ringIn, f.grids[s], f.lowScale, i, rows, at, len);
                }
                int bad = f.checkDeposited(s, m, rows, at, 1, len);
                if (bad >= 0) {
                    throw f.refused(i + bad, rows[at + bad]);
                }
            }
            i = stop;
        }
    }

    /** Cuts the vector for {@code p} ranks, words and values alike, once per rank count. */
    private void cut(int p) {
        if (wordChunks == null || wordChunks.p() != p) {
            wordChunks = new Chunks(f.segments.size(), f.format.words(), p, f.checks);
            valueChunks = new Chunks(f.segments.size(), p);
        }
    }

    /** The first step of {@link #reduceInto}: the check words and the count; whether the guess held. */
    boolean reduceTail(Communicator comm, Allreduce tail) {
        f.seal();
        tail.allreduce(comm, f.words, f.checks, f.words.length - f.checks, Reduction.WORD_SUM);
        if (!f.guessHeld()) {
            return false;
        }
        for (int s = 0; s < f.grids.length; s++) {
            f.checkReadable(s);      // the same on every rank: the grids and the summed count
        }
        return true;
    }

    /** The second: the value words reduce-scattered, chunk r summed on rank r. */
    void scatterWords(Communicator comm, AllreduceHalves halves) {
        cut(comm.size());
        halves.reduceScatter().reduceScatter(comm, f.words, 0, wordChunks, Reduction.WORD_SUM);
    }

    /**
     * The third: rank {@code r}'s chunk converted into {@code out}; a chunk that cannot be is
     * filled with NaN, for every rank to see after the allgather (a sum of finite values is never
     * NaN), and its reason returned.
     */
    SumOverflowException convertOwn(int r, double[] out, int offset) {
        int from = valueChunks.start(r);
        int n = valueChunks.size(r);
        try {
            f.get(from, out, offset + from, n);
            return null;
        } catch (SumOverflowException e) {
            Arrays.fill(out, offset + from, offset + from + n, Double.NaN);
            return e;
        }
    }

    /** The last: the doubles allgathered; a chunk that failed its conversion on any rank fails every rank alike. */
    void gatherValues(Communicator comm, AllreduceHalves halves, double[] out, int offset, SumOverflowException own) {
        gatherValues(comm, halves.allgather(), out, offset, own);
    }

    private void gatherValues(Communicator comm, Allgather allgather, double[] out, int offset,
                              SumOverflowException own) {
        allgather.allgather(comm, out, offset, valueChunks, Reduction.DOUBLE_SUM);
        for (int c = 0; c < comm.size(); c++) {
            if (valueChunks.size(c) > 0 && Double.isNaN(out[offset + valueChunks.start(c)])) {
                throw own != null ? own : new SumOverflowException("the sum of values " + valueChunks.start(c) + " to "
                    + (valueChunks.start(c + 1) - 1) + " could not be converted on rank " + c
                    + ": beyond the largest double, or an index deposited twice in a block");
            }
        }
    }
}
