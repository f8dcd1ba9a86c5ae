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
        Running r = new Running(d.features());
        r.add(d);
        return r.result();
    }

    /**
     * Welford's pass over samples that arrive in parts, in sample order: the parts' results are
     * the bits of {@link #fit} on all of them at once, so ranks that each hold a run of
     * consecutive samples can pass the state along (rank 0's part first) and end with the
     * standardiser of the whole data. The state crosses as one array ({@link #state}).
     */
    public static final class Running {
        private final double[] mean;
        private final double[] m2;
        private long seen;

        /**
         * A pass that has seen no samples.
         *
         * @param features features of a sample
         */
        public Running(int features) {
            mean = new double[features];
            m2 = new double[features];
        }

        /**
         * {@return a pass continued from the state another one gave}
         * @param state an array {@link #state} filled
         * @throws IllegalArgumentException if its length is not {@code 1 + 2 * features}
         */
        public static Running of(double[] state) {
            if (state.length % 2 != 1) {
                throw new IllegalArgumentException("a standardiser's state has 1 + 2 * features values, got "
                    + state.length);
            }
            Running r = new Running(state.length / 2);
            r.seen = (long) state[0];
            System.arraycopy(state, 1, r.mean, 0, r.mean.length);
            System.arraycopy(state, 1 + r.mean.length, r.m2, 0, r.m2.length);
            return r;
        }

        /**
         * Takes the next samples in order.
         *
         * @param d samples that follow those seen so far
         */
        public void add(Dataset d) {
            int f = mean.length;
            if (d.features() != f) {
                throw new IllegalArgumentException("data has " + d.features() + " features, the standardiser " + f);
            }
            for (int i = 0; i < d.samples(); i++) {
                long n = ++seen;
                for (int j = 0; j < f; j++) {
                    double delta = d.x(i, j) - mean[j];          // Welford: stable for large offsets
                    mean[j] += delta / n;
                    m2[j] += delta * (d.x(i, j) - mean[j]);
                }
            }
        }

        /** {@return the state to pass on: the count, the means and the sums of squared deviations} */
        public double[] state() {
            double[] s = new double[1 + 2 * mean.length];
            s[0] = seen;
            System.arraycopy(mean, 0, s, 1, mean.length);
            System.arraycopy(m2, 0, s, 1 + mean.length, m2.length);
            return s;
        }

        /** {@return the standardiser of every sample seen: the mean and the population standard deviation} */
        public Standardizer result() {
            double[] scale = new double[mean.length];
            for (int j = 0; j < mean.length; j++) {
                double sd = Math.sqrt(m2[j] / seen);
                scale[j] = sd > 0 ? sd : 1.0;
            }
            return new Standardizer(mean.clone(), scale);
        }
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
        return new Dataset(x, d.y(), d.samples(), f, d.weights());
    }
}
