package org.paratrain.data;

import java.util.Objects;

/**
 * Samples for supervised learning: features in one flat row-major array (sample {@code i},
 * feature {@code j} at {@code i * features + j}) and one target per sample.
 *
 * <p>Flat arrays keep a rank's shard contiguous in memory, so a gradient pass streams
 * through it once. The arrays are shared, not copied: treat a data set as read-only once
 * built, since every rank of the local backend reads the same instance.
 *
 * @param x        features, {@code samples * features} values, row-major
 * @param y        targets, one per sample
 * @param samples  number of samples
 * @param features number of features per sample
 */
public record Dataset(double[] x, double[] y, int samples, int features) {

    /**
     * Checks that the arrays match the declared shape. Values are not scanned here (a pass over
     * every value on each copy of a shard or batch): the readers refuse numbers that are not
     * finite, naming the line.
     */
    public Dataset {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(y, "y");
        if (samples < 1 || features < 1) {
            throw new IllegalArgumentException(
                "a data set needs at least 1 sample and 1 feature, got " + samples + " x " + features);
        }
        if ((long) samples * features != x.length) {
            throw new IllegalArgumentException("x holds " + x.length + " values, expected "
                + samples + " samples x " + features + " features");
        }
        if (y.length != samples) {
            throw new IllegalArgumentException("y holds " + y.length + " values, expected " + samples);
        }
    }

    /**
     * One sample of zeros with {@code features} features: what a rank that owns no blocks holds
     * when ranks read only their own share (it is never read).
     */
    static Dataset placeholder(int features) {
        return new Dataset(new double[features], new double[1], 1, features);
    }

    /**
     * Refuses a data set holding a NaN or an infinity, naming the first: training on it would
     * end in a "diverged" loss that blames the learning rate. One pass over the values.
     *
     * @param what how to name the data in the message ("the training data", a file)
     * @throws DataFormatException naming the sample and the feature (0-based), or the target
     */
    public void requireFinite(String what) {
        for (int k = 0; k < x.length; k++) {
            if (!Double.isFinite(x[k])) {
                throw new DataFormatException(what + ": sample " + k / features + " (0-based), feature " + k % features
                    + " is " + x[k] + "; features must be finite numbers");
            }
        }
        for (int i = 0; i < y.length; i++) {
            if (!Double.isFinite(y[i])) {
                throw new DataFormatException(what + ": the target of sample " + i + " (0-based) is " + y[i]
                    + "; targets must be finite numbers");
            }
        }
    }

    /**
     * {@return feature {@code j} of sample {@code i}}
     * @param i the sample, 0..samples-1
     * @param j the feature, 0..features-1
     */
    public double x(int i, int j) {
        return x[i * features + j];
    }
}
