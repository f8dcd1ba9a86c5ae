package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * A differentiable model whose parameters are one flat {@code double[]}.
 *
 * <p>The caller owns every array: the model reads the parameters and adds the gradient of
 * the loss over a range of samples into the caller's buffer, so a training step allocates
 * nothing. Losses are sums over samples (not means); the trainer scales when asked to.
 * A model knows nothing of ranks.
 */
public interface Model {

    /** {@return the number of parameters: the length of every parameter and gradient vector} */
    int parameterCount();

    /** {@return the short name, as results record it ({@code linear}, {@code mlp}, ...)} */
    String name();

    /**
     * Adds the gradient of the summed loss over samples {@code [from, to)} of {@code data}
     * at {@code params} to {@code grad[offset, offset + parameterCount())}.
     *
     * @param data   the samples
     * @param from   first sample of the range
     * @param to     end of the range (exclusive)
     * @param params the parameters, read only
     * @param grad   the caller's buffer; the gradient is added to what it holds, not stored
     * @param offset where the model's gradient starts in {@code grad} (a row of a block table)
     * @return the summed loss over the range at {@code params}
     */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset);

    /**
     * The loss and gradient of consecutive blocks: block k holds samples
     * {@code [from + k size, min(to, from + (k + 1) size))}. Its loss goes to
     * {@code losses[lossAt + k lossStride]} and its gradient replaces
     * {@code grad[gradAt + k gradStride, ... + parameterCount())}, each with the bits
     * {@link #lossAndGradient} gives for the block into a zeroed row. Models whose blocks are so
     * small that a call per block costs as much as the block override it with one loop.
     * {@code losses} may be the array {@code grad} is, as long as no loss slot lies in a
     * gradient row (a table of rows {@code [loss, gradient]}).
     *
     * @param data       the samples
     * @param from       the first block's first sample
     * @param to         end of the last block (exclusive)
     * @param size       samples a block, at least 1
     * @param params     the parameters, read only
     * @param losses     where the blocks' losses go
     * @param lossAt     the first block's loss index
     * @param lossStride between two blocks' losses
     * @param grad       where the blocks' gradients go, overwritten
     * @param gradAt     the first block's gradient offset
     * @param gradStride between two blocks' gradients, at least {@code parameterCount()}
     */
    default void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                        int lossStride, double[] grad, int gradAt, int gradStride) {
        int p = parameterCount();
        int blocks = (int) (((long) to - from + size - 1) / size);
        for (int k = 0; k < blocks; k++) {
            int s = from + k * size;
            int at = gradAt + k * gradStride;
            java.util.Arrays.fill(grad, at, at + p, 0.0);
            losses[lossAt + k * lossStride] = lossAndGradient(data, s, (int) Math.min((long) s + size, to), params,
                grad, at);
        }
    }

    /**
     * As {@link #blocks(Dataset, int, int, int, double[], double[], int, int, double[], int, int)},
     * telling {@code ready} as parts of the gradient become final, so that an exchange can send
     * them while the backward pass goes on. The gradients and losses are the same bits as
     * without it. This default computes every block and tells nothing: the whole gradient is
     * final when it returns.
     *
     * @param data       the samples
     * @param from       the first block's first sample
     * @param to         end of the last block (exclusive)
     * @param size       samples a block, at least 1
     * @param params     the parameters, read only
     * @param losses     where the blocks' losses go
     * @param lossAt     the first block's loss index
     * @param lossStride between two blocks' losses
     * @param grad       where the blocks' gradients go, overwritten
     * @param gradAt     the first block's gradient offset
     * @param gradStride between two blocks' gradients, at least {@code parameterCount()}
     * @param ready      told each layer's range as it is final (see {@link GradientReady})
     */
    default void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                        int lossStride, double[] grad, int gradAt, int gradStride, GradientReady ready) {
        blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
    }

    /**
     * {@return the parameter ranges of the layers in the order a backward pass finishes their
     * gradients, {@code [from0, to0, from1, to1, ...]}, contiguous and covering every
     * parameter; or null for a model whose {@link #blocks(Dataset, int, int, int, double[],
     * double[], int, int, double[], int, int, GradientReady)} tells nothing before its end}
     */
    default int[] backwardRanges() {
        return null;
    }

    /**
     * {@return for each layer of {@link #backwardRanges()}, in the same order, the share of a
     * block's computation (forward and backward) that its backward pass takes, by multiply-adds:
     * its weights' gradient and, but for the first layer, its input's; or null where
     * {@link #backwardRanges()} is null} What prices an exchange sent during the backward pass
     * ({@code train.cost.OverlapCost}): when each layer's gradient is final.
     */
    default double[] backwardShares() {
        return null;
    }

    /**
     * Tells a model with layers that act only in training (dropout) which step the next
     * {@link #lossAndGradient} and {@link #blocks} calls belong to, so that their random draws
     * depend on the run's seed, the step and each sample's row, never on the rank or the node
     * count. The trainer calls it before each step's blocks; {@link #loss} and inference are
     * never affected. Models without such layers ignore it.
     *
     * @param seed     the run's seed, the same on every rank
     * @param step     the step counted from the run's start: {@code epoch x steps-an-epoch + step}
     * @param firstRow the row of the step's data that index 0 of the data given holds: 0, or
     *                 the first sample of the rank's shard when it holds only that
     */
    default void trainingStep(long seed, long step, long firstRow) {
        // Nothing random in training.
    }

    /**
     * {@return whether a training step's blocks depend on each other} (batch normalisation: a
     * sample's output depends on the whole batch's statistics). The trainer then calls
     * {@link #blocks} on every rank at every step, a rank holding no block with an empty range,
     * once a step, and gives the model the step's {@link BatchStatistics} by {@link #statistics}.
     */
    default boolean sumsStatistics() {
        return false;
    }

    /**
     * Sets how {@link #blocks} sums statistics over the step's blocks on every rank; until it is
     * called, over the blocks of the call alone ({@link BatchStatistics#ALONE}). Models whose
     * blocks are independent ignore it.
     *
     * @param across the step's sum over every rank's blocks
     */
    default void statistics(BatchStatistics across) {
        // Independent blocks.
    }

    /**
     * Writes into {@code params} what the last training step's {@link #blocks} call set aside
     * beside the gradient: batch normalisation's running mean and variance. The trainer calls it
     * on every rank after the optimizer's update, whatever that update did to those slots (their
     * gradient is 0). Models without such state ignore it.
     *
     * @param params the parameters after the update, written in place
     */
    default void afterStep(double[] params) {
        // No state beside the gradient.
    }

    /**
     * Sets what a classifier's training loss weighs and aims at: class weights and label
     * smoothing ({@link Objective}). {@link #lossAndGradient}, {@link #blocks} and {@link #loss} of
     * this instance use it from then on; inference does not change. Models that are not
     * classifiers accept only {@link Objective#PLAIN}.
     *
     * @param objective the weights and smoothing, checked against the model's classes
     * @throws IllegalArgumentException if the model cannot take it (a regression, a wrong class count)
     */
    default void objective(Objective objective) {
        if (!objective.plain()) {
            throw new IllegalArgumentException("class weights and label smoothing are for classifiers, not " + name());
        }
    }

    /**
     * Sets the starting parameters from {@code seed}; every rank calls it with the same seed and
     * gets the same values. Zeros by default, right for the convex models; networks override it
     * to break the symmetry between their units.
     *
     * @param params the caller's parameter vector, overwritten
     * @param seed   the run's seed, the same on every rank
     */
    default void initialize(double[] params, long seed) {
        java.util.Arrays.fill(params, 0.0);
    }

    /**
     * The model's output for sample {@code i}: the predicted value of a regression model (for a
     * classifier, its first output). What {@code predict} writes for regression.
     *
     * @param data   the samples
     * @param i      the sample's index
     * @param params the parameters
     * @return the prediction
     * @throws IllegalStateException if the model has no single output (a multi-class classifier)
     */
    default double output(Dataset data, int i, double[] params) {
        throw new IllegalStateException(name() + " has no single output; use a classifier's predicted class");
    }

    /**
     * {@return the summed loss over samples {@code [from, to)} at {@code params}}
     * @param data   the samples
     * @param from   first sample of the range
     * @param to     end of the range (exclusive)
     * @param params the parameters
     */
    double loss(Dataset data, int from, int to, double[] params);
}
