package org.paratrain.data;

/**
 * scikit-learn's {@code make_regression} (well-conditioned inputs, one target), draw for
 * draw: the same arguments and {@code random_state} give the same X and coefficients bit
 * for bit, and the same y bit for bit with one feature.
 *
 * <p>The order of draws is scikit-learn's: X by rows from the standard normal, then
 * {@code 100 * uniform} for the informative coefficients, then the noise, then the sample
 * shuffle, then the feature shuffle. With more than one feature numpy computes
 * {@code X @ coef} with BLAS, whose summation order is its own, so y may differ from
 * scikit-learn's in the last bits (within 1e-12 relative).
 *
 * @param samples      number of samples ({@code n_samples}), at least 1
 * @param features     number of features ({@code n_features}), at least 1
 * @param informative  number of features with a non-zero coefficient ({@code n_informative});
 *                     capped at {@code features} as scikit-learn does
 * @param bias         added to every target
 * @param noise        standard deviation of the Gaussian noise added to y, at least 0
 * @param shuffle      whether samples and features are shuffled
 */
public record MakeRegression(int samples, int features, int informative, double bias,
                             double noise, boolean shuffle) {

    /** Validates the arguments with scikit-learn's defaults in mind. */
    public MakeRegression {
        if (samples < 1) {
            throw new IllegalArgumentException("--samples must be at least 1, got " + samples);
        }
        if (features < 1) {
            throw new IllegalArgumentException("--features must be at least 1, got " + features);
        }
        if (informative < 0) {
            throw new IllegalArgumentException("--informative must be at least 0, got " + informative);
        }
        if (!(noise >= 0) || Double.isInfinite(noise)) {
            throw new IllegalArgumentException("--noise must be a finite number >= 0, got " + noise);
        }
        if (!Double.isFinite(bias)) {
            throw new IllegalArgumentException("--bias must be a finite number, got " + bias);
        }
        if ((long) samples * features > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--samples x --features must stay below 2^31, got "
                + ((long) samples * features));
        }
    }

    /**
     * {@return {@code make_regression(n_samples=samples, n_features=features)} with scikit-learn's
     * defaults for the rest: 10 informative features (capped at {@code features}), no bias, no
     * noise, shuffled} The other arguments read as scikit-learn's keywords do:
     * {@code MakeRegression.of(500, 1).withNoise(10).generate(42)}.
     * @param samples  number of samples ({@code n_samples}), at least 1
     * @param features number of features ({@code n_features}), at least 1
     */
    public static MakeRegression of(int samples, int features) {
        return new MakeRegression(samples, features, 10, 0.0, 0.0, true);
    }

    /**
     * {@return these arguments with {@code n_informative=informative}}
     * @param informative features with a non-zero coefficient, at least 0 (capped at the features)
     */
    public MakeRegression withInformative(int informative) {
        return new MakeRegression(samples, features, informative, bias, noise, shuffle);
    }

    /**
     * {@return these arguments with {@code bias=bias}}
     * @param bias added to every target, finite
     */
    public MakeRegression withBias(double bias) {
        return new MakeRegression(samples, features, informative, bias, noise, shuffle);
    }

    /**
     * {@return these arguments with {@code noise=noise}}
     * @param noise standard deviation of the Gaussian noise added to y, finite and at least 0
     */
    public MakeRegression withNoise(double noise) {
        return new MakeRegression(samples, features, informative, bias, noise, shuffle);
    }

    /**
     * {@return these arguments with {@code shuffle=shuffle}}
     * @param shuffle whether samples and features are shuffled
     */
    public MakeRegression withShuffle(boolean shuffle) {
        return new MakeRegression(samples, features, informative, bias, noise, shuffle);
    }

    /**
     * Generates the data set as {@code make_regression(..., random_state=randomState)} does.
     *
     * @param randomState the seed scikit-learn's {@code random_state} takes (0 to 2^32 - 1)
     * @return the samples and the true coefficients
     * @throws IllegalArgumentException if the seed is outside [0, 2^32)
     * @throws NotEnoughMemoryException if the heap cannot hold them
     */
    public Result generate(long randomState) {
        return generate(new NumpyRandomState(randomState));
    }

    /**
     * The generated samples and the true coefficients.
     *
     * @param data the samples and their targets
     * @param coef the coefficient of each feature (zero for the uninformative ones), as coef.txt holds them
     */
    public record Result(Dataset data, double[] coef) { }

    /**
     * Generates the data set, drawing from {@code rng} in scikit-learn's order.
     *
     * @param rng a fresh generator seeded like {@code RandomState(random_state)}, for scikit-learn's bits
     * @return the samples and the true coefficients
     * @throws NotEnoughMemoryException if the heap cannot hold them
     */
    public Result generate(NumpyRandomState rng) {
        int n = samples;
        int d = features;
        // X and y, and a second X while shuffling.
        HeapBudget.require(8L * ((long) n * d * (shuffle ? 2 : 1) + n + d), n + " samples x " + d + " features");
        double[] x = new double[n * d];
        for (int i = 0; i < x.length; i++) {
            x[i] = rng.gauss();
        }
        double[] coef = new double[d];
        for (int j = 0; j < Math.min(d, informative); j++) {
            coef[j] = 100 * rng.uniform(0.0, 1.0);
        }
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double dot = 0.0;
            for (int j = 0; j < d; j++) {
                dot += x[i * d + j] * coef[j];
            }
            y[i] = dot + bias;
        }
        if (noise > 0.0) {
            for (int i = 0; i < n; i++) {
                y[i] += rng.normal(0.0, noise);
            }
        }
        if (!shuffle) {
            return new Result(new Dataset(x, y, n, d), coef);
        }
        return shuffled(rng, x, y, coef);
    }

    private Result shuffled(NumpyRandomState rng, double[] x, double[] y, double[] coef) {
        int n = samples;
        int d = features;
        int[] rows = identity(n);
        rng.shuffle(rows);
        int[] cols = identity(d);
        rng.shuffle(cols);
        double[] xs = new double[n * d];
        double[] ys = new double[n];
        double[] cs = new double[d];
        for (int i = 0; i < n; i++) {
            ys[i] = y[rows[i]];
            for (int j = 0; j < d; j++) {
                xs[i * d + j] = x[rows[i] * d + cols[j]];
            }
        }
        for (int j = 0; j < d; j++) {
            cs[j] = coef[cols[j]];
        }
        return new Result(new Dataset(xs, ys, n, d), cs);
    }

    private static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }
}
