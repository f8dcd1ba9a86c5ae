package org.paratrain.train;

import org.paratrain.collective.sum.FixedSum;
import org.paratrain.optim.Optimizer;
import org.paratrain.optim.OptimizerState;

/**
 * How the ranks of a run combine their block losses and gradients and apply an update.
 *
 * <p>Call order per epoch: the trainer writes the loss of each of its blocks at
 * {@link #lossIndex} of {@link #losses()} and adds its gradient at {@link #gradientOffset} of
 * {@link #gradients()} (zeroed first), then calls {@link #step}. After the
 * last epoch, the trainer writes block losses at the final weights and calls
 * {@link #reduceLoss}. Every implementation adds the blocks in block order, so the result
 * does not depend on the node count.
 */
interface GradientExchange {

    /** Where block losses go. */
    double[] losses();

    /**
     * Index in {@link #losses()} of this rank's {@code k}-th block: {@code a + k s} for some
     * {@code a} and {@code s}, so that one call can fill a rank's blocks.
     */
    int lossIndex(int k);

    /** Where block gradients go. */
    double[] gradients();

    /**
     * Offset in {@link #gradients()} of this rank's {@code k}-th block's gradient: {@code a + k s}
     * for some {@code a} and {@code s} of at least the parameter count.
     */
    int gradientOffset(int k);

    /**
     * Combines the blocks of all ranks, updates {@code weights} with the gradient times
     * {@code scale} so that every rank ends with the same weights, and returns the epoch's
     * loss times {@code scale}, the same on every rank.
     */
    double step(double[] weights, Optimizer optimizer, double scale);

    /**
     * Called on every rank before the model computes a step's blocks: the listener to give the
     * model so that the exchange starts sending finished layers while the backward pass runs,
     * or null (then the whole exchange waits for {@link #step}). Either way {@link #step} follows.
     */
    default org.paratrain.model.GradientReady overlap() {
        return null;
    }

    /**
     * {@return the steps whose guessed fixed-point grid did not hold and whose sum was redone on an
     * agreed grid (a second exchange), so far; 0 for sums that guess no grid. The same on every
     * rank and at any node count: whether a guess holds depends on the step's values alone}
     */
    default long guessMisses() {
        return 0;
    }

    /**
     * {@return the share of the last block's chunks the network ran stage by stage for buckets sent
     * during backward ({@link org.paratrain.model.GradientReady#stagedChunks}), summed over the
     * steps that asked, and those steps, so far: {@code {0, 0}} where nothing was staged} What
     * prices the overlap: an early bucket is ready once the staged chunks' top layers are done.
     */
    default double[] stagedShares() {
        return new double[2];
    }

    /**
     * {@return the fixed-point sum's grid exponents carried into the next step, per segment
     * ({@link FixedSum#carried}): what a checkpoint keeps so that a resumed run fixes the grids an
     * uninterrupted one would; empty for a sum that carries none} Valid on rank 0 at least.
     */
    default int[] sumGrids() {
        return carried(stepSum());
    }

    /**
     * Resumes the grid exponents {@link #sumGrids} gave; an empty array (a checkpoint from before
     * they were kept, or of another sum) leaves the grids to start afresh.
     *
     * @throws IllegalArgumentException if they do not fit this exchange's sum
     */
    default void carrySumGrids(int[] grids) {
        carry(stepSum(), grids);
    }

    /**
     * {@return the fixed-point sum of each step's loss and gradient, whose grids carry from step to
     * step; null for a sum that has none (float, blocks)}
     */
    default FixedSum stepSum() {
        return null;
    }

    /** {@return the exponents {@code sum} carries, per segment; empty when there is no sum} */
    static int[] carried(FixedSum sum) {
        if (sum == null) {
            return new int[0];
        }
        int[] e = new int[sum.segmentCount()];
        for (int s = 0; s < e.length; s++) {
            e[s] = sum.carried(s);
        }
        return e;
    }

    /** Sets what {@code sum} carries from {@code grids}, unless either is empty. */
    static void carry(FixedSum sum, int[] grids) {
        if (sum == null || grids.length == 0) {
            return;
        }
        if (grids.length != sum.segmentCount()) {
            throw new IllegalArgumentException("the checkpoint carries " + grids.length + " grid exponents, this run's "
                + "sum has " + sum.segmentCount() + " segments");
        }
        int[] before = carried(sum);
        try {
            for (int s = 0; s < grids.length; s++) {
                sum.carry(s, grids[s]);
            }
        } catch (IllegalArgumentException e) {
            for (int s = 0; s < before.length; s++) {
                sum.carry(s, before[s]);     // all or none
            }
            throw e;
        }
    }

    /** Ends what the exchange runs beside the ranks (an exchange thread), at the end of training. */
    default void close() {
        // Nothing beside the ranks.
    }

    /** The loss over all blocks times {@code scale}; valid on rank 0 at least. */
    double reduceLoss(double scale);

    /**
     * The optimizer's state as one optimizer updating every parameter would hold it: what a
     * checkpoint keeps. An exchange that shards the optimizer gathers the slices, so every
     * rank calls this at the same point.
     *
     * @param optimizer this rank's optimizer
     * @return the whole state
     */
    default OptimizerState wholeState(Optimizer optimizer) {
        return optimizer.state();
    }

    /**
     * {@return true if {@link #wholeState} needs every rank (it gathers a sharded state), so
     * that a checkpoint must be due on every rank at once, not on rank 0's clock alone}
     */
    default boolean gathersState() {
        return false;
    }

    /**
     * The part of a whole state (from a checkpoint, made at any node count) that this rank's
     * optimizer holds.
     *
     * @param whole the state of every parameter
     * @return what to restore on this rank
     */
    default OptimizerState ownState(OptimizerState whole) {
        return whole;
    }

    /**
     * Called on every rank, between steps, after the {@link BlockRanges} the exchange was built
     * with moved: the exchange makes room for this rank's new share. {@link #losses()} and
     * {@link #gradients()} may then return other arrays.
     */
    default void rangesMoved() {
    }

    /** Name, as in results. */
    String name();
}
