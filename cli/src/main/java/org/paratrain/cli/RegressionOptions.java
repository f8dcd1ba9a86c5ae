package org.paratrain.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import picocli.CommandLine.Option;

/** make_regression's arguments, shared by {@code generate regression} and {@code scale}. */
final class RegressionOptions {
    @Option(names = "--samples", required = true, description = "Number of samples (n_samples).")
    int samples;

    @Option(names = "--features", required = true, description = "Number of features (n_features).")
    int features;

    @Option(names = "--informative", defaultValue = "10",
        description = "Features with a non-zero coefficient (n_informative, default ${DEFAULT-VALUE}).")
    int informative;

    @Option(names = "--noise", defaultValue = "0.0",
        description = "Standard deviation of Gaussian noise on y (default ${DEFAULT-VALUE}).")
    double noise;

    @Option(names = "--bias", defaultValue = "0.0", description = "Added to every y (default ${DEFAULT-VALUE}).")
    double bias;

    @Option(names = "--random-state", defaultValue = "42",
        description = "Seed of numpy's RandomState, 0..4294967295 (default ${DEFAULT-VALUE}).")
    long randomState;

    @Option(names = "--no-shuffle", description = "Do not shuffle samples and features.")
    boolean noShuffle;

    /** Generates the data set, after checking every argument. */
    MakeRegression.Result generate() {
        MakeRegression spec = new MakeRegression(samples, features, informative, bias, noise, !noShuffle);
        if (randomState < 0 || randomState > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("--random-state must be in [0, 4294967295], got " + randomState);
        }
        MakeRegression.Result r = spec.generate(new NumpyRandomState(randomState));
        finite(r.data().x(), "features");
        finite(r.data().y(), "targets");
        return r;
    }

    /** Data that overflowed would be written as Infinity, which no reader (paratrain's included) takes. */
    private void finite(double[] v, String what) {
        for (double d : v) {
            if (!Double.isFinite(d)) {
                throw new IllegalArgumentException("--bias " + bias + " and --noise " + noise + " make " + what
                    + " beyond the largest double (" + Double.MAX_VALUE + "); give smaller values");
            }
        }
    }

    /** The arguments, under scikit-learn's names, for run records. */
    void describe(ObjectNode info) {
        info.put("generator", "make_regression");
        info.put("n_samples", samples);
        info.put("n_features", features);
        info.put("n_informative", informative);
        info.put("noise", noise);
        info.put("bias", bias);
        info.put("shuffle", !noShuffle);
        info.put("random_state", randomState);
    }
}
