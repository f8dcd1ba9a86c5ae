package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.data.BlockSharding;

/**
 * Which consecutive blocks of a step each rank computes. It starts as {@link BlockSharding}'s
 * even split and may move, between steps, to follow the speed each rank measured
 * ({@link #rebalance}). Where the boundaries lie never changes a bit of the result: the rows
 * are summed by block, in block order, whoever computed them. It only changes who waits.
 *
 * <p>Every rank holds its own copy and moves it with the same measurements, gathered by one
 * allreduce, through the same arithmetic: so every copy holds the same boundaries.
 */
final class BlockRanges {
    /**
     * A move must promise a step this much shorter than the current split's, measured at the
     * same speeds: smaller gains are within the noise of a window's timing, and moving on noise
     * would make the split wander.
     */
    static final double MIN_GAIN = 0.10;
    private final BlockSharding sharding;
    private final int ranks;
    /**
     * Rank r computes blocks {@code [bounds[r], bounds[r + 1])}; null until the split first
     * moves ({@link #first} computes the even split). Why: every rank holds a copy, so p
     * boundaries each are p^2 over a local job's ranks (4,096 ranks: 64 MB of them, 400 MB with
     * the three arrays below), while a job that does not rebalance never needs them.
     */
    private int[] bounds;
    /** Each rank's seconds a sample: the mean of the last two windows'; made at the first window. */
    private double[] estimate;
    /** What each rank measured in the window before the last; NaN before the second. */
    private double[] previous;
    /** The proposed boundaries, filled by {@link #proposal}. */
    private int[] next;
    private int moves;

    /** The even split of {@code sharding}'s blocks over {@code ranks} ranks. */
    BlockRanges(BlockSharding sharding, int ranks) {
        this.sharding = sharding;
        this.ranks = ranks;
    }

    /** {@return the blocks and their sizes} */
    BlockSharding sharding() {
        return sharding;
    }

    /** {@return the first block of {@code rank}} */
    int first(int rank) {
        return bounds == null ? sharding.firstBlock(rank, ranks) : bounds[rank];
    }

    /** {@return one past the last block of {@code rank}} */
    int end(int rank) {
        return first(rank + 1);
    }

    /** {@return how many blocks {@code rank} computes} */
    int owned(int rank) {
        return end(rank) - first(rank);
    }

    /** {@return how many samples {@code rank}'s blocks hold} */
    int samples(int rank) {
        return sharding.blockStart(end(rank)) - sharding.blockStart(first(rank));
    }

    /** {@return the blocks each rank computes, in rank order} */
    int[] blocksPerRank() {
        int[] n = new int[ranks];
        for (int r = 0; r < n.length; r++) {
            n[r] = owned(r);
        }
        return n;
    }

    /** {@return how many times the split has moved} */
    int moves() {
        return moves;
    }

    /**
     * Moves the boundaries so that each rank's share of the samples follows its speed over the
     * last two windows (the mean of their seconds a sample), if that promises a step at least
     * {@link #MIN_GAIN} shorter at the speeds of each of the two windows. Two windows in a row
     * must agree, so that one that caught a recompilation (a rank running its kernel in the
     * interpreter for a while, 30 times slower) moves nothing, while a rank that stays slower
     * gets its share at the second window. Every rank keeps at least one block (so that its speed
     * can still be measured) when there are as many blocks as ranks.
     *
     * @param window what each rank measured over the last window, seconds a sample; a value
     *               that is not positive and finite (a rank that computed nothing) moves nothing
     * @return true if the boundaries moved
     */
    boolean rebalance(double[] window) {
        int p = ranks;
        if (previous == null) {
            estimate = new double[p];
            previous = new double[p];
            Arrays.fill(previous, Double.NaN);
            next = new int[p + 1];
        }
        for (int r = 0; r < p; r++) {
            estimate[r] = (window[r] + previous[r]) / 2;
        }
        boolean move = proposal(p) && !isCurrent(next) && shorter(next, window) && shorter(next, previous);
        System.arraycopy(window, 0, previous, 0, p);
        if (!move) {
            return false;
        }
        if (bounds == null) {
            bounds = new int[p + 1];
        }
        System.arraycopy(next, 0, bounds, 0, next.length);
        moves++;
        return true;
    }

    /** {@return whether {@code split} holds the current boundaries} */
    private boolean isCurrent(int[] split) {
        for (int r = 0; r <= ranks; r++) {
            if (split[r] != first(r)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fills {@link #next} with the split by the estimated speeds; false when a rank has none (yet)
     * or there are too few blocks.
     */
    private boolean proposal(int p) {
        int blocks = sharding.blocks();
        if (p < 2 || blocks < p) {
            return false;
        }
        double[] secondsPerSample = estimate;
        double speed = 0.0;
        for (int r = 0; r < p; r++) {
            double t = secondsPerSample[r];
            if (!(t > 0.0 && t < Double.POSITIVE_INFINITY)) {
                return false;
            }
            speed += 1.0 / t;
        }
        next[0] = 0;
        next[p] = blocks;
        double ahead = 0.0;
        for (int r = 0; r < p - 1; r++) {
            ahead += 1.0 / secondsPerSample[r];
            double target = sharding.samples() * (ahead / speed);
            int b = nearestBlock(target);
            next[r + 1] = Math.max(next[r] + 1, Math.min(b, blocks - (p - 1 - r)));
        }
        return true;
    }

    /**
     * Whether split {@code next} makes the slowest rank's step at least {@link #MIN_GAIN}
     * shorter than the current split does, at {@code secondsPerSample}; false if a rank's value
     * is not positive and finite.
     */
    private boolean shorter(int[] next, double[] secondsPerSample) {
        double now = 0.0;
        double then = 0.0;
        for (int r = 0; r < next.length - 1; r++) {
            double t = secondsPerSample[r];
            if (!(t > 0.0 && t < Double.POSITIVE_INFINITY)) {
                return false;
            }
            now = Math.max(now, samples(r) * t);
            then = Math.max(then, (sharding.blockStart(next[r + 1]) - sharding.blockStart(next[r])) * t);
        }
        return then <= now * (1.0 - MIN_GAIN);
    }

    /** The block boundary nearest to sample {@code target}. */
    private int nearestBlock(double target) {
        int b = (int) Math.min(sharding.blocks(), Math.floor(target / sharding.blockSize()));
        double below = target - sharding.blockStart(b);
        double above = b < sharding.blocks() ? sharding.blockStart(b + 1) - target : Double.POSITIVE_INFINITY;
        return above < below ? b + 1 : b;
    }
}
