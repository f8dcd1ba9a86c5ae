package org.paratrain.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.paratrain.data.Columns;
import org.paratrain.data.IdxFormat;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.AtomicFiles;
import org.paratrain.model.ConvNet;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;

/**
 * A trained model's parameters as a safetensors file: the {@code state_dict} of the equivalent
 * PyTorch {@code torch.nn.Sequential}, which {@code load_state_dict(..., strict=True)} takes
 * (the modules, tensor names and layouts are {@code TorchLayout}'s; {@code docs/export.md}
 * shows each kind's Sequential), and which {@code train --init-from} starts from.
 *
 * <p>The file: an 8-byte little-endian header length, the JSON header (the tensors in
 * state_dict order, their data contiguous from offset 0; padded with spaces to a multiple of
 * 8 bytes, so that the data starts aligned), then each tensor's values little-endian, row-major,
 * as {@code F64} or {@code F32}. Precision: as trained (float32 for a network trained in
 * float32, whose parameters, kept in doubles, are rounded to floats), unless {@link #precision}
 * asks for the other.
 *
 * <p>{@code __metadata__} (strings, JSON arrays as text): {@code format}
 * ({@value #FORMAT}) and {@code format_version}, {@code paratrain_model}, {@code features},
 * {@code classes}, {@code intercept}, {@code precision}, the network's {@code layers}, {@code activation} and
 * {@code image_shape}, {@code feature_names} and {@code class_names}, {@code trained_on_format},
 * the input scaling ({@code input_scaling} in words, {@code pixel_scale},
 * {@code standardizer_mean} and {@code standardizer_scale}), {@code torch_input},
 * {@code torch_output} and {@code torch_sequential} (the Sequential as Python code),
 * {@code exported_by}, and what {@link #metadata} adds (the command line adds
 * {@code trained_with} and {@code trained_at} from the model file's provenance).
 *
 * <p>Use: {@code SafetensorsExport.write(model, path)}, or
 * {@code SafetensorsExport.of(model).precision(Precision.FLOAT32).metadata(key, value).write(path)}.
 */
public final class SafetensorsExport {
    /** The {@code format} entry of the metadata: what wrote the file. */
    public static final String FORMAT = "paratrain-safetensors";
    /** The {@code format_version} entry of the metadata: the version of this layout. */
    public static final int VERSION = 1;

    private final ModelFile model;
    private final TorchLayout layout;
    private Precision precision;
    private final Map<String, String> extra = new LinkedHashMap<>();

    private SafetensorsExport(ModelFile model) {
        this.model = Objects.requireNonNull(model, "model");
        this.layout = TorchLayout.of(model.spec(), model.features(), model.classes());
        this.precision = model.spec().precision();
    }

    /**
     * {@return an export of {@code model}, in the precision it was trained in}
     * @param model a model file, as {@link ModelFile#read} gives it
     */
    public static SafetensorsExport of(ModelFile model) {
        return new SafetensorsExport(model);
    }

    /**
     * Writes the safetensors file, in the precision {@code model} was trained in, atomically.
     *
     * @param model a model file
     * @param out   the file to write or replace
     * @throws UncheckedIOException naming the file, if it cannot be written
     */
    public static void write(ModelFile model, Path out) {
        of(model).write(out);
    }

    /**
     * {@return this export, with the tensors in {@code p}}
     * @param p {@code FLOAT64} for {@code F64}, {@code FLOAT32} for {@code F32}
     */
    public SafetensorsExport precision(Precision p) {
        this.precision = Objects.requireNonNull(p, "precision");
        return this;
    }

    /**
     * {@return this export, with one more entry in {@code __metadata__}}
     * @param key   the entry's key; one already set is replaced
     * @param value its value
     */
    public SafetensorsExport metadata(String key, String value) {
        extra.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * {@return the tensors as {@code NAME [SHAPE]}, in the file's order: {@code 0.weight [16, 4]},
     * ...; the batchnorm modules' {@code num_batches_tracked} counters (int64 scalars) come last}
     */
    public List<String> tensors() {
        List<String> t = new java.util.ArrayList<>(layout.tensors().stream().map(e -> e.name() + " " + e.shapeText())
            .toList());
        layout.counters().forEach(c -> t.add(c + " []"));
        return t;
    }

    /** {@return the {@code torch.nn.Sequential} whose state_dict the file holds, as Python code} */
    public String sequential() {
        return layout.code(dtype());
    }

    /** {@return the whole file's bytes} */
    public byte[] bytes() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            writeTo(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);      // a byte array does not fail
        }
        return b.toByteArray();
    }

    /**
     * Writes the file atomically: a reader never sees half a file, and a failure leaves
     * {@code out} as it was.
     *
     * @param out the file to write or replace
     * @throws UncheckedIOException naming the file, if it cannot be written
     */
    public void write(Path out) {
        AtomicFiles.writeBytes(out, this::writeTo);
    }

    /** The header, then each tensor's values, streamed: a large model is not held twice in memory. */
    private void writeTo(OutputStream out) throws IOException {
        byte[] header = header();
        ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length);
        out.write(b.array(), 0, 8);
        out.write(header);
        b.clear();
        boolean doubles = precision == Precision.FLOAT64;
        for (TorchLayout.Entry e : layout.tensors()) {
            for (int i : e.index()) {
                if (b.remaining() < 8) {
                    out.write(b.array(), 0, b.position());
                    b.clear();
                }
                double v = model.params()[i];
                if (doubles) {
                    b.putDouble(v);
                } else {
                    b.putFloat((float) v);
                }
            }
        }
        for (int c = 0; c < layout.counters().size(); c++) {
            if (b.remaining() < 8) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            b.putLong(0L);          // num_batches_tracked: see TorchLayout.counters
        }
        out.write(b.array(), 0, b.position());
    }

    /** The JSON header, padded with spaces to a multiple of 8 bytes. */
    private byte[] header() {
        ObjectNode h = RunWriter.json().createObjectNode();
        ObjectNode meta = h.putObject("__metadata__");
        metadata().forEach(meta::put);
        int width = precision == Precision.FLOAT64 ? 8 : 4;
        long at = 0;
        for (TorchLayout.Entry e : layout.tensors()) {
            ObjectNode t = h.putObject(e.name());
            t.put("dtype", width == 8 ? "F64" : "F32");
            com.fasterxml.jackson.databind.node.ArrayNode shape = t.putArray("shape");
            for (long d : e.shape()) {
                shape.add(d);
            }
            long end = at + (long) e.index().length * width;
            t.putArray("data_offsets").add(at).add(end);
            at = end;
        }
        for (String c : layout.counters()) {
            ObjectNode t = h.putObject(c);
            t.put("dtype", "I64");
            t.putArray("shape");
            t.putArray("data_offsets").add(at).add(at + 8);
            at += 8;
        }
        byte[] json = compact(h).getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;
        byte[] out = new byte[padded];
        System.arraycopy(json, 0, out, 0, json.length);
        java.util.Arrays.fill(out, json.length, padded, (byte) ' ');
        return out;
    }

    private Map<String, String> metadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("format_version", Integer.toString(VERSION));
        m.put("paratrain_model", model.spec().kind());
        m.put("features", Integer.toString(model.features()));
        if (model.spec().classifier()) {
            m.put("classes", Integer.toString(model.classes()));
        }
        m.put("intercept", Boolean.toString(model.spec().intercept()));
        m.put("precision", precision.name().toLowerCase(Locale.ROOT));
        switch (model.spec()) {
            case ModelSpec.Mlp mlp -> {
                m.put("layers", mlp.layers());
                m.put("activation", mlp.activation().name().toLowerCase(Locale.ROOT));
            }
            case ModelSpec.Cnn cnn -> {
                m.put("layers", cnn.label());
                m.put("image_shape", cnn.shape(model.features()).toString());
            }
            default -> { }
        }
        m.put("feature_names", compact((model.columns() == null ? Columns.generated(model.features())
            : model.columns()).features()));
        if (model.spec().classifier()) {
            List<String> names = new ArrayList<>();
            for (int k = 0; k < model.classes(); k++) {
                names.add(model.className(k));
            }
            m.put("class_names", compact(names));
        }
        scaling(m);
        m.put("torch_input", input());
        m.put("torch_output", output());
        m.put("torch_sequential", sequential());
        m.put("exported_by", "paratrain " + Provenance.codeVersion());
        m.putAll(extra);
        return m;
    }

    /** What reading and training did to the rows before the model saw them, which a user of the file repeats. */
    private void scaling(Map<String, String> m) {
        if (model.dataFormat() != null) {
            m.put("trained_on_format", model.dataFormat().label());
        }
        m.put("input_scaling", Layers.scaling(model));
        if (model.dataFormat() == DataSpec.Format.IDX) {
            m.put("pixel_scale", compact(IdxFormat.PIXEL_SCALE));
        }
        if (model.standardizer() != null) {
            m.put("standardizer_mean", compact(model.standardizer().mean()));
            m.put("standardizer_scale", compact(model.standardizer().scale()));
        }
    }

    private String input() {
        String rows = "the rows after input_scaling, features in the order of feature_names";
        if (model.spec() instanceof ModelSpec.Cnn cnn) {
            ConvNet.Shape s = cnn.shape(model.features());
            return String.format(Locale.ROOT, "[N, %d, %d, %d] %s (N, channels, height, width): %s, each of "
                + "height x width x channels values, as x.reshape(N, %d, %d, %d).permute(0, 3, 1, 2)", s.channels(),
                s.height(), s.width(), dtype(), rows, s.height(), s.width(), s.channels());
        }
        return "[N, " + model.features() + "] " + dtype() + ": " + rows;
    }

    private String output() {
        return switch (model.spec()) {
            case ModelSpec.Linear l -> "[N, 1]: the prediction";
            case ModelSpec.Logistic l -> "[N, 1]: the probability of class 1 (of class_names' second); the last "
                + "module removed (model[:-1]), the logit";
            case ModelSpec.Mlp mlp when !mlp.classifier() -> "[N, 1]: the prediction";
            default -> "[N, " + model.classes() + "]: each class's probability, in the order of class_names; the "
                + "last module removed (model[:-1]), the logits";
        };
    }

    private String dtype() {
        return precision == Precision.FLOAT64 ? "float64" : "float32";
    }

    /** One line of JSON, as the metadata's arrays are written. */
    static String compact(Object value) {
        try {
            return RunWriter.json().writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("lists of strings and numbers always write as JSON", e);
        }
    }
}
