package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.RunWriter;
import org.paratrain.export.OnnxExport;
import org.paratrain.export.SafetensorsExport;
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
        "regressor, label [N] (int64 class index) and probabilities [N, K] for a classifier; feature and class names in its metadata.",
        "--format safetensors writes the parameters as the state_dict of the equivalent PyTorch torch.nn.Sequential (F64 or F32",
        "tensors 0.weight, 0.bias, ...), with the input scaling, the names and the Sequential as Python code in its metadata;",
        "train --init-from starts from it."})
final class ExportCommand implements Runnable {
    /** The formats export writes: one value a format, named as on the command line. */
    enum Format {
        /** An ONNX model, through {@link OnnxExport}. */
        ONNX,
        /** A PyTorch state_dict as safetensors, through {@link SafetensorsExport}. */
        SAFETENSORS;

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

    @Option(names = "--format", required = true, description = "What to write: onnx or safetensors.")
    String format;

    @Option(names = "--out", required = true, description = "The file to write (e.g. RUN/model.onnx, RUN/model.safetensors); written whole "
        + "or not at all.")
    Path out;

    @Option(names = "--precision", description = "The numbers: float64 (doubles, F64) or float32 (floats, F32). "
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
        Precision p = asked == null ? m.spec().precision() : asked;
        Export e = f == Format.ONNX ? onnx(m, p, provenance()) : safetensors(m, p, provenance());
        byte[] bytes = e.bytes();
        AtomicFiles.writeBytes(out, o -> o.write(bytes));
        var w = spec.commandLine().getOut();
        if (m.dataFormat() == null) {
            spec.commandLine().getErr().println("paratrain: note: " + modelFile + " does not say what data the model "
                + "was trained on (it was written before model files kept it): the export takes the features as the "
                + "model saw them, so IDX images as pixels in [0, 1]");
        }
        w.printf(Locale.ROOT, "wrote %s (%s, %s): %s%n", out, m.spec().kind(), Formats.count(bytes.length, "byte"),
            e.what());
    }

    /** An export's bytes, and what they hold in words for the line {@code export} prints. */
    private record Export(byte[] bytes, String what) { }

    /** The ONNX model, with the model file's provenance (who trained it, when) in its metadata. */
    private static Export onnx(ModelFile m, Precision p, Map<String, String> provenance) {
        OnnxExport e = OnnxExport.of(m).precision(p);
        provenance.forEach(e::metadata);
        return new Export(e.bytes(), String.format(Locale.ROOT, "ONNX opset %d, input features [N, %d] %s, %s",
            OnnxExport.OPSET, m.features(), p.name().toLowerCase(Locale.ROOT), m.spec().classifier()
                ? "outputs label [N] and probabilities [N, " + m.classes() + "]" : "output prediction [N, 1]"));
    }

    /** The safetensors file, with the model file's provenance in its metadata. */
    private static Export safetensors(ModelFile m, Precision p, Map<String, String> provenance) {
        SafetensorsExport e = SafetensorsExport.of(m).precision(p);
        provenance.forEach(e::metadata);
        List<String> t = e.tensors();
        return new Export(e.bytes(), "safetensors, " + Formats.count(t.size(), "tensor") + " "
            + (p == Precision.FLOAT64 ? "F64" : "F32") + " (" + String.join(", ", t.size() <= 6 ? t : t.subList(0, 6))
            + (t.size() > 6 ? ", ..." : "") + "), the state_dict of a torch.nn.Sequential");
    }

    /** The model file's provenance (who trained it, when), for the export's metadata. */
    private Map<String, String> provenance() {
        Map<String, String> m = new LinkedHashMap<>();
        JsonNode provenance = com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        try {
            provenance = RunWriter.json().readTree(modelFile.toFile()).path("provenance");
        } catch (java.io.IOException ex) {
            // ModelFile.read has just read it: nothing to add if it changed since.
        }
        if (provenance.path("paratrain_version").isTextual()) {
            m.put("trained_with", "paratrain " + provenance.path("paratrain_version").asText());
        }
        if (provenance.path("start_time").isTextual()) {
            m.put("trained_at", provenance.path("start_time").asText());
        }
        return m;
    }
}
