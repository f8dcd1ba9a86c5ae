package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;

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
 */
final class Rebalancer {
    private final Communicator comm;
    private final BlockRanges ranges;
    /** This rank's seconds computing its blocks in each step of the window. */
    private final double[] window;
    /** Every rank's seconds a sample over the window. */
    private final double[] speeds;
    /** The allreduce of {@link #speeds}, made at the first window. */
    private Allreduce sum;
    private int steps;

    /** Windows of {@code every} steps (at least 1) over {@code ranges}, which it moves. */
    Rebalancer(Communicator comm, BlockRanges ranges, int every) {
        this.comm = comm;
        this.ranges = ranges;
        this.window = new double[every];
        this.speeds = new double[comm.size()];
    }

    /**
     * Records the seconds this rank computed its blocks in a step.
     *
     * @return true when the window is full: every rank, being at the same step, then calls
     *         {@link #rebalance}
     */
    boolean record(double seconds) {
        window[steps] = seconds;
        return ++steps == window.length;
    }

    /** Ends the window: the allreduce, then the move; true if the ranges moved. */
    boolean rebalance() {
        Arrays.fill(speeds, -0.0);
        int samples = ranges.samples(comm.rank());
        Arrays.sort(window);
        double median = (window[(window.length - 1) / 2] + window[window.length / 2]) / 2;
        speeds[comm.rank()] = samples == 0 ? Double.NaN : median / samples;
        if (sum == null) {
            sum = Allreduces.create("recursive-doubling", comm);
        }
        sum.allreduce(comm, speeds, 0, speeds.length);
        steps = 0;
        return ranges.rebalance(speeds);
    }
}
