package org.paratrain.model;

/**
 * Dropout's masks, drawn from a counter-based generator: whether unit {@code u} of layer
 * {@code l} of sample {@code row} is kept at step {@code t} of a run with seed {@code s} is a
 * function of {@code (s, t, row, l, u)} alone. No generator state is carried from draw to
 * draw, so a rank that holds rows 1,000-1,999 draws their masks without drawing the first
 * thousand rows', and a run at any node count (or resumed on another) drops the same units
 * of the same samples at the same step: the sum of the per-sample gradients keeps its bits.
 *
 * <p>The generator is SplitMix64's: a 64-bit key made of the seed, the step, the row and the
 * layer by SplitMix64's finaliser, then for unit {@code u} the finaliser of
 * {@code key + (u + 1) * 0x9E3779B97F4A7C15}, the (u+1)-th output of a SplitMix64 stream
 * started at {@code key}. A unit is kept when the top 53 bits, as a fraction of 2^53, are at
 * least the rate; a kept unit is scaled by {@code 1 / (1 - rate)} ("inverted" dropout, as
 * PyTorch and Keras do it), so inference needs no scaling and the layer is the identity there.
 *
 * <p>One instance a layer of a network: the threshold and the scale are computed once, and a
 * row's masks are written into the caller's buffer (no allocation).
 */
final class DropoutMasks {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private final long threshold;       // keep when (h >>> 11) >= threshold
    private final double scale;
    private final int layer;

    /**
     * @param rate  the fraction of units dropped, in [0, 1)
     * @param layer the layer's index in its network (two dropout layers draw different masks)
     */
    DropoutMasks(double rate, int layer) {
        if (!(rate >= 0.0 && rate < 1.0)) {
            throw new IllegalArgumentException("a dropout rate must be in [0, 1), got " + rate);
        }
        this.threshold = (long) Math.ceil(rate * 0x1p53);
        this.scale = 1.0 / (1.0 - rate);
        this.layer = layer;
    }

    /** {@return the factor of a kept unit, {@code 1 / (1 - rate)}} */
    double scale() {
        return scale;
    }

    /**
     * Writes the factors of {@code units} units of one sample, {@code 0} or {@link #scale()},
     * into {@code out[at, at + units)}.
     *
     * @param seed  the run's seed
     * @param step  the step, counted from the run's start (epoch x steps an epoch + step)
     * @param row   the sample's row in the step's data: its index in the data set for a full
     *              batch, its place in the batch for a mini-batch (both independent of the ranks)
     */
    void factors(long seed, long step, long row, int units, double[] out, int at) {
        long key = key(seed, step, row);
        for (int u = 0; u < units; u++) {
            out[at + u] = (mix(key + (u + 1) * GOLDEN) >>> 11) >= threshold ? scale : 0.0;
        }
    }

    /** As {@link #factors(long, long, long, int, double[], int)}, into floats. */
    void factors(long seed, long step, long row, int units, float[] out, int at) {
        long key = key(seed, step, row);
        float s = (float) scale;
        for (int u = 0; u < units; u++) {
            out[at + u] = (mix(key + (u + 1) * GOLDEN) >>> 11) >= threshold ? s : 0f;
        }
    }

    private long key(long seed, long step, long row) {
        return mix(mix(mix(seed ^ 0x5DEECE66DL) + step * GOLDEN) + row * GOLDEN + layer);
    }

    /** SplitMix64's finaliser (Stafford's variant 13): every bit of the input moves every bit of the output. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
