package org.paratrain.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
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
            throw new org.paratrain.data.DataFormatException(file + ": " + data.features() + " features a sample, but "
                + "the model was trained on " + m.features());
        }
        return data;
    }

    static String format(Map<String, Object> metrics) {
        StringBuilder sb = new StringBuilder();
        metrics.forEach((k, v) -> {
            if (v instanceof Double d) {
                sb.append(sb.isEmpty() ? "" : ", ").append(k).append(' ').append(String.format(Locale.ROOT, "%.6g", d));
            }
        });
        return sb.toString();
    }

    /** Metrics of a model on labelled data. */
    @Command(name = "evaluate", mixinStandardHelpOptions = true,
        description = "Evaluate a trained model (RUN/model.json) on labelled data: MSE, RMSE and R2 for regression; "
            + "accuracy, log-loss and the confusion matrix for classifiers.")
    static final class EvaluateCommand implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--model-file", required = true, description = "model.json written by train --out.")
        Path modelFile;

        @Option(names = {"--x", "--data"}, required = true, description = "Features (and labels for csv, libsvm).")
        Path x;

        @Option(names = {"--y", "--labels"}, description = "Labels or targets for --format paper and idx.")
        Path y;

        @picocli.CommandLine.Mixin
        DataFormatOptions dataFormat;

        @Override
        public void run() {
            OptionChecks.formats(spec.commandLine().getParseResult(), dataFormat.format, false);
            InputFiles.require(modelFile, x, y);
            ModelFile m = ModelFile.read(modelFile);
            Dataset raw = OptionChecks.labels(m.model(), m.classes(), dataFormat.read(x, y, "--labels"),
                y == null ? x : y);
            Dataset data = m.prepare(sameFeatures(m, raw, x));
            Map<String, Object> metrics = Metrics.evaluate(m.newModel(), m.params(), data);
            var out = spec.commandLine().getOut();
            out.println(m.model() + " on " + data.samples() + " samples: " + format(metrics));
            if (metrics.get("confusion_matrix") instanceof long[][] cm) {
                out.println("confusion matrix (rows: true class, columns: predicted):");
                for (long[] row : cm) {
                    StringBuilder sb = new StringBuilder(" ");
                    for (long c : row) {
                        sb.append(String.format(Locale.ROOT, " %6d", c));
                    }
                    out.println(sb);
                }
            }
        }
    }

    /** One prediction a line for unlabelled data. */
    @Command(name = "predict", mixinStandardHelpOptions = true,
        description = "Predict with a trained model (RUN/model.json): one value (regression) or class a line.")
    static final class PredictCommand implements Runnable {
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--model-file", required = true, description = "model.json written by train --out.")
        Path modelFile;

        @Option(names = {"--x", "--data"}, required = true, description = "Features (paper format by default).")
        Path x;

        @Option(names = {"--y", "--labels"}, description = "With --format idx: the labels file that goes with the "
            + "images (its labels are not used).")
        Path y;

        @picocli.CommandLine.Mixin
        DataFormatOptions dataFormat;

        @Option(names = "--out", required = true, description = "File for the predictions.")
        Path out;

        @Override
        public void run() {
            picocli.CommandLine.ParseResult given = spec.commandLine().getParseResult();
            OptionChecks.formats(given, dataFormat.format, false);
            if (dataFormat.format.equals("paper") && given.hasMatchedOption("--labels")) {
                throw new IllegalArgumentException("--labels has no effect with predict --format paper: predictions "
                    + "need only the features");
            }
            InputFiles.require(modelFile, x, y);
            OutputPaths.file("--out", out);
            ModelFile m = ModelFile.read(modelFile);
            Dataset data = m.prepare(sameFeatures(m, dataFormat.readFeatures(x, y), x));
            Model model = m.newModel();
            AtomicFiles.writeText(out, w -> {
                for (int i = 0; i < data.samples(); i++) {
                    if (model instanceof Classifier c && c.classifies()) {
                        w.write(c.predict(data, i, m.params()) + "\n");
                    } else {
                        w.write(model.output(data, i, m.params()) + "\n");
                    }
                }
            });
            spec.commandLine().getOut().println("wrote " + data.samples() + " predictions to " + out);
        }
    }
}
