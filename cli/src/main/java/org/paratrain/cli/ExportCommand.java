package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.RunWriter;
import org.paratrain.export.OnnxExport;
import org.paratrain.io.AtomicFiles;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.ModelNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain export}: a trained model.json in a format other tools read. */
@Command(name = "export", mixinStandardHelpOptions = true,
    description = {"Export a trained model (RUN/model.json) for other tools.",
        "--format onnx writes an ONNX model (opset 13) that ONNX Runtime and other ONNX tools run: input features [N, F],",
        "raw rows (IDX pixel bytes 0..255; the feature scaling of training is inside the graph); outputs prediction [N, 1] for a",
        "regressor, label [N] (int64 class index) and probabilities [N, K] for a classifier; feature and class names in its metadata."})
final class ExportCommand implements Runnable {
    /** The formats export writes: one value a format, named as on the command line. */
    enum Format {
        /** An ONNX model, through {@link OnnxExport}. */
        ONNX;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Format parse(String s) {
            return Arrays.stream(values()).filter(f -> f.label().equals(s)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("--format " + s + " is not a format export writes; expected "
                    + String.join(" or ", Arrays.stream(values()).map(Format::label).toList())));
        }
    }

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--model-file", required = true, description = "model.json written by train --out.")
    Path modelFile;

    @Option(names = "--format", required = true, description = "What to write: onnx.")
    String format;

    @Option(names = "--out", required = true, description = "The file to write (e.g. RUN/model.onnx); written whole "
        + "or not at all.")
    Path out;

    @Option(names = "--precision", description = "The graph's numbers: float64 (doubles) or float32 (floats). "
        + "Default: as trained (float32 for a network trained with --precision float32, else float64).")
    String precision;

    @Override
    public void run() {
        Format f = Format.parse(format);
        Precision asked = precision == null ? null : ModelNames.precision(precision);
        InputFiles.require(modelFile);
        OutputPaths.file("--out", out);
        if (OutputPaths.stdout(out)) {
            throw new IllegalArgumentException("--out - would be standard output, which is for text; give a file "
                + "name for the model");
        }
        OutputPaths.notAnInput("--out", out, modelFile);
        ModelFile m = ModelFile.read(modelFile);
        byte[] bytes = switch (f) {
            case ONNX -> onnx(m, asked);
        };
        AtomicFiles.writeBytes(out, o -> o.write(bytes));
        var w = spec.commandLine().getOut();
        if (m.dataFormat() == null) {
            spec.commandLine().getErr().println("paratrain: note: " + modelFile + " does not say what data the model "
                + "was trained on (it was written before model files kept it): the graph takes the features as the "
                + "model saw them, so IDX images as pixels in [0, 1]");
        }
        w.printf(Locale.ROOT, "wrote %s (%s, %s): ONNX opset %d, input features [N, %d] %s, %s%n", out,
            m.spec().kind(), Formats.count(bytes.length, "byte"), OnnxExport.OPSET, m.features(),
            (asked == null ? m.spec().precision() : asked).name().toLowerCase(Locale.ROOT), m.spec().classifier()
                ? "outputs label [N] and probabilities [N, " + m.classes() + "]" : "output prediction [N, 1]");
    }

    /** The ONNX model, with the model file's provenance (who trained it, when) in its metadata. */
    private byte[] onnx(ModelFile m, Precision asked) {
        OnnxExport e = OnnxExport.of(m);
        if (asked != null) {
            e.precision(asked);
        }
        JsonNode provenance = com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        try {
            provenance = RunWriter.json().readTree(modelFile.toFile()).path("provenance");
        } catch (java.io.IOException ex) {
            // ModelFile.read has just read it: nothing to add if it changed since.
        }
        if (provenance.path("paratrain_version").isTextual()) {
            e.metadata("trained_with", "paratrain " + provenance.path("paratrain_version").asText());
        }
        if (provenance.path("start_time").isTextual()) {
            e.metadata("trained_at", provenance.path("start_time").asText());
        }
        return e.bytes();
    }
}
