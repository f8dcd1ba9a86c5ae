package org.paratrain.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
import org.paratrain.cli.experiment.TrainingData;
import org.paratrain.io.AtomicFiles;
import org.paratrain.model.Classifier;
import org.paratrain.model.Metrics;
import org.paratrain.model.Model;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain evaluate} and {@code paratrain predict}: use a trained model.json. */
final class Evaluate {
    private Evaluate() { }

    /** {@code data}, after checking it has the features the model was trained on; the error names the file. */
    static Dataset sameFeatures(ModelFile m, Dataset data, Path file) {
        if (data.features() != m.features()) {
            throw new DataFormatException(file + ": " + data.features() + " features a sample, but the model was "
                + "trained on " + m.features());
        }
        return data;
    }

    static String format(Map<String, Object> metrics) {
        return MetricsReport.line(metrics);
    }

    /** Metrics of a model on labelled data. */
    @Command(name = "evaluate", mixinStandardHelpOptions = true,
        description = {"Evaluate a trained model (RUN/model.json) on labelled data.",
            "MSE, RMSE and R2 for regression; for classifiers accuracy, log-loss, precision, recall and F1 a class and their macro means,",
            "ROC-AUC (two classes) and the confusion matrix, with the classes named as in the training labels."})
    static final class EvaluateCommand implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--model-file", required = true, description = "model.json written by train --out.")
        Path modelFile;

        @Option(names = {"--x", "--data"}, required = true, description = "Features (and labels for csv, libsvm, npz).")
        Path x;

        @Option(names = {"--y", "--labels"}, description = "Labels or targets for --format paper, idx and npy.")
        Path y;

        @picocli.CommandLine.Mixin
        DataFormatOptions dataFormat;

        @Option(names = "--out", description = "Also write the metrics to this JSON file; - writes the JSON to "
            + "standard output (and the report to standard error).")
        Path out;

        @Override
        public void run() {
            OptionChecks.formats(spec.commandLine().getParseResult(), dataFormat, false);
            InputFiles.require(modelFile, x, y);
            if (out != null) {
                OutputPaths.file("--out", out);
                OutputPaths.notAnInput("--out", out, modelFile, x, y);
            }
            ModelFile m = ModelFile.read(modelFile);
            var err = spec.commandLine().getErr();
            Dataset raw = TrainingData.labelsSuit(m.spec(), dataFormat.files(m, modelFile, x, err).readWithClasses(x, y,
                m.classNames(), n -> err.println("paratrain: note: " + n)), y == null ? x : y);
            Dataset data = m.prepare(sameFeatures(m, raw, x));
            Map<String, Object> metrics = Metrics.evaluate(m.newModel(), m.params(), data,
                m.classNames() == null ? null : m.classNames().names());
            boolean json = OutputPaths.stdout(out);
            var print = json ? spec.commandLine().getErr() : spec.commandLine().getOut();
            print.println(m.spec().kind() + " on " + Formats.count(data.samples(), "sample") + " of " + x + ":");
            MetricsReport.print(print, metrics);
            if (json) {
                print.flush();
                MetricsReport.print(spec.commandLine().getOut(), modelFile, x, m.spec().kind(), data.samples(),
                    metrics);
            } else if (out != null) {
                MetricsReport.write(out, modelFile, x, m.spec().kind(), data.samples(), metrics);
                print.println("wrote " + out);
            }
        }
    }

    /** One prediction a line for unlabelled data. */
    @Command(name = "predict", mixinStandardHelpOptions = true,
        description = {"Predict with a trained model (RUN/model.json).",
            "One value (regression) or class a line; classes by name when the training labels had names. With --proba, a CSV of the probability of",
            "each class, one column a class, headed by the class names."})
    static final class PredictCommand implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--model-file", required = true, description = "model.json written by train --out.")
        Path modelFile;

        @Option(names = {"--x", "--data"}, required = true, description = "Features (paper format by default; a CSV "
            + "may hold the label column, which is ignored).")
        Path x;

        @Option(names = {"--y", "--labels"}, description = "With --format idx: the labels file that goes with the "
            + "images (its labels are not used).")
        Path y;

        @picocli.CommandLine.Mixin
        DataFormatOptions dataFormat;

        @Option(names = "--proba", description = "Write the probability of every class (a CSV with a header naming "
            + "the classes) instead of the predicted class; classifiers only.")
        boolean proba;

        @Option(names = "--out", defaultValue = "-", description = "File for the predictions; - (the default) is "
            + "standard output.")
        Path out;

        @Override
        public void run() {
            picocli.CommandLine.ParseResult given = spec.commandLine().getParseResult();
            OptionChecks.formats(given, dataFormat, false);
            if (dataFormat.format() == org.paratrain.train.spec.DataSpec.Format.PAPER
                && given.hasMatchedOption("--labels")) {
                throw new IllegalArgumentException("--labels has no effect with predict --format paper: predictions "
                    + "need only the features");
            }
            InputFiles.require(modelFile, x, y);
            OutputPaths.file("--out", out);
            OutputPaths.notAnInput("--out", out, modelFile, x, y);
            ModelFile m = ModelFile.read(modelFile);
            Model model = m.newModel();
            boolean classifier = model instanceof Classifier c && c.classifies();
            if (proba && !classifier) {
                throw new IllegalArgumentException("--proba needs a classifier; " + modelFile + " holds a "
                    + m.spec().kind() + " model, which predicts values");
            }
            var err = spec.commandLine().getErr();
            Dataset data = m.prepare(sameFeatures(m, dataFormat.files(m, modelFile, x, err).readFeatures(x, y, m.features(),
                m.classNames(), n -> err.println("paratrain: note: " + n)), x));
            AtomicFiles.Content rows = w -> {
                if (proba) {
                    Predictions.probabilities(w, (Classifier) model, m, data);
                } else {
                    Predictions.values(w, model, m, data);
                }
            };
            if (OutputPaths.stdout(out)) {
                try {
                    var w = spec.commandLine().getOut();
                    rows.write(w);
                    w.flush();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("cannot write the predictions to standard output: "
                        + e.getMessage(), e);
                }
                return;
            }
            AtomicFiles.writeText(out, rows);
            spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s to %s%n", Formats.count(data.samples(),
                proba ? "probability row" : "prediction"), out);
        }
    }
}
