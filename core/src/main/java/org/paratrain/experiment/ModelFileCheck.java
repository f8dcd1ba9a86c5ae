package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.data.ClassNames;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Standardizer;
import org.paratrain.io.Clip;

/**
 * The checks of a model.json as read back: every field present and of its type, numbers
 * finite, and sizes consistent, so that a hand-edited or damaged file is refused with a
 * message naming the file and the field rather than failing later, far from its cause (a
 * parameter "abc" would otherwise read as 0, and "NaN" as NaN).
 */
final class ModelFileCheck {
    static final List<String> MODELS = List.of("linear", "logistic", "softmax", "mlp", "mlp-regression", "cnn");
    private static final List<String> ACTIVATIONS = List.of("relu", "tanh", "sigmoid");

    private final Path file;
    private final JsonNode root;

    ModelFileCheck(Path file, JsonNode root) {
        this.file = file;
        this.root = root;
    }

    private DataFormatException error(String what) {
        return new DataFormatException(file + ": " + what);
    }

    /** The model kind, one paratrain knows. */
    String model() {
        JsonNode v = root.get("model");
        if (v == null || !v.isTextual()) {
            throw error("field \"model\" is missing or not a string; expected one of " + String.join(", ", MODELS));
        }
        if (!MODELS.contains(v.asText())) {
            throw error("model kind '" + Clip.value(v.asText()) + "' is not one this paratrain knows ("
                + String.join(", ", MODELS) + ")");
        }
        return v.asText();
    }

    /** A whole number of at least {@code min}. */
    int count(String field, int min) {
        JsonNode v = root.get(field);
        if (v == null || !v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min) {
            throw error("field \"" + field + "\" is " + shown(v) + "; expected a whole number >= " + min);
        }
        return v.asInt();
    }

    /** {@code true} or {@code false}. */
    boolean flag(String field) {
        JsonNode v = root.get(field);
        if (v == null || !v.isBoolean()) {
            throw error("field \"" + field + "\" is " + shown(v) + "; expected true or false");
        }
        return v.asBoolean();
    }

    /** The classes, as the model kind allows them: 0 for regression, 2 for logistic, at least 2 else. */
    int classes(String model) {
        int k = count("classes", 0);
        boolean ok = switch (model) {
            case "linear", "mlp-regression" -> k == 0;
            case "logistic" -> k == 2;
            default -> k >= 2;
        };
        if (!ok) {
            throw error("field \"classes\" is " + k + ", which a " + model + " model cannot have");
        }
        return k;
    }

    /** Finite numbers, none missing: a parameter "NaN" or "abc" is damage, not a value. */
    double[] numbers(JsonNode parent, String field) {
        JsonNode a = parent.get(field);
        if (a == null || !a.isArray() || a.isEmpty()) {
            throw error("field \"" + field + "\" is " + shown(a) + "; expected an array of numbers");
        }
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            JsonNode x = a.get(i);
            if (!x.isNumber() || !Double.isFinite(x.asDouble())) {
                throw error(field + "[" + i + "] is " + shown(x) + "; expected a finite number");
            }
            v[i] = x.asDouble();
        }
        return v;
    }

    /** An MLP's hidden widths, each no larger than the parameters could hold ("" for no hidden layer). */
    org.paratrain.train.spec.ModelNames.MlpLayers layers(int params) {
        JsonNode v = root.get("layers");
        String s = v == null ? "" : v.asText("");
        org.paratrain.train.spec.ModelNames.MlpLayers l = null;
        if (v == null || v.isTextual()) {
            try {
                l = org.paratrain.train.spec.ModelNames.mlpLayers(s);
            } catch (org.paratrain.train.spec.SpecException e) {
                l = null;
            }
        }
        if (l == null || l.widths().stream().anyMatch(w -> w < 1)) {
            throw error("field \"layers\" is " + shown(v) + "; expected hidden widths such as \"256,128\" (each "
                + "may be followed by dropout:RATE)");
        }
        for (int w : l.widths()) {
            if (w > params) {
                throw error("hidden layer width " + w + " needs more than the " + params + " parameters the file holds");
            }
        }
        return l;
    }

    /** A CNN's layers, image shape and classes, as ModelNames reads them from the command line. */
    org.paratrain.train.spec.ModelSpec cnn() {
        JsonNode layers = root.get("layers");
        JsonNode shape = root.get("image_shape");
        try {
            return org.paratrain.train.spec.ModelNames.named("cnn", true, classes("cnn"),
                layers == null || !layers.isTextual() ? "" : layers.asText(), "relu",
                shape == null || !shape.isTextual() ? "?" : shape.asText())
                .withPrecision(org.paratrain.train.spec.ModelNames.precision(precision()));
        } catch (org.paratrain.train.spec.SpecException e) {
            throw error("field \"" + e.setting().replace('-', '_') + "\" is " + shown(root.get(e.setting()
                .replace('-', '_'))) + "; it " + e.requirement());
        }
    }

    /** An MLP's hidden activation. */
    String activation() {
        JsonNode v = root.get("activation");
        if (v == null || !ACTIVATIONS.contains(v.asText())) {
            throw error("field \"activation\" is " + shown(v) + "; expected one of " + String.join(", ", ACTIVATIONS));
        }
        return v.asText();
    }

    /** {@return the training precision, {@code float64} where an older file does not say} */
    String precision() {
        JsonNode v = root.get("precision");
        if (v == null) {
            return "float64";
        }
        if (!v.asText().equals("float32") && !v.asText().equals("float64")) {
            throw error("field \"precision\" is " + shown(v) + "; expected float32 or float64");
        }
        return v.asText();
    }

    /** The class names, or null when the file has none; one distinct string a class. */
    ClassNames classNames(int classes) {
        JsonNode a = root.get("class_names");
        if (a == null || a.isNull()) {
            return null;
        }
        if (!a.isArray() || a.size() != classes || classes == 0) {
            throw error("field \"class_names\" is " + shown(a) + "; expected " + classes + " names, one a class");
        }
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode v : a) {
            if (!v.isTextual()) {
                throw error("class_names holds " + shown(v) + "; expected strings");
            }
            names.add(v.asText());
        }
        if (new java.util.HashSet<>(names).size() != names.size()) {
            throw error("class_names " + shown(a) + " names a class twice");
        }
        return new ClassNames(names);
    }

    /**
     * The features' names; a file written before they were kept has none, and its features
     * are matched by position (generated names).
     */
    org.paratrain.data.Columns columns(int features) {
        JsonNode a = root.get("feature_names");
        if (a == null || a.isNull()) {
            return org.paratrain.data.Columns.generated(features);
        }
        if (!a.isArray() || a.size() != features) {
            throw error("field \"feature_names\" is " + shown(a) + "; expected " + features + " names, one a feature");
        }
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode v : a) {
            if (!v.isTextual()) {
                throw error("feature_names holds " + shown(v) + "; expected strings");
            }
            names.add(v.asText());
        }
        boolean named = "header".equals(root.path("feature_names_from").asText("generated"));
        JsonNode label = root.get("label_column");
        return new org.paratrain.data.Columns(names, named, label != null && label.isTextual() ? label.asText() : null);
    }

    /** The training data's format, or null for a file written before it was kept. */
    org.paratrain.train.spec.DataSpec.Format dataFormat() {
        JsonNode v = root.get("data_format");
        if (v == null || v.isNull()) {
            return null;
        }
        List<String> known = java.util.Arrays.stream(org.paratrain.train.spec.DataSpec.Format.values())
            .map(org.paratrain.train.spec.DataSpec.Format::label).toList();
        if (!v.isTextual() || !known.contains(v.asText())) {
            throw error("field \"data_format\" is " + shown(v) + "; expected one of " + String.join(", ", known));
        }
        return org.paratrain.train.spec.DataSpec.Format.parse(v.asText());
    }

    /** The feature scaling, or null when the file has none. */
    Standardizer standardizer(int features) {
        JsonNode s = root.get("standardizer");
        if (s == null || s.isNull()) {
            return null;
        }
        double[] mean = numbers(s, "mean");
        double[] scale = numbers(s, "scale");
        if (mean.length != features || scale.length != features) {
            throw error("the standardizer has " + mean.length + " means and " + scale.length + " scales for "
                + features + " features");
        }
        for (double v : scale) {
            if (!(v > 0)) {
                throw error("the standardizer has a scale of " + v + "; expected every scale > 0");
            }
        }
        return new Standardizer(mean, scale);
    }

    private static String shown(JsonNode v) {
        return v == null ? "missing" : Clip.value(v.toString());
    }
}
