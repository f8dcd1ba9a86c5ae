package org.paratrain.optim;

/**
 * An update rule: turns a gradient into a change of the parameters, in place.
 *
 * <p>Call order: construct once per training run, then call {@link #step} once per
 * update with the summed (and, if asked, averaged) gradient. An optimiser may keep state
 * between steps (momentum, moment estimates); every rank that applies updates holds its
 * own instance and feeds it the same gradients, so all instances stay equal.
 */
public interface Optimizer {

    /** Applies one update to {@code params} from {@code grad}; {@code grad} is not changed. */
    void step(double[] params, double[] grad);

    /** Short name, as in results. */
    String name();
}
