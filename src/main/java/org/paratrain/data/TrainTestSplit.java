package org.paratrain.data;

/**
 * A seeded random split into training and test samples: numpy's legacy shuffle of the
 * sample indices (the same permutation as {@code RandomState(seed).permutation(n)}), the
 * first part for testing, as scikit-learn's {@code ShuffleSplit} takes it.
 *
 * @param train the training samples
 * @param test  the test samples
 */
public record TrainTestSplit(Dataset train, Dataset test) {

    /**
     * Splits off {@code ceil(fraction * n)} test samples.
     *
     * @param d        the samples
     * @param fraction the share held out for testing, in (0, 1)
     * @param seed     the seed of the permutation, as numpy's {@code RandomState(seed)}
     * @return the two parts, each with at least one sample
     * @throws IllegalArgumentException if the fraction is out of range or leaves a part empty
     */
    public static TrainTestSplit of(Dataset d, double fraction, long seed) {
        if (!(fraction > 0 && fraction < 1)) {
            throw new IllegalArgumentException("--test-fraction must be in (0, 1), got " + fraction);
        }
        int n = d.samples();
        int nTest = (int) Math.ceil(fraction * n);
        if (nTest >= n) {
            throw new IllegalArgumentException("--test-fraction " + fraction + " leaves no training samples of " + n);
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        new NumpyRandomState(seed).shuffle(order);
        return new TrainTestSplit(take(d, order, nTest, n), take(d, order, 0, nTest));
    }

    private static Dataset take(Dataset d, int[] order, int from, int to) {
        int f = d.features();
        double[] x = new double[(to - from) * f];
        double[] y = new double[to - from];
        for (int k = from; k < to; k++) {
            System.arraycopy(d.x(), order[k] * f, x, (k - from) * f, f);
            y[k - from] = d.y()[order[k]];
        }
        return new Dataset(x, y, to - from, f);
    }
}
