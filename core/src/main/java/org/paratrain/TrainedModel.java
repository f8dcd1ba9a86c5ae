package org.paratrain;

import java.nio.file.Path;
import java.util.List;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.model.Classifier;
import org.paratrain.model.Model;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;

/**
 * A trained model, for programs: predict a row or many, class probabilities, save and load as
 * model.json (the file {@code train --out} writes and {@code predict} reads; its format is in
 * {@code docs/model-format.md}).
 *
 * <p>Immutable and safe to share between threads: the parameters are copied in and never
 * handed out, and each thread predicts with a model instance of its own (models keep scratch
 * space). Rows are raw features: a model saved with feature scaling applies it itself.
 */
public final class TrainedModel {
    private final ModelFile file;
    private final ThreadLocal<Model> models;

    private TrainedModel(ModelFile file) {
        this.file = new ModelFile(file.spec(), file.features(), file.classes(), file.params().clone(),
            file.standardizer(), file.classNames(), file.columns(), file.dataFormat());
        this.models = ThreadLocal.withInitial(this.file::newModel);
    }

    /**
     * {@return the model a training run produced}
     * @param trainer the trainer that ran
     * @param result  what its {@link Trainer#run()} returned
     */
    public static TrainedModel of(Trainer trainer, TrainingResult result) {
        return of(trainer.spec(), trainer.data(), result);
    }

    static TrainedModel of(TrainSpec spec, Dataset data, TrainingResult result) {
        return of(spec, data.features(), spec.model().classes(data), result);
    }

    /**
     * {@return the model a run produced where the data never sat in one place (ranks that held
     * only their own rows, as {@link org.paratrain.train.RankTraining} trains)}
     * @param spec     the run's spec
     * @param features features of a row
     * @param classes  classes of a classifier, 0 for a regression
     * @param result   rank 0's result
     */
    public static TrainedModel of(TrainSpec spec, int features, int classes, TrainingResult result) {
        return of(spec, features, classes, result, null);
    }

    /**
     * {@return the model a run on standardised rows produced: it takes raw rows and scales them itself}
     * @param spec         the run's spec
     * @param features     features of a row
     * @param classes      classes of a classifier, 0 for a regression
     * @param result       rank 0's result
     * @param standardizer the scaling the training rows had (as {@link org.paratrain.train.RankTraining#standardizer}
     *                     fits it), or null for none
     */
    public static TrainedModel of(TrainSpec spec, int features, int classes, TrainingResult result,
                                  org.paratrain.data.Standardizer standardizer) {
        return new TrainedModel(new ModelFile(spec.model(), features, classes, result.params(), standardizer, null));
    }

    /**
     * {@return the model as the bytes of a model.json (UTF-8), for stores that are not a local
     * file system; {@link #fromJson} reads them}
     * @param what how it was made, for the file's provenance (e.g. the caller's name)
     */
    public byte[] toJson(String what) {
        try {
            return org.paratrain.experiment.RunWriter.json().writeValueAsBytes(file.toJson(
                org.paratrain.experiment.RunWriter.json().createObjectNode(), Provenance.capture(List.of(what))));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * {@return the model in the bytes of a model.json}
     * @param json   the bytes, as {@link #toJson} or {@link #save} wrote them
     * @param source where they came from, for error messages
     * @throws org.paratrain.data.DataFormatException naming {@code source} and what is wrong
     */
    public static TrainedModel fromJson(byte[] json, String source) {
        com.fasterxml.jackson.databind.JsonNode tree;
        try {
            tree = org.paratrain.experiment.RunWriter.json().readTree(json);
        } catch (java.io.IOException e) {
            throw new org.paratrain.data.DataFormatException(source + ": not JSON (" + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + ")");
        }
        return new TrainedModel(ModelFile.parse(tree, Path.of(source)));
    }

    /**
     * {@return this model with names for its classes, kept when saved and used by {@link #classNames()}}
     * @param names one name a class, in class order
     * @throws IllegalArgumentException if there are not as many names as classes, or a name repeats
     */
    public TrainedModel withClassNames(List<String> names) {
        if (!isClassifier() || names.size() != file.classes() || new java.util.HashSet<>(names).size() != names.size()) {
            throw new IllegalArgumentException("class names: expected " + file.classes() + " distinct names, one a "
                + "class, got " + names);
        }
        return new TrainedModel(new ModelFile(file.spec(), file.features(), file.classes(), file.params(),
            file.standardizer(), new ClassNames(names), file.columns(), file.dataFormat()));
    }

    /**
     * {@return the model saved in a model.json}
     * @param file a model.json written by {@link #save} or {@code train --out}
     * @throws org.paratrain.data.DataFormatException naming the file and what is wrong with it
     */
    public static TrainedModel load(Path file) {
        return new TrainedModel(ModelFile.read(file));
    }

    /**
     * Saves the model as model.json, atomically (the file is whole or as it was).
     *
     * @param path where
     * @throws java.io.UncheckedIOException if it cannot be written
     */
    public void save(Path path) {
        file.write(path, org.paratrain.experiment.RunWriter.json().createObjectNode(),
            Provenance.capture(List.of("TrainedModel.save")));
    }

    /**
     * Writes the model as an ONNX file (docs/export.md: raw rows in, the prediction or the label
     * and the class probabilities out), atomically.
     *
     * @param path where
     * @throws java.io.UncheckedIOException if it cannot be written
     */
    public void exportOnnx(Path path) {
        org.paratrain.export.OnnxExport.write(file, path);
    }

    /**
     * Writes the model's parameters as a safetensors file (docs/export.md: the state_dict of the
     * equivalent PyTorch {@code torch.nn.Sequential}, in the precision it was trained in, with the
     * input scaling and names in its metadata), atomically. {@link Trainer#initFrom} starts a
     * run from it.
     *
     * @param path where
     * @throws java.io.UncheckedIOException if it cannot be written
     */
    public void exportSafetensors(Path path) {
        org.paratrain.export.SafetensorsExport.write(file, path);
    }

    /** {@return the model's kind: linear, logistic, softmax, mlp, mlp-regression or cnn} */
    public String kind() {
        return file.spec().kind();
    }

    /** {@return the number of features a row has} */
    public int features() {
        return file.features();
    }

    /** {@return the features' names, in the order a row holds them} */
    public List<String> featureNames() {
        return (file.columns() == null ? Columns.generated(file.features()) : file.columns()).features();
    }

    /** {@return whether the model predicts classes (else a value)} */
    public boolean isClassifier() {
        return models.get() instanceof Classifier c && c.classifies();
    }

    /** {@return the class names, index by index ("0", "1", ... when the labels were indices); empty for a regression} */
    public List<String> classNames() {
        if (!isClassifier()) {
            return List.of();
        }
        ClassNames n = file.classNames();
        return n != null ? n.names() : java.util.stream.IntStream.range(0, file.classes()).mapToObj(Integer::toString)
            .toList();
    }

    /**
     * {@return the prediction for one row: the value of a regression, or the index of the most probable class}
     * @param row the raw features, {@link #features()} of them
     * @throws org.paratrain.data.DataFormatException if the row has another length or a value that is not finite
     */
    public double predict(double[] row) {
        return predict(new double[][] {row})[0];
    }

    /**
     * {@return the predictions for many rows at once (a network takes them as one matrix product)}
     * @param rows raw features, one row a sample
     * @throws org.paratrain.data.DataFormatException if a row has another length or a value that is not finite
     */
    public double[] predict(double[][] rows) {
        Dataset d = rows(rows);
        Model m = models.get();
        double[] out = new double[d.samples()];
        if (m instanceof Classifier c && c.classifies()) {
            int[] classes = new int[d.samples()];
            c.predict(d, 0, d.samples(), file.params(), classes, null);
            for (int i = 0; i < out.length; i++) {
                out[i] = classes[i];
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = m.output(d, i, file.params());
        }
        return out;
    }

    /**
     * {@return the probability of each class for one row, in the order of {@link #classNames()}}
     * @param row the raw features
     * @throws IllegalStateException for a regression, which has no classes
     */
    public double[] probabilities(double[] row) {
        if (!(models.get() instanceof Classifier c) || !c.classifies()) {
            throw new IllegalStateException("a " + kind() + " model predicts values, not class probabilities");
        }
        Dataset d = rows(new double[][] {row});
        double[] p = new double[c.classes()];
        c.probabilities(d, 0, file.params(), p);
        return p;
    }

    /** The rows as the model saw its training data: checked, then scaled as in training. */
    private Dataset rows(double[][] rows) {
        Dataset d = Datasets.of(rows, new double[rows.length]);
        d.requireFinite("the rows to predict");
        return file.prepare(d);
    }
}
