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

    /**
     * Applies one update to every parameter.
     *
     * @param params the parameters, changed in place
     * @param grad   the combined gradient at {@code params}, the same on every rank; not changed
     */
    default void step(double[] params, double[] grad) {
        step(params, grad, 0, params.length);
    }

    /**
     * Applies one update to {@code params[from, to)} only: a shard, when each rank updates its
     * own slice of the parameters (a sharded optimizer). The state (velocity, moments) is kept
     * for that range only, so it must be the same range at every step; the update of each
     * parameter is the same arithmetic as in a whole step, so the shards together give the
     * bits of one optimizer updating everything.
     *
     * @param params the parameters, changed in place in {@code [from, to)}
     * @param grad   the combined gradient, read in {@code [from, to)}
     * @param from   first parameter of the shard
     * @param to     end of the shard (exclusive)
     */
    void step(double[] params, double[] grad, int from, int to);

    /** {@return the short name, as results and checkpoints record it ({@code gd}, {@code adam}, ...)} */
    String name();

    /** {@return the learning rate of the last update (what the schedule gave), NaN before the first} */
    double learningRate();

    /**
     * Multiplies every later rate of the schedule by {@code factor} (1 at the start): how
     * a learning rate that reacts to a plateau of the validation loss lowers it. Every rank
     * is given the same factor at the same step, so the updates stay equal.
     *
     * @param factor positive and finite; 1 is the schedule as given
     */
    void scaleLearningRate(double factor);

    /**
     * Everything {@link #restore} needs to continue bit for bit: the update count (which is
     * also the schedule's position) and the raw values of every state vector and scalar.
     * The arrays are copies; the optimiser keeps none of them.
     *
     * @return the state, ready for a checkpoint
     */
    OptimizerState state();

    /**
     * Continues from {@code state}, as taken from an optimiser of the same kind and
     * settings. Call before the first {@link #step}.
     *
     * @param state from {@link #state} of an optimiser of this kind, e.g. read from a checkpoint
     *
     * @throws IllegalArgumentException if the state belongs to another kind of optimiser or
     *                                  to another number of parameters
     */
    void restore(OptimizerState state);
}
