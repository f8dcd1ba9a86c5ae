package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.train.spec.RunSpec;

/**
 * {@code --rebalance}: one rank's time computing its blocks in each step of a window, and, at
 * the window's end, the allreduce that lets every rank move its copy of the {@link BlockRanges}
 * the same way.
 *
 * <p>Every rank sends its median step over the window divided by its samples, in its own slot
 * of a vector whose other slots are {@code -0.0}: the sum is exact in any order, so every rank
 * holds the same numbers. The median, not the mean: a step that caught the compiler or the
 * scheduler's slice for another process says nothing of the rank's speed, while a slower node
 * is slower in every step. Time a rank spent off its CPU counts: its share shrinks.
 *
 * <p>With {@code --rebalance auto} ({@link RunSpec#REBALANCE_AUTO}) the first window is
 * {@value #AUTO_FIRST} steps and each next one as many steps as the slowest rank's last window
 * says take {@value #AUTO_SECONDS} s: every rank adds its mean step in a second slot of the same
 * allreduce, so all choose the same length. Windows that short of time let one compilation, or
 * one rank's slice of the scheduler, move the split: measured on 3,000 epochs of 20,000 x 10 on
 * two free cores, windows of 100 steps (about 8 ms) made the run 11% slower; of 500, not.
 */
final class Rebalancer {
    /** The first window of {@code --rebalance auto}, in steps. */
    static final int AUTO_FIRST = 16;
    /** How long the windows of {@code --rebalance auto} aim to last, in seconds. */
    static final double AUTO_SECONDS = 0.2;
    private final Communicator comm;
    private final BlockRanges ranges;
    private final boolean auto;
    /** This rank's seconds computing its blocks in each step of the window. */
    private double[] window;
    /** Steps in this window. */
    private int length;
    /** Every rank's seconds a sample over the window; with auto, then every rank's mean step. */
    private final double[] speeds;
    /** The allreduce of {@link #speeds}, made at the first window. */
    private Allreduce sum;
    private int steps;
    /** This rank's seconds in the window's steps, exchanges included. */
    private double stepSeconds;

    /**
     * Windows of {@code every} steps (at least 1), or {@link RunSpec#REBALANCE_AUTO}, over
     * {@code ranges}, which it moves.
     */
    Rebalancer(Communicator comm, BlockRanges ranges, int every) {
        this.comm = comm;
        this.ranges = ranges;
        this.auto = every == RunSpec.REBALANCE_AUTO;
        this.length = auto ? AUTO_FIRST : every;
        this.window = new double[length];
        this.speeds = new double[auto ? 2 * comm.size() : comm.size()];
    }

    /**
     * Records a step: the seconds this rank computed its blocks, and the whole step's.
     *
     * @return true when the window is full: every rank, being at the same step, then calls
     *         {@link #rebalance}
     */
    boolean record(double compute, double step) {
        window[steps] = compute;
        stepSeconds += step;
        return ++steps == length;
    }

    /** Ends the window: the allreduce, then the move; true if the ranges moved. */
    boolean rebalance() {
        Arrays.fill(speeds, -0.0);
        int p = comm.size();
        int samples = ranges.samples(comm.rank());
        Arrays.sort(window, 0, length);
        double median = (window[(length - 1) / 2] + window[length / 2]) / 2;
        speeds[comm.rank()] = samples == 0 ? Double.NaN : median / samples;
        if (auto) {
            speeds[p + comm.rank()] = stepSeconds / length;
        }
        if (sum == null) {
            sum = Allreduces.create("recursive-doubling", comm);
        }
        sum.allreduce(comm, speeds, 0, speeds.length);
        steps = 0;
        stepSeconds = 0.0;
        if (auto) {
            nextLength(p);
        }
        return ranges.rebalance(speeds);     // reads the first p values
    }

    /** The next window of auto: as many steps as the slowest rank's mean step fits in {@link #AUTO_SECONDS}. */
    private void nextLength(int p) {
        double slowest = 0.0;
        for (int r = 0; r < p; r++) {
            slowest = Math.max(slowest, speeds[p + r]);
        }
        if (!(slowest > 0.0) || Double.isInfinite(slowest)) {
            return;
        }
        length = (int) Math.max(AUTO_FIRST, Math.min(RunSpec.MAX_REBALANCE, Math.ceil(AUTO_SECONDS / slowest)));
        if (length > window.length) {
            window = new double[length];    // once or twice a run, not a step
        }
    }
}
