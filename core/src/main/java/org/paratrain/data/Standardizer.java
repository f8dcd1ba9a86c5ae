package org.paratrain.data;

/**
 * Scales each feature to mean 0 and standard deviation 1, with statistics fitted on the
 * training data only (fitting on test data would leak it into training). A constant
 * feature keeps scale 1, so it becomes 0 rather than NaN.
 *
 * @param mean  per-feature mean of the training data
 * @param scale per-feature standard deviation (population), or 1 where it is 0
 */
public record Standardizer(double[] mean, double[] scale) {

    /**
     * {@return the per-feature mean and population standard deviation of {@code d}, by Welford's method}
     * @param d the training samples (never the test samples)
     */
    public static Standardizer fit(Dataset d) {
        int f = d.features();
        double[] mean = new double[f];
        double[] m2 = new double[f];
        for (int i = 0; i < d.samples(); i++) {
            for (int j = 0; j < f; j++) {
                double delta = d.x(i, j) - mean[j];          // Welford: stable for large offsets
                mean[j] += delta / (i + 1);
                m2[j] += delta * (d.x(i, j) - mean[j]);
            }
        }
        double[] scale = new double[f];
        for (int j = 0; j < f; j++) {
            double sd = Math.sqrt(m2[j] / d.samples());
            scale[j] = sd > 0 ? sd : 1.0;
        }
        return new Standardizer(mean, scale);
    }

    /**
     * {@return a new data set with every feature standardised; targets are shared, not copied}
     * @param d samples with as many features as the fitted data
     * @throws IllegalArgumentException if the feature counts differ
     */
    public Dataset apply(Dataset d) {
        if (d.features() != mean.length) {
            throw new IllegalArgumentException("data has " + d.features() + " features, the standardiser "
                + mean.length);
        }
        double[] x = new double[d.x().length];
        int f = d.features();
        for (int i = 0; i < d.samples(); i++) {
            for (int j = 0; j < f; j++) {
                x[i * f + j] = (d.x(i, j) - mean[j]) / scale[j];
            }
        }
        return new Dataset(x, d.y(), d.samples(), f);
    }
}
