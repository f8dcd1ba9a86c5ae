package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.io.AtomicFiles;
import org.paratrain.model.Model;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;

/**
 * model.json: everything needed to use a trained model later, and how it was made. JSON, never
 * Java serialization: readable by people and other tools, and safe to load. Versioned: a
 * reader refuses a version it does not know instead of guessing.
 *
 * @param spec         the model's kind and shape (biases, layers, activation)
 * @param features     inputs
 * @param classes      classes of a classifier (2 for logistic), 0 for regression
 * @param params       the parameters, in the model's layout
 * @param standardizer the feature scaling fitted on the training data, or null
 * @param classNames   the names of the classes when the training labels had names (strings, or
 *                     -1/+1 and 1/2 mapped to 0/1), else null: the labels were the class indices
 * @param columns      the features' names and the label column's; null for a file written before they were kept
 * @param dataFormat   the format of the training data, which says what reading did to the features before the
 *                     model saw them (IDX bytes are divided by {@link org.paratrain.data.IdxFormat#PIXEL_SCALE});
 *                     null where not known (a file written before it was kept, or a model not trained from files)
 */
public record ModelFile(ModelSpec spec, int features, int classes, double[] params, Standardizer standardizer,
                        ClassNames classNames, Columns columns, DataSpec.Format dataFormat) {
    /** The format written; readers accept it and nothing newer. */
    public static final int VERSION = 1;
    private static final String FORMAT = "paratrain-model";

    /**
     * A model file that does not say what data it was trained on.
     *
     * @param spec         the model's kind and shape
     * @param features     inputs
     * @param classes      classes of a classifier, 0 for regression
     * @param params       the parameters
     * @param standardizer the feature scaling, or null
     * @param classNames   the class names, or null
     * @param columns      the features' names and the label column's
     */
    public ModelFile(ModelSpec spec, int features, int classes, double[] params, Standardizer standardizer,
                     ClassNames classNames, Columns columns) {
        this(spec, features, classes, params, standardizer, classNames, columns, null);
    }

    /**
     * A model file whose features have generated names.
     *
     * @param spec         the model's kind and shape
     * @param features     inputs
     * @param classes      classes of a classifier, 0 for regression
     * @param params       the parameters
     * @param standardizer the feature scaling, or null
     * @param classNames   the class names, or null
     */
    public ModelFile(ModelSpec spec, int features, int classes, double[] params, Standardizer standardizer,
                     ClassNames classNames) {
        this(spec, features, classes, params, standardizer, classNames, Columns.generated(features), null);
    }

    /**
     * {@return a new instance of the model, to evaluate with {@link #params} (one per thread:
     * models keep scratch space)}
     */
    public Model newModel() {
        return spec.newModel(features, classes);
    }

    /**
     * {@return the name of class {@code k}: its name in the training labels, or its index}
     * @param k a class index, 0..classes-1
     */
    public String className(int k) {
        return classNames == null ? Integer.toString(k) : classNames.name(k);
    }

    /**
     * {@return the data as the model saw it in training: standardised with the training data's statistics if it was}
     * @param d new samples, with the training data's features
     * @throws DataFormatException if the feature counts differ
     */
    public Dataset prepare(Dataset d) {
        if (d.features() != features) {
            throw new DataFormatException("the data has " + d.features() + " features but the model was trained on "
                + features);
        }
        return standardizer == null ? d : standardizer.apply(d);
    }

    /**
     * Writes the file atomically, with the training record and provenance beside the parameters.
     *
     * @param file       where, usually {@code RUN/model.json}
     * @param training   the training settings and results, as result.json records them
     * @param provenance how and where the model was made
     */
    public void write(Path file, ObjectNode training, Provenance provenance) {
        ObjectNode o = toJson(training, provenance);
        AtomicFiles.writeBytes(file, out -> RunWriter.json().writeValue(out, o));
    }

    /**
     * {@return the file's contents as a JSON tree, as {@link #write} writes it}
     * @param training   the training settings and results
     * @param provenance how and where the model was made
     */
    public ObjectNode toJson(ObjectNode training, Provenance provenance) {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("format", FORMAT);
        o.put("version", VERSION);
        o.put("model", spec.kind());
        o.put("features", features);
        o.put("classes", classes);
        o.put("intercept", spec.intercept());
        if (spec instanceof ModelSpec.Mlp mlp) {
            o.put("layers", mlp.layers());
            o.put("activation", mlp.activation().name().toLowerCase(java.util.Locale.ROOT));
            o.put("precision", mlp.precision().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (spec instanceof ModelSpec.Cnn cnn) {
            o.put("layers", cnn.label());
            o.put("image_shape", cnn.shape(features).toString());
            o.put("precision", cnn.precision().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (classNames != null) {
            classNames.names().forEach(o.putArray("class_names")::add);
        }
        if (columns != null) {
            columns.features().forEach(o.putArray("feature_names")::add);
            o.put("feature_names_from", columns.named() ? "header" : "generated");
            if (columns.label() != null) {
                o.put("label_column", columns.label());
            }
        }
        if (dataFormat != null) {
            o.put("data_format", dataFormat.label());
        }
        ResultCodec.array(o.putArray("params"), params);
        if (standardizer != null) {
            ObjectNode s = o.putObject("standardizer");
            ResultCodec.array(s.putArray("mean"), standardizer.mean());
            ResultCodec.array(s.putArray("scale"), standardizer.scale());
        }
        o.set("training", training);
        o.set("provenance", provenance.toJson());
        return o;
    }

    /**
     * {@return the model file, read and checked}
     * @param file a model.json written by {@link #write}
     * @throws DataFormatException naming the file and what is wrong: not JSON, another format or
     *     version, a missing or bad field, parameters that do not fit the model
     */
    public static ModelFile read(Path file) {
        return parse(JsonFiles.read(file, "a paratrain model file"), file);
    }

    /**
     * {@return the model file in a JSON tree, checked as {@link #read} checks a file}
     * @param o    the tree
     * @param file the name errors give it (a file, or where the tree came from)
     * @throws DataFormatException naming {@code file} and what is wrong
     */
    public static ModelFile parse(JsonNode o, Path file) {
        if (!FORMAT.equals(o.path("format").asText())) {
            throw new DataFormatException(file + ": not a paratrain model file (no \"format\": \"" + FORMAT + "\")");
        }
        if (o.path("version").asInt(-1) != VERSION) {
            throw new DataFormatException(file + ": model file version " + o.path("version") + ", this paratrain "
                + "reads version " + VERSION);
        }
        ModelFileCheck check = new ModelFileCheck(file, o);
        String kind = check.model();
        double[] params = check.numbers(o, "params");
        int features = check.count("features", 1);
        int classes = check.classes(kind);
        // Every feature, and every class of a softmax or MLP, has a weight of its own.
        if (Math.max(features, kind.equals("logistic") ? 0 : classes) > params.length) {
            throw new DataFormatException(file + ": " + features + " features and " + classes + " classes need more "
                + "than the " + params.length + " parameters the file holds");
        }
        boolean mlp = kind.startsWith("mlp");
        ModelNames.MlpLayers layers = mlp ? check.layers(params.length) : null;
        ModelSpec spec = kind.equals("cnn") ? check.cnn() : ModelNames.of(kind, !mlp && check.flag("intercept"), classes,
            mlp ? layers.widths() : List.of(), ModelNames.activation(mlp ? check.activation() : "relu"));
        if (spec instanceof ModelSpec.Mlp m) {
            spec = m.withDropout(layers.dropout()).withPrecision(ModelNames.precision(check.precision()));
        }
        ModelFile m = new ModelFile(spec, features, classes, params, check.standardizer(features),
            check.classNames(classes), check.columns(features), check.dataFormat());
        int needed;
        try {
            needed = m.newModel().parameterCount();
        } catch (org.paratrain.train.spec.SpecException e) {
            throw new DataFormatException(file + ": the " + kind + " it describes cannot be built: field \""
                + e.setting().replace('-', '_') + "\": " + e.requirement());
        }
        if (needed != params.length) {
            throw new DataFormatException(file + ": " + params.length + " parameters, the model needs " + needed);
        }
        return m;
    }
}
