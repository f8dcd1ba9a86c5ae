package org.paratrain.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import onnx.Onnx.ModelProto;
import onnx.Onnx.OperatorSetIdProto;
import onnx.Onnx.StringStringEntryProto;
import org.paratrain.data.Columns;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.AtomicFiles;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.ModelSpec;

/**
 * A trained model as an ONNX model (opset {@value #OPSET}, IR version {@value #IR_VERSION}),
 * which ONNX Runtime and the other ONNX tools run without paratrain.
 *
 * <p>The graph takes raw rows and does the input scaling itself, as {@code train} did: its
 * input {@code features} is {@code [N, F]} with a dynamic batch dimension N, the features in
 * the order of the model file's {@code feature_names}; IDX images as their pixel bytes 0..255
 * (the graph divides by 255), and the standardizer's {@code (x - mean) / scale} where the
 * model was trained on standardised features. Its outputs:
 * <ul>
 *   <li>regressors ({@code linear}, {@code mlp-regression}): {@code prediction}, {@code [N, 1]};
 *   <li>classifiers: {@code label}, int64 {@code [N]}, the class index (the names are in the
 *       metadata's {@code class_names}), and {@code probabilities}, {@code [N, K]}; logistic
 *       regression gives both classes' probabilities, {@code [N, 2]}.
 * </ul>
 *
 * <p>Precision: the graph's real numbers are doubles for a model trained in float64 and floats
 * for a network trained in float32 (whose parameters, kept in doubles, are rounded to floats
 * here), unless {@link #precision} asks for the other. A double CNN computes its convolutions
 * from patches with {@code MatMul}, since ONNX Runtime has no double {@code Conv} (see
 * {@code ConvGraph}).
 *
 * <p>{@code metadata_props}: {@code paratrain_model} (the kind), {@code feature_names} and
 * {@code class_names} (JSON arrays; classes by index where the labels had no names),
 * {@code trained_on_format} (the training data's format, where the model file says),
 * {@code input_scaling}, {@code precision}, the network's {@code layers}, {@code activation}
 * and {@code image_shape} where it has them, {@code exported_by} (paratrain's version), and
 * whatever {@link #metadata} adds (the command line adds the model file's provenance).
 *
 * <p>Use: {@code OnnxExport.write(model, path)}, or
 * {@code OnnxExport.of(model).precision(Precision.FLOAT32).metadata(key, value).write(path)}.
 */
public final class OnnxExport {
    /** The operator set the graphs use. */
    public static final int OPSET = 13;
    /** The IR version written: 7, the one of opset 13. */
    public static final int IR_VERSION = 7;

    private final ModelFile model;
    private Precision precision;
    private final Map<String, String> extra = new LinkedHashMap<>();

    private OnnxExport(ModelFile model) {
        this.model = Objects.requireNonNull(model, "model");
        this.precision = model.spec().precision();
    }

    /**
     * {@return an export of {@code model}, in the precision it was trained in}
     * @param model a model file, as {@link ModelFile#read} gives it
     */
    public static OnnxExport of(ModelFile model) {
        return new OnnxExport(model);
    }

    /**
     * {@return the ONNX model's bytes, in the precision {@code model} was trained in}
     * @param model a model file
     */
    public static byte[] bytes(ModelFile model) {
        return of(model).bytes();
    }

    /**
     * Writes the ONNX model, in the precision {@code model} was trained in, atomically.
     *
     * @param model a model file
     * @param out   the file to write or replace
     * @throws java.io.UncheckedIOException naming the file, if it cannot be written
     */
    public static void write(ModelFile model, Path out) {
        of(model).write(out);
    }

    /**
     * {@return this export, with the graph's real numbers in {@code p}}
     * @param p {@code FLOAT64} for doubles, {@code FLOAT32} for floats
     */
    public OnnxExport precision(Precision p) {
        this.precision = Objects.requireNonNull(p, "precision");
        return this;
    }

    /**
     * {@return this export, with one more entry in the model's {@code metadata_props}}
     * @param key   the entry's key; one already set is replaced
     * @param value its value
     */
    public OnnxExport metadata(String key, String value) {
        extra.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** {@return the ONNX model, serialised} */
    public byte[] bytes() {
        return proto().toByteArray();
    }

    /**
     * Writes the ONNX model atomically: a reader never sees half a file, and a failure leaves
     * {@code out} as it was.
     *
     * @param out the file to write or replace
     * @throws java.io.UncheckedIOException naming the file, if it cannot be written
     */
    public void write(Path out) {
        byte[] b = bytes();
        AtomicFiles.writeBytes(out, o -> o.write(b));
    }

    private ModelProto proto() {
        String kind = model.spec().kind();
        OnnxGraph g = new OnnxGraph("paratrain " + kind, precision == Precision.FLOAT64);
        String x = Layers.scaled(g, g.input(Layers.INPUT, OnnxGraph.BATCH, model.features()), model);
        switch (model.spec()) {
            case ModelSpec.Linear l -> LinearGraphs.linear(g, x, model);
            case ModelSpec.Logistic l -> LinearGraphs.logistic(g, x, model);
            case ModelSpec.Softmax s -> LinearGraphs.softmax(g, x, model);
            case ModelSpec.Mlp m -> MlpGraph.mlp(g, x, model, m);
            case ModelSpec.Cnn c -> ConvGraph.cnn(g, x, model, c);
        }
        boolean classifier = model.spec().classifier();
        g.describe("paratrain " + kind + ": input " + Layers.INPUT + " [N, " + model.features() + "] raw rows "
            + "(scaling inside: " + Layers.scaling(model) + "); " + (classifier ? "outputs label [N] (int64 class "
            + "index, names in metadata class_names) and probabilities [N, " + model.classes() + "]"
            : "output prediction [N, 1]"));
        ModelProto.Builder p = ModelProto.newBuilder().setIrVersion(IR_VERSION).setProducerName("paratrain")
            .setProducerVersion(Provenance.codeVersion())
            .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(OPSET))
            .setDocString("A paratrain " + kind + " model exported from model.json.").setGraph(g.build());
        metadata().forEach((k, v) -> p.addMetadataProps(StringStringEntryProto.newBuilder().setKey(k).setValue(v)));
        return p.build();
    }

    private Map<String, String> metadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("paratrain_model", model.spec().kind());
        m.put("feature_names", json((model.columns() == null ? Columns.generated(model.features()) : model.columns())
            .features()));
        if (model.spec().classifier()) {
            List<String> names = new ArrayList<>();
            for (int k = 0; k < model.classes(); k++) {
                names.add(model.className(k));
            }
            m.put("class_names", json(names));
        }
        if (model.dataFormat() != null) {
            m.put("trained_on_format", model.dataFormat().label());
        }
        m.put("input_scaling", Layers.scaling(model));
        m.put("precision", precision == Precision.FLOAT64 ? "float64" : "float32");
        switch (model.spec()) {
            case ModelSpec.Mlp mlp -> {
                m.put("layers", mlp.layers());
                m.put("activation", mlp.activation().name().toLowerCase(java.util.Locale.ROOT));
            }
            case ModelSpec.Cnn cnn -> {
                m.put("layers", cnn.label());
                m.put("image_shape", cnn.shape(model.features()).toString());
            }
            default -> { }
        }
        m.put("exported_by", "paratrain " + Provenance.codeVersion());
        m.putAll(extra);
        return m;
    }

    private static String json(List<String> values) {
        try {
            return RunWriter.json().writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a list of strings always writes as JSON", e);
        }
    }
}
