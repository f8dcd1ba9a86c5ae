package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.PaperFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain generate}: synthetic data sets equal to scikit-learn's. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate a synthetic data set.",
    subcommands = {GenerateCommand.Regression.class, GenerateClassification.class})
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

        @picocli.CommandLine.Mixin
        RegressionOptions args;

        @Option(names = "--out", required = true, description = "Directory to write X.in, y.in and coef.txt into.")
        Path out;

        @Override
        public void run() {
            OutputPaths.directoryFor("--out", out, java.util.List.of("X.in", "y.in", "coef.txt"));
            MakeRegression.Result r = args.generate();
            try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(out)) {
                PaperFormat.write(r.data(), staged.dir());
                PaperFormat.writeColumn(r.coef(), staged.dir().resolve("coef.txt"));
                staged.publish(java.util.List.of("X.in", "y.in", "coef.txt"));
            }
            out().println("wrote " + args.samples + " samples x " + args.features + " features to "
                + out.resolve("X.in") + ", " + out.resolve("y.in") + " and " + out.resolve("coef.txt"));
        }
    }
}
