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

    /** Number of parameters. */
    int parameterCount();

    /** Short name, as in results ({@code linear}). */
    String name();

    /**
     * Adds the gradient of the summed loss over samples {@code [from, to)} of {@code data}
     * at {@code params} to {@code grad[offset, offset + parameterCount())}, and returns that loss.
     */
    double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset);

    /**
     * Sets the starting parameters from {@code seed}; every rank calls it with the same seed and
     * gets the same values. Zeros by default, right for the convex models; networks override it
     * to break the symmetry between their units.
     */
    default void initialize(double[] params, long seed) {
        java.util.Arrays.fill(params, 0.0);
    }

    /**
     * The model's output for sample {@code i}: the predicted value of a regression model (for a
     * classifier, its first output). What {@code predict} writes for regression.
     */
    default double output(Dataset data, int i, double[] params) {
        throw new IllegalStateException(name() + " has no single output; use a classifier's predicted class");
    }

    /** The summed loss over samples {@code [from, to)} at {@code params}. */
    double loss(Dataset data, int from, int to, double[] params);
}
