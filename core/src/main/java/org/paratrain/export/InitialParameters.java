package org.paratrain.export;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.data.Columns;
import org.paratrain.data.DataFormatException;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.spec.ModelSpec;

/**
 * The parameters a run starts from instead of its model's initialiser ({@code train --init-from},
 * {@code Trainer.initFrom}): read from a safetensors file that {@link SafetensorsExport} wrote
 * (or any with the same tensors), or from a paratrain {@code model.json}, and checked against the
 * model being trained as PyTorch's {@code load_state_dict(..., strict=True)} checks a state_dict:
 * every tensor the model has is there, no other, each of the model's shape, and here also each
 * {@code F64} or {@code F32} (a float is a double exactly, so either initialises either
 * precision) and every value finite. A refusal is one line naming the file and the tensor, with
 * the expected and the found.
 *
 * <p>A file whose name ends in {@code .json} is read as a model.json (its parameters laid out as
 * the same tensors, so the same checks apply); any other as safetensors.
 *
 * @param file   the file read
 * @param format {@code safetensors} or {@code model.json}
 * @param sha256 the file's SHA-256, for the run's record of where it started
 * @param params the parameters, in the layout of the model being trained
 */
public record InitialParameters(Path file, String format, String sha256, double[] params) {

    /** Keeps a copy of the parameters. */
    public InitialParameters {
        params = params.clone();
    }

    /** {@return the parameters, a copy} */
    @Override
    public double[] params() {
        return params.clone();
    }

    /**
     * {@return the parameters {@code file} holds for the model {@code spec} of {@code features}
     * inputs and {@code classes} classes}
     * @param file     a safetensors file, or a model.json
     * @param spec     the model being trained
     * @param features its inputs
     * @param classes  its classes (as {@link ModelSpec#classes(org.paratrain.data.Dataset)} counts them; 0 for a
     *                 regression)
     * @throws DataFormatException naming the file and the tensor, if a tensor is missing, extra,
     *     of another dtype or shape, or holds a value that is not finite, or the file is damaged
     * @throws UncheckedIOException naming the file, if it cannot be read
     */
    public static InitialParameters read(Path file, ModelSpec spec, int features, int classes) {
        return read(file, spec, features, classes, null);
    }

    /**
     * {@return the parameters {@code file} holds for the model {@code spec} of {@code features}
     * inputs and {@code classes} classes, whose data has the named {@code columns}}
     * Beyond the checks of {@link #read(Path, ModelSpec, int, int)}: a file that says which kind
     * of model it holds (a model.json; a safetensors file's {@code paratrain_model}) must hold
     * this kind, and where both the file and the data name their features, the first layer's
     * weights are matched to the data's columns by name, as {@code evaluate} and {@code predict}
     * match them: the same names in another order are put in the data's order, other names
     * are refused.
     *
     * @param file     a safetensors file, or a model.json
     * @param spec     the model being trained
     * @param features its inputs
     * @param classes  its classes (0 for a regression)
     * @param columns  the data's columns, or null when they have no names
     * @throws DataFormatException naming the file, as above, or if its kind or feature names differ
     * @throws UncheckedIOException naming the file, if it cannot be read
     */
    public static InitialParameters read(Path file, ModelSpec spec, int features, int classes, Columns columns) {
        TorchLayout want = TorchLayout.of(spec, features, classes);
        boolean json = file.getFileName() != null
            && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        Map<String, Safetensors.Tensor> found;
        String sha;
        String kind;
        List<String> names;
        if (json) {
            ModelFile m = ModelFile.read(file);
            found = tensors(m);
            sha = sha256(file);
            kind = m.spec().kind();
            names = m.columns() == null || !m.columns().named() ? null : m.columns().features();
        } else {
            Safetensors s = Safetensors.read(file);
            found = s.tensors();
            sha = s.sha256();
            kind = s.metadata().get("paratrain_model");
            names = featureNames(file, s.metadata().get("feature_names"), features);
        }
        if (kind != null && !kind.equals(spec.kind())) {
            throw new DataFormatException(file + ": holds the parameters of a model of kind " + kind + "; this run "
                + "trains kind " + spec.kind() + " (start it from a file of that kind)");
        }
        String what = "this run's " + spec.kind();
        if (names != null && columns != null && columns.named() && !names.equals(columns.features())) {
            found = byName(file, found, names, columns.features());
        }
        double[] params = new double[want.parameters()];
        for (TorchLayout.Entry e : want.tensors()) {
            Safetensors.Tensor t = found.get(e.name());
            if (t == null) {
                throw new DataFormatException(file + ": no tensor " + e.name() + ", which " + what + " needs (shape "
                    + e.shapeText() + "); the file has " + names(found.keySet().stream().toList()));
            }
            if (t.values() == null) {
                throw new DataFormatException(file + ": tensor " + e.name() + " is " + t.dtype() + "; paratrain starts "
                    + "from F64 or F32 tensors");
            }
            if (!java.util.Arrays.equals(t.shape(), e.shape())) {
                throw new DataFormatException(file + ": tensor " + e.name() + " has shape " + t.shapeText() + ", "
                    + what + " needs " + e.shapeText());
            }
            for (int i = 0; i < t.values().length; i++) {
                if (!Double.isFinite(t.values()[i])) {
                    throw new DataFormatException(file + ": tensor " + e.name() + " holds " + t.values()[i] + " at "
                        + "element " + element(i, t.shape()) + "; every parameter must be a finite number");
                }
            }
            TorchLayout.scatter(e, t.values(), params);
        }
        List<String> expected = want.tensors().stream().map(TorchLayout.Entry::name).toList();
        for (String name : found.keySet()) {
            if (!expected.contains(name) && !want.counters().contains(name)) {     // PyTorch's counters: ignored
                throw new DataFormatException(file + ": tensor " + name + " is not one of " + what + "'s ("
                    + names(expected) + ")");
            }
        }
        return new InitialParameters(file, json ? "model.json" : "safetensors", sha, params);
    }

    /** {@return where the run started, for the training record: {@code file}, {@code format}, {@code sha256}} */
    public ObjectNode record() {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("file", file.toString());
        o.put("format", format);
        o.put("sha256", sha256);
        return o;
    }

    /** The names a safetensors file gives its features, or null where it gives none or generated ones. */
    private static List<String> featureNames(Path file, String json, int features) {
        if (json == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        try {
            RunWriter.json().readTree(json).forEach(n -> names.add(n.asText()));
        } catch (IOException e) {
            throw new DataFormatException(file + ": its metadata's feature_names is not a JSON array of names");
        }
        return names.equals(Columns.generated(names.size()).features()) ? null : names;
    }

    /**
     * The tensors with the first layer's columns ({@code 0.weight}, {@code [out, in]}) moved from the
     * file's feature order to the data's; refused when the names are not the same set.
     */
    private static Map<String, Safetensors.Tensor> byName(Path file, Map<String, Safetensors.Tensor> found,
                                                          List<String> trained, List<String> data) {
        if (trained.size() != data.size() || !new HashSet<>(trained).equals(new HashSet<>(data))) {
            List<String> missing = data.stream().filter(n -> !trained.contains(n)).toList();
            List<String> extra = trained.stream().filter(n -> !data.contains(n)).toList();
            throw new DataFormatException(file + ": was trained on the features " + names(trained) + ", the data has "
                + names(data) + (missing.isEmpty() ? "" : "; new: " + names(missing))
                + (extra.isEmpty() ? "" : "; gone: " + names(extra)) + " (--features chooses and orders the columns)");
        }
        Safetensors.Tensor w = found.get("0.weight");
        if (w == null || w.values() == null || w.shape().length != 2 || w.shape()[1] != data.size()) {
            return found;   // the shape check names what is wrong
        }
        int in = data.size();
        int out = (int) w.shape()[0];
        double[] moved = new double[w.values().length];
        for (int j = 0; j < in; j++) {
            int from = trained.indexOf(data.get(j));
            for (int o = 0; o < out; o++) {
                moved[o * in + j] = w.values()[o * in + from];
            }
        }
        Map<String, Safetensors.Tensor> t = new LinkedHashMap<>(found);
        t.put("0.weight", new Safetensors.Tensor(w.name(), w.dtype(), w.shape(), moved));
        return t;
    }

    /** A model file's parameters as the tensors of its own layout, F64. */
    private static Map<String, Safetensors.Tensor> tensors(ModelFile m) {
        TorchLayout own = TorchLayout.of(m.spec(), m.features(), m.classes());
        Map<String, Safetensors.Tensor> t = new LinkedHashMap<>();
        for (TorchLayout.Entry e : own.tensors()) {
            t.put(e.name(), new Safetensors.Tensor(e.name(), "F64", e.shape(), TorchLayout.gather(e, m.params())));
        }
        return t;
    }

    /** The names, the first 8 of them when there are more. */
    private static String names(List<String> names) {
        if (names.isEmpty()) {
            return "no tensors";
        }
        return names.size() <= 8 ? String.join(", ", names)
            : String.join(", ", names.subList(0, 8)) + " and " + (names.size() - 8) + " more";
    }

    /** Row-major index {@code i} as {@code [r, c, ...]}. */
    private static String element(int i, long[] shape) {
        long[] at = new long[shape.length];
        long rest = i;
        for (int d = shape.length - 1; d >= 0; d--) {
            at[d] = rest % shape[d];
            rest /= shape[d];
        }
        return java.util.Arrays.toString(at);
    }

    private static String sha256(Path file) {
        MessageDigest d = Safetensors.sha256Digest();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = new byte[1 << 16];
            for (int n; (n = in.read(b)) > 0; ) {
                d.update(b, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
        return HexFormat.of().formatHex(d.digest());
    }
}
