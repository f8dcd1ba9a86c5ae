package org.paratrain.model;

/**
 * Told, during a training step's backward pass, that part of the gradient is final: the
 * exchange may send it while the pass goes on (the overlap of communication with backward).
 *
 * <p>{@link Model#blocks(org.paratrain.data.Dataset, int, int, int, double[], double[], int, int,
 * double[], int, int, GradientReady)} calls it from the thread that computes, once per layer
 * with parameters, in the order the backward pass finishes them (the output layer's first),
 * each time for a range no other call names. Indices not named by the end of the call are
 * final at its end.
 */
@FunctionalInterface
public interface GradientReady {
    /**
     * Parameters {@code [from, to)} of every block's gradient row of the current call are final.
     *
     * @param from the first parameter index
     * @param to   end of the range (exclusive)
     */
    void ready(int from, int to);

    /**
     * {@return whether a range not yet told could still be sent early} Once false (every early
     * bucket has gone), the pass may finish in its fastest order and tell nothing more: the
     * ranges it does not name are final at the end of the call, as always. Staging a network's
     * backward layer by layer over all of a block's chunks, so that a layer's range is final
     * early, keeps every chunk's activations out of cache; past the last early bucket it only
     * costs. By default true: told of every layer.
     */
    default boolean waiting() {
        return true;
    }

    /**
     * {@return how many of the call's last {@code chunks} chunks the pass should run stage by
     * stage (1 to {@code chunks}), where a network computes a block in chunks} Staging more
     * leaves more backward after each told layer to hide its exchange, at the cost of keeping
     * more chunks' activations out of cache. The count changes no bit: each layer still adds
     * its chunks in order. By default all of them.
     *
     * @param chunks the chunks of the block being computed
     */
    default int stagedChunks(int chunks) {
        return chunks;
    }
}
