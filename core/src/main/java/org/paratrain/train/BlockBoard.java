package org.paratrain.train;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.paratrain.comm.CommTimeoutException;
import org.paratrain.comm.PeerFailedException;

/**
 * What the ranks of one JVM share when they take a step's blocks as they are ready
 * ({@link SharedExchange}): which chunk of blocks is claimed next, which rank finished each
 * chunk, each rank's table of block rows, and a ring of the last steps' sums.
 *
 * <p>Why: with a fixed share of blocks a rank off its core (a busy core, the JIT's compiler
 * thread, a slower virtual CPU) holds every other rank up at each exchange. Here no rank waits
 * for another: a rank with nothing left to claim computes again, into its own table, any chunk
 * still unfinished (the first to finish a chunk wins it; a block's row has the same bits
 * whoever computes it), whoever finds every chunk done sums the rows in block order and
 * publishes the sum, and a rank that was away takes the sums it missed from the ring and
 * applies them. A rank waits only when it would overwrite a sum that a rank {@link #RING} steps
 * behind has not taken yet, and for the moment between the last chunk and the sum.
 *
 * <p>Words ({@link VarHandle}s on {@code long} arrays, each hot word on a cache line of its own):
 * the claim word is {@code step << 24 | next chunk}; a chunk's done word and a slot's
 * published word are {@code (step + 1) << 16 | rank}; a rank's taken word counts the sums it has
 * applied.
 */
final class BlockBoard {
    /**
     * Steps kept in the ring at most (fewer when the ranks' rings would hold more than 2^23
     * doubles, at least 2): how far a rank held off its core may fall behind before the others
     * wait for it. A time slice is milliseconds; a small model's step, tens of microseconds.
     */
    static final int RING = 1024;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs between two hot words: 128 bytes, two cache lines (the adjacent-line prefetcher). */
    private static final int PAD = 16;
    private static final long CHUNK_MASK = (1L << 24) - 1;
    private static final int RANK_BITS = 16;
    private static final long RANK_MASK = (1L << RANK_BITS) - 1;

    private final int ranks;
    private final int maxRing;
    private final long timeoutNanos;
    private final double timeoutSeconds;
    private final long[] claim = new long[2 * PAD];
    private final long[] taken;
    private final long[] failed = new long[2 * PAD];
    private long[] done;
    private long[] published;
    private double[][] tables;
    private double[][][] sums;
    private int chunks;
    private int chunkBlocks;
    private int blocks;
    private int width;
    /** Doubles after each sum's width (see {@link #join(int, int, int, int)}). */
    private int extra;
    private int ring;
    private String ringWait;

    /**
     * A board for {@code ranks} ranks.
     *
     * @param ranks   the ranks of the job, all in this JVM
     * @param timeout the longest a rank waits for another
     */
    BlockBoard(int ranks, Duration timeout) {
        this(ranks, timeout, RING);
    }

    /** A board whose ring keeps at most {@code maxRing} steps (at least 2): tests wrap it quickly. */
    BlockBoard(int ranks, Duration timeout, int maxRing) {
        this.maxRing = Math.max(2, maxRing);
        this.ranks = ranks;
        this.timeoutNanos = timeout.toNanos();
        this.timeoutSeconds = timeout.toNanos() / 1e9;
        this.taken = new long[(ranks + 1) * PAD];
        LONGS.setVolatile(failed, PAD, -1L);
    }

    /**
     * Lays the board out for {@code blocks} rows of {@code width} doubles and gives rank
     * {@code rank} its table and its ring of sums. Every rank calls it before its first step
     * (the trainer's start barrier orders the calls before any step).
     *
     * @return this rank's table of rows
     */
    synchronized double[] join(int rank, int blocks, int width) {
        return join(rank, blocks, width, 0);
    }

    /**
     * As {@link #join(int, int, int)}, with {@code extra} doubles after each sum's {@code width}:
     * what the rank that sums a step publishes beside the sum (the grids its fixed-point sum
     * carries into the next step, which every rank takes from there).
     *
     * @return this rank's table of rows
     */
    synchronized double[] join(int rank, int blocks, int width, int extra) {
        if (done == null) {
            this.blocks = blocks;
            this.width = width;
            this.extra = extra;
            // Two chunks a rank (one alone): a rank held off its core mid-chunk leaves half its
            // share to compute again, and a chunk costs a kernel call and two atomic updates
            // (about 0.3 us). On 20,000 x 10 at 2 ranks, 1, 2, 4 and 8 chunks a rank took
            // 150, 150-154, 153-155 and 158-167 ms over 3,000 epochs.
            this.chunks = Math.max(1, Math.min(blocks, ranks == 1 ? 1 : 2 * ranks));
            this.chunkBlocks = Math.max(1, (blocks + chunks - 1) / chunks);
            this.chunks = (blocks + chunkBlocks - 1) / chunkBlocks;
            this.done = new long[chunks];
            // Every rank's ring together holds at most 2^23 doubles (64 MB).
            this.ring = (int) Math.max(2, Math.min(maxRing, (1L << 23) / ((long) (width + extra) * ranks)));
            this.published = new long[ring * PAD];
            this.ringWait = "taking the shared sum (ranks run at most " + ring + " steps apart)";
            this.tables = new double[ranks][];
            this.sums = new double[ranks][][];
        } else if (blocks != this.blocks || width != this.width || extra != this.extra) {
            throw new IllegalStateException("rank " + rank + " has " + blocks + " blocks of " + width
                + " values, rank 0 " + this.blocks + " of " + this.width);
        }
        tables[rank] = new double[Math.max(1, blocks) * width];
        sums[rank] = ranks == 1 ? new double[0][] : new double[ring][width + extra];    // one rank sums alone
        return tables[rank];
    }

    int chunks() {
        return chunks;
    }

    int ranks() {
        return ranks;
    }

    int firstBlock(int chunk) {
        return chunk * chunkBlocks;
    }

    int endBlock(int chunk) {
        return Math.min(blocks, (chunk + 1) * chunkBlocks);
    }

    int blocks() {
        return blocks;
    }

    /** Claims the next chunk of {@code step}: its number, or -1 if none is left or the step is not open. */
    int claim(long step) {
        while (true) {
            long c = (long) LONGS.getVolatile(claim, PAD);
            long s = c >>> 24;
            if (s < step) {
                // The step before is summed (this rank took its sum), so the step may open.
                LONGS.compareAndSet(claim, PAD, c, step << 24);
                continue;
            }
            int next = (int) (c & CHUNK_MASK);
            if (s > step || next >= chunks) {
                return -1;
            }
            if (LONGS.compareAndSet(claim, PAD, c, c + 1)) {
                return next;
            }
        }
    }

    /** {@return whether {@code chunk} of {@code step} (or a later step) is finished} */
    boolean isDone(int chunk, long step) {
        return ((long) LONGS.getAcquire(done, chunk) >>> RANK_BITS) >= step + 1;
    }

    /**
     * Records that {@code rank} finished {@code chunk} of {@code step} into its table: it wins
     * the chunk unless another rank finished it first (or the step is over).
     */
    void finish(int chunk, long step, int rank) {
        long cur = (long) LONGS.getVolatile(done, chunk);
        if ((cur >>> RANK_BITS) < step + 1) {
            LONGS.compareAndSet(done, chunk, cur, ((step + 1) << RANK_BITS) | rank);
        }
    }

    /** {@return whether every chunk of {@code step} is finished} */
    boolean allDone(long step) {
        for (int c = 0; c < chunks; c++) {
            if (!isDone(c, step)) {
                return false;
            }
        }
        return true;
    }

    /** {@return the table holding {@code chunk}'s rows; read after {@link #allDone}} */
    double[] tableOf(int chunk) {
        return tables[(int) ((long) LONGS.getAcquire(done, chunk) & RANK_MASK)];
    }

    /**
     * {@return the buffer {@code rank} writes {@code step}'s sum into, or null once another rank
     * has published it} Waits (or throws) while a rank has not yet taken the sum that buffer held
     * {@code ring} steps ago.
     */
    double[] sumBuffer(int rank, long step, Waiting wait) {
        long need = step - ring + 1;
        for (int r = 0; r < ranks; r++) {
            if ((long) LONGS.getAcquire(taken, (r + 1) * PAD) < need) {
                wait.begin();
                while ((long) LONGS.getAcquire(taken, (r + 1) * PAD) < need) {
                    if (published(step) != null) {
                        return null;
                    }
                    wait.pause(r, ringWait, need - 1);
                }
            }
        }
        return sums[rank][(int) (step % ring)];
    }

    /** Publishes {@code rank}'s sum of {@code step} unless another rank's was published first. */
    void publish(int rank, long step) {
        int at = (int) (step % ring) * PAD;
        long cur = (long) LONGS.getVolatile(published, at);
        if ((cur >>> RANK_BITS) < step + 1) {
            LONGS.compareAndSet(published, at, cur, ((step + 1) << RANK_BITS) | rank);
        }
    }

    /** {@return the published sum of {@code step}, or null while there is none} */
    double[] published(long step) {
        long cur = (long) LONGS.getAcquire(published, (int) (step % ring) * PAD);
        return (cur >>> RANK_BITS) == step + 1 ? sums[(int) (cur & RANK_MASK)][(int) (step % ring)] : null;
    }

    /** Records that {@code rank} has applied the sums of steps {@code 0..step}. */
    void took(int rank, long step) {
        LONGS.setRelease(taken, (rank + 1) * PAD, step + 1);
    }

    /** Marks {@code rank} failed: ranks waiting on the board then throw instead of waiting out the deadline. */
    void fail(int rank) {
        LONGS.compareAndSet(failed, PAD, -1L, (long) rank);
    }

    /**
     * Spins, then yields, then parks a little, checking for a failed rank and the deadline:
     * a rank waits here only for a sum being made or for a rank left far behind. One per
     * rank, reused ({@link #begin} at each wait), so a wait allocates nothing.
     */
    final class Waiting {
        private long start;
        private int polls;

        /** Starts a wait. */
        void begin() {
            start = System.nanoTime();
            polls = 0;
        }

        /**
         * One pause of a wait on {@code peer} for {@code what} of step {@code step} (0-based).
         *
         * @throws PeerFailedException if a rank failed
         * @throws CommTimeoutException past the deadline
         */
        void pause(int peer, String what, long step) {
            polls++;
            if (polls < 64) {
                Thread.onSpinWait();
                return;
            }
            long f = (long) LONGS.getVolatile(failed, PAD);
            if (f >= 0) {
                throw new PeerFailedException("rank " + f + " failed");
            }
            long waited = System.nanoTime() - start;
            if (waited > timeoutNanos) {
                throw new CommTimeoutException(peer, what + " of step " + (step + 1), -1, timeoutSeconds);
            }
            if (waited < 1_000_000) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }
}
