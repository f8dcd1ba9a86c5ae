package org.paratrain.train;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.comm.CommInterruptedException;
import org.paratrain.comm.Communicator;
import org.paratrain.model.GradientReady;

/**
 * A step's fixed-point sum sent in buckets while the backward pass runs, as PyTorch's DDP and
 * Horovod send theirs: the model tells which layers' gradients are final ({@link GradientReady}),
 * the rows of this rank's blocks are deposited there, and each bucket's words are summed by a
 * communication thread while the main thread goes on with the layers below.
 *
 * <h2>Why the bits do not change</h2>
 * The words are those of the one-call sum: the same values deposited onto the same grid (the
 * step before's, guessed), and integer addition is exact, so summing the words in buckets, in
 * any order and grouping, gives every word the value one allreduce gives it. The grid cannot be
 * agreed before backward without a round of its own, so overlap needs a guessed grid: the first
 * step, and a step whose guess fails (the check words go last, after every deposit), take the
 * plain way ({@link OwnRowsExchange#sumRows}): the same bits again.
 *
 * <h2>Why the order is the same on every rank</h2>
 * Every rank must call the same allreduces in the same order. The buckets are planned once,
 * from the model's layers ({@code backwardRanges}) and the bucket size, the same on every rank:
 * layers in backward order, the output layer's first, cut after each layer that brings a
 * bucket to the size. A bucket goes as soon as this rank's rows are final there, or at the end
 * of the blocks at the latest (a rank that computes no block sends every bucket then), in the
 * plan's order; the last bucket, the loss and the check words go last, from the main thread once
 * the communication thread is done (see {@link #finish} for why). Only the communication
 * thread calls the communicator during the blocks, and only the main thread outside them: the
 * calls stay one at a time, as MPI's {@code MPI_THREAD_SERIALIZED} allows, and the hand-over
 * through the thread's queue orders them.
 *
 * <p>One instance an exchange (a rank); call order each step: {@link #begin}, the model's
 * blocks with this as their {@link GradientReady}, {@link #finish}.
 */
final class OverlappedSum implements GradientReady, AutoCloseable {
    private final Communicator comm;
    private final Allreduce algorithm;
    private final FixedSum fixed;
    private final int params;
    /** The early buckets' parameter ranges {@code [lo, hi)}, in send order; the last bucket is not among them. */
    private final int[] lo;
    private final int[] hi;
    private ExecutorService thread;
    private Future<?> pending;
    /** The first failure of the communication thread this step, rethrown on the main thread. */
    private volatile RuntimeException failed;
    private double[] rows;
    private int owned;
    private int width;
    /** Parameters {@code [readyFrom, params)} of every own row are final and deposited. */
    private int readyFrom;
    /** The next early bucket to send. */
    private int next;
    private boolean active;
    /** Whether the main thread is in its blocks: the exchange thread's waits then poll without spinning. */
    private volatile boolean computing;
    /**
     * The chunks the network stages ({@link #stagedChunks}): all at first; one more after a step
     * whose early buckets were not summed when its blocks ended, one fewer after one whose were
     * summed a chunk's time or more before: the fewest that still hide them, found step by step.
     * The count changes no bit.
     */
    private int staged = Integer.MAX_VALUE;
    /** The block's chunks, as the network last told, and when it asked ({@link System#nanoTime}). */
    private int chunks;
    private long askedAt;
    /** The staged share of the block's chunks ({@code staged / chunks}) summed over the steps asked, and those steps. */
    private double stagedShares;
    private long stagedSteps;
    /** When the exchange thread last summed an early bucket. */
    private volatile long summedAt;
    /** Buckets summed so far, over the run: what a test of the overlap watches. */
    private final java.util.concurrent.atomic.AtomicLong summed = new java.util.concurrent.atomic.AtomicLong();

    private OverlappedSum(Communicator comm, Allreduce algorithm, FixedSum fixed, int params, int[] lo, int[] hi) {
        this.comm = comm;
        this.algorithm = algorithm;
        this.fixed = fixed;
        this.params = params;
        this.lo = lo;
        this.hi = hi;
    }

    /**
     * {@return the buckets of a model ({@link org.paratrain.train.cost.Buckets#plan}), or null where
     * there is nothing to overlap: no layers told, layers that do not cover the parameters from
     * the top down, or one bucket}
     * @param ranges  the model's {@code backwardRanges()}
     * @param bucket  the least parameters a bucket, at least 1
     */
    static OverlappedSum plan(Communicator comm, Allreduce algorithm, FixedSum fixed, int params, int[] ranges,
                              int bucket) {
        org.paratrain.train.cost.Buckets plan = org.paratrain.train.cost.Buckets.plan(params, ranges, bucket);
        if (plan == null) {
            return null;
        }
        // Half words: each bucket's values in words of their own (index 0 is the loss).
        fixed.cutHalves(java.util.Arrays.stream(plan.lo()).map(v -> v + 1).toArray());
        return new OverlappedSum(comm, algorithm, fixed, params, plan.lo(), plan.hi());
    }

    /** {@return the number of buckets, the last (sent with the check words) included} */
    int buckets() {
        return lo.length + 1;
    }

    /**
     * Starts a step on the grid the last step agreed, if there is one.
     *
     * @param blocks the step's blocks over all ranks
     * @param rows   this rank's rows, loss then gradient, {@code width} apart
     * @param owned  this rank's blocks
     * @return false, with the sum begun and nothing guessed, when no grid can be guessed: then
     *         this step goes the plain way and this is not to be told anything
     */
    boolean begin(int blocks, double[] rows, int owned, int width) {
        fixed.begin(blocks);
        active = fixed.guessGrid();
        if (active) {
            fixed.clearWords();     // a rank without blocks deposits nothing, yet sends every bucket's words
        }
        this.rows = rows;
        this.owned = owned;
        this.width = width;
        readyFrom = params;
        next = 0;
        failed = null;
        computing = active;
        return active;
    }

    /** Deposits parameters {@code [from, to)} of every own row, and sends the buckets now whole. */
    @Override
    public void ready(int from, int to) {
        if (!active || to != readyFrom || from >= to) {
            return;             // out of order: deposited at the end
        }
        for (int k = 0; k < owned; k++) {
            fixed.deposit(from + 1, rows, k * width + from + 1, to - from);
        }
        readyFrom = from;
        while (next < lo.length && lo[next] >= readyFrom) {
            send(next++);
        }
    }

    @Override
    public int stagedChunks(int chunks) {
        this.chunks = chunks;
        askedAt = System.nanoTime();
        staged = Math.min(staged, chunks);
        stagedShares += (double) staged / chunks;
        stagedSteps++;
        return staged;
    }

    /** {@return the share of its last block's chunks the network staged, summed over the steps it asked, and those steps} */
    double[] stagedShares() {
        return new double[] {stagedShares, stagedSteps};
    }

    /** {@return whether an early bucket is still to be sent: past the last, the pass need tell nothing more} */
    @Override
    public boolean waiting() {
        return active && next < lo.length;
    }

    /** Bucket {@code b}'s words, summed on the communication thread. */
    private void send(int b) {
        submit(() -> {
            reduceBucket(b);
            summedAt = System.nanoTime();
            summed.incrementAndGet();
        });
    }

    /** Sums bucket {@code b}'s words on the calling thread. */
    private void reduceBucket(int b) {
        fixed.reduceWords(comm, algorithm, fixed.wordsFrom(lo[b] + 1), fixed.wordsBefore(hi[b] + 1));
    }

    /** {@return the early buckets summed so far, over the run} */
    long summed() {
        return summed.get();
    }

    private void submit(Runnable task) {
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(r -> org.paratrain.comm.BackgroundThreads.of(r,
                "paratrain-exchange-" + comm.rank(), () -> computing));
        }
        pending = thread.submit(() -> {
            if (failed != null) {
                return;         // an earlier bucket failed: the step ends with its error
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                failed = e;
            }
        });
    }

    /**
     * Ends the step: deposits what was not told, sends every bucket not sent, the rest of the
     * words and the check words, and waits for them.
     *
     * @return {@link FixedSum#guessHeld()}: when true the sum is ready to read; when false the
     *         sum is begun afresh with the guess dropped, to be redone the plain way
     */
    boolean finish() {
        if (active && next > 0 && chunks > 0) {
            // The blocks are done: were this step's early buckets summed by now, and how long ago?
            // The last block's time over its chunks is a chunk's (the staged ones cost a little more).
            long now = System.nanoTime();
            if (!pending.isDone()) {
                staged = Math.min(chunks, staged + 1);
            } else if (now - summedAt > (now - askedAt) / chunks) {
                staged = Math.max(1, staged - 1);
            }
        }
        for (int k = 0; k < owned; k++) {
            fixed.deposit(0, rows, k * width, readyFrom + 1);
        }
        fixed.endBlocks(owned);
        computing = false;          // the main thread waits from here: the exchange thread may spin
        if (pending != null) {
            await();                // the early buckets sent during the blocks
        }
        // The rest on this thread, as the plain way calls it: where ranks share a process and its
        // core, the rank that meets its peers last then runs the meeting's call and goes straight on
        // into its next step, as without buckets. Finished by the exchange thread, the step woke
        // every rank of the process at once and the one given the core first kept it for its whole
        // next step while the other, its exchange done, waited: the CNN's 2 x 2 exchange without
        // waits measured 17-30 ms a step against 8-9 without buckets and 2 priced.
        while (next < lo.length) {
            reduceBucket(next++);
        }
        // The words below the last early bucket (the last bucket and the loss): every other word
        // is a bucket's, half words too (plan cut their layout at each bucket's edge).
        int below = lo.length == 0 ? fixed.valueWords() : fixed.wordsFrom(lo[lo.length - 1] + 1);
        fixed.reduceWords(comm, algorithm, 0, below);
        fixed.reduceChecks(comm, algorithm);
        active = false;
        if (fixed.guessHeld()) {
            return true;
        }
        fixed.retry();
        return false;
    }

    /** Waits for the communication thread's work; its failure, or an interrupt, ends the step here. */
    private void await() {
        try {
            pending.get();
        } catch (InterruptedException e) {
            // A peer failed (the ranks' fabric interrupts every rank) or the run was cancelled: the
            // exchange thread's wait ends too, and its error, naming the peer, is the one to tell.
            thread.shutdownNow();
            boolean ended = false;
            try {
                ended = thread.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException again) {
                // Told below.
            }
            if (ended) {
                thread = null;      // else it may still be in a call: nobody else may call now
            }
            Thread.currentThread().interrupt();
            if (failed != null) {
                throw failed;
            }
            throw new CommInterruptedException(comm.rank(), "bucketed allreduce", -1);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the exchange thread failed", e.getCause());
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Ends the communication thread (idle between steps). */
    @Override
    public void close() {
        if (thread != null) {
            thread.shutdownNow();
            thread = null;
        }
    }
}
