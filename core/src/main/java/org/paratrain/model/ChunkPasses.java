package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * One chunk's scratch and passes of a {@link ConvNet}, stage by stage, so that
 * {@link ConvNormSteps} can run every chunk of a step through one stage before the next: what
 * batch normalisation needs, since a stage's output depends on the whole step's statistics.
 * {@link ConvDoublePasses} and {@link ConvFloatPasses} implement it; one instance a chunk.
 *
 * <p>Call order for a step: {@link #trainingStep} and {@link #prepare}, then for each stage in order either
 * {@link #forwardStage} or (batchnorm) {@link #normSums} and {@link #normalize}; {@link #head}; then for each stage in reverse order either
 * {@link #backwardStage} or {@link #normGradients} and {@link #normBackward}; then {@link #gradientInto}.
 */
interface ChunkPasses {
    /**
     * Readies the chunk for a step at {@code params}: the float passes round them (the first
     * chunk) or share the first chunk's rounding, and clear their gradient.
     */
    default void prepare(double[] params, ChunkPasses first) {
        // Doubles read the parameters as they are and add their gradient straight into the row.
    }

    /** Adds the chunk's own gradient into {@code grad[offset...]}: the float passes' widened; nothing for doubles. */
    default void gradientInto(double[] grad, int offset) {
        // Written in place by backwardStage.
    }

    /** See {@link Model#trainingStep}. */
    void trainingStep(long seed, long step, long firstRow);

    /** Runs the chunk's samples {@code [from, from + n)} through stage s (not a batchnorm in training). */
    void forwardStage(int s, Dataset data, int from, int n, double[] params, boolean training);

    /** Adds each channel's {@code sum (x - shift)} and {@code sum (x - shift)^2} of batchnorm stage s's input to {@code s1}, {@code s2}. */
    void normSums(int s, int n, double[] shift, double[] s1, double[] s2);

    /** Stage s's output {@code relu(a x + b)} from its input, channel by channel. */
    void normalize(int s, int n, double[] a, double[] b);

    /** The chunk's summed training loss; leaves the head's deltas. */
    double head(Dataset data, int from, int n);

    /** Stage s's gradient added at {@code grad[offset...]} (or the chunk's float gradient), then the deltas before it. */
    void backwardStage(int s, Dataset data, int from, int n, double[] params, double[] grad, int offset);

    /** Through stage s's ReLU; adds each channel's {@code sum g} and {@code sum g (x - mean) scale} to {@code s1}, {@code s2}. */
    void normGradients(int s, int n, double[] mean, double[] scale, double[] s1, double[] s2);

    /** The deltas of stage s's input, {@code k1 g - k2 x - k3} channel by channel. */
    void normBackward(int s, int n, double[] k1, double[] k2, double[] k3);
}
