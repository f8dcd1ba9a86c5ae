package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.data.PaperFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain generate}: synthetic data sets equal to scikit-learn's. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate a synthetic data set.",
    subcommands = {GenerateCommand.Regression.class})
final class GenerateCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "say what to generate, e.g. paratrain generate regression --samples 500 --features 1 --out data");
    }

    /** {@code generate regression}: scikit-learn's make_regression, bit for bit. */
    @Command(name = "regression", mixinStandardHelpOptions = true,
        description = {"Write X.in, y.in and coef.txt as scikit-learn's make_regression makes them",
            "(same arguments and random_state give the same numbers)."})
    static final class Regression implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        private java.io.PrintWriter out() {
            return spec.commandLine().getOut();
        }

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

        @Option(names = "--random-state", defaultValue = "0",
            description = "Seed of numpy's RandomState, 0..4294967295 (default ${DEFAULT-VALUE}).")
        long randomState;

        @Option(names = "--no-shuffle", description = "Do not shuffle samples and features.")
        boolean noShuffle;

        @Option(names = "--out", required = true, description = "Directory to write X.in, y.in and coef.txt into.")
        Path out;

        @Override
        public void run() {
            MakeRegression spec = new MakeRegression(samples, features, informative, bias, noise, !noShuffle);
            if (randomState < 0 || randomState > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("--random-state must be in [0, 4294967295], got " + randomState);
            }
            MakeRegression.Result r = spec.generate(new NumpyRandomState(randomState));
            PaperFormat.write(r.data(), out);
            PaperFormat.writeColumn(r.coef(), out.resolve("coef.txt"));
            out().println("wrote " + samples + " samples x " + features + " features to "
                + out.resolve("X.in") + ", " + out.resolve("y.in") + " and " + out.resolve("coef.txt"));
        }
    }
}
