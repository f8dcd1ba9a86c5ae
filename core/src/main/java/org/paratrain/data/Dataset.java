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
 * <p>Sample weights, when present, say how much each sample counts: a sample of weight 2 adds
 * twice its loss and gradient, as if it were there twice (Keras' and scikit-learn's
 * {@code sample_weight}, Spark's {@code weightCol}). They travel with the rows, through
 * shards, batches and splits, so each sample keeps its own weight at any node count.
 *
 * @param x        features, {@code samples * features} values, row-major
 * @param y        targets, one per sample
 * @param samples  number of samples
 * @param features number of features per sample
 * @param weights  a weight a sample, each finite and at least 0, or null when every sample weighs 1
 */
public record Dataset(double[] x, double[] y, int samples, int features, double[] weights) {

    /**
     * Samples that all weigh 1.
     *
     * @param x        features, {@code samples * features} values, row-major
     * @param y        targets, one per sample
     * @param samples  number of samples
     * @param features number of features per sample
     */
    public Dataset(double[] x, double[] y, int samples, int features) {
        this(x, y, samples, features, null);
    }

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
        if (weights != null && weights.length != samples) {
            throw new IllegalArgumentException("weights hold " + weights.length + " values, expected " + samples);
        }
    }

    /**
     * {@return the same samples with these weights} (shared, not copied)
     * @param sampleWeights a weight a sample, each finite and at least 0, or null for all 1
     * @throws IllegalArgumentException if a weight is negative, not finite, or all are 0
     */
    public Dataset withWeights(double[] sampleWeights) {
        if (sampleWeights != null) {
            boolean some = false;
            for (int i = 0; i < sampleWeights.length; i++) {
                double w = sampleWeights[i];
                if (!(w >= 0 && w < Double.POSITIVE_INFINITY)) {
                    throw new IllegalArgumentException("the weight of sample " + i + " (0-based) is " + w
                        + "; sample weights must be finite numbers of at least 0");
                }
                some |= w > 0;
            }
            if (!some) {
                throw new IllegalArgumentException("every sample weight is 0: nothing to train on");
            }
        }
        return new Dataset(x, y, samples, features, sampleWeights);
    }

    /** {@return whether the samples carry weights} */
    public boolean weighted() {
        return weights != null;
    }

    /**
     * {@return the weight of sample {@code i}: 1 when the samples carry none}
     * @param i the sample, 0..samples-1
     */
    public double weight(int i) {
        return weights == null ? 1.0 : weights[i];
    }

    /**
     * {@return samples {@code [from, to)}, copied, with their weights}
     * @param from the first sample
     * @param to   the end (exclusive), more than {@code from}
     */
    public Dataset rows(int from, int to) {
        int f = features;
        return new Dataset(java.util.Arrays.copyOfRange(x, from * f, to * f), java.util.Arrays.copyOfRange(y, from, to),
            to - from, f, weights == null ? null : java.util.Arrays.copyOfRange(weights, from, to));
    }

    /**
     * {@return the samples at {@code order[from, to)}, in that order, copied, with their weights}
     * @param order sample indices
     * @param from  the first index of {@code order} taken
     * @param to    the end (exclusive)
     */
    public Dataset pick(int[] order, int from, int to) {
        int f = features;
        double[] px = new double[(to - from) * f];
        double[] py = new double[to - from];
        double[] pw = weights == null ? null : new double[to - from];
        for (int k = from; k < to; k++) {
            System.arraycopy(x, order[k] * f, px, (k - from) * f, f);
            py[k - from] = y[order[k]];
            if (pw != null) {
                pw[k - from] = weights[order[k]];
            }
        }
        return new Dataset(px, py, to - from, f, pw);
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
