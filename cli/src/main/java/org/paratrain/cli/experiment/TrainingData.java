package org.paratrain.cli.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Arrays;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.data.TrainTestSplit;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.experiment.DataFingerprint;
import org.paratrain.experiment.RunWriter;

/**
 * The samples a run trains and tests on, read and prepared as a {@link DataSpec} says: labels
 * checked against the model (and coded as class indices), a held-out split drawn from the
 * seed, features standardised with the training samples' statistics.
 *
 * @param train        the training samples, prepared
 * @param test         the test samples, prepared, or null
 * @param standardizer the scaling fitted on the training samples, or null
 * @param classNames   the names of the classes when the labels had names, else null
 * @param validation   the validation samples, prepared, or null
 * @param columns      the names of the features (generated when the files name none) and the label column
 * @param notes        what reading did that a user should hear of (a pandas index column dropped)
 */
public record TrainingData(Dataset train, Dataset test, Standardizer standardizer, ClassNames classNames,
                           Dataset validation, Columns columns, java.util.List<String> notes) {

    /**
     * Reads and prepares the data.
     *
     * @param spec  files, format, split and scaling
     * @param model the model, whose labels the data must have
     * @return the prepared samples
     * @throws DataFormatException naming the file, if a label does not suit the model or the test
     *     data has other features than the training data
     */
    public static TrainingData prepare(DataSpec spec, ModelSpec model) {
        // A LibSVM test file is read as the training file is: same zero-basedness, same feature count.
        DataFiles files = spec.testX() == null ? DataFiles.of(spec)
            : DataFiles.of(spec).jointly(spec.x(), spec.testX());
        DataFiles.Labelled labelled = files.readForTraining(spec.x(), spec.y(), model);
        Dataset all = labelsSuit(model, labelled.data(), spec.y() == null ? spec.x() : spec.y());
        // Test and validation files are matched to the training data's columns by name, as evaluate does.
        // They carry no sample weights: test and validation losses are plain means, as with class weights.
        DataFiles others = files.unweighted().matching(labelled.columns());
        Dataset givenTest = spec.testX() == null ? null : other(others, spec, model, labelled, all, spec.testX(),
            spec.testY(), "test");
        Dataset givenVal = spec.valX() == null ? null : other(others, spec, model, labelled, all, spec.valX(),
            spec.valY(), "validation");
        TrainTestSplit split = spec.testFraction() == 0 ? null
            : TrainTestSplit.of(all, spec.testFraction(), spec.splitSeed());
        Dataset train = split == null ? all : split.train();
        Dataset test = split == null ? givenTest : split.test();
        Dataset val = givenVal;
        if (spec.valFraction() > 0) {
            // Drawn from what the test split left, with its own stream: the test samples stay the same
            // whether or not a validation split is asked for, and no sample is in two parts.
            TrainTestSplit v = TrainTestSplit.stratified(train, spec.valFraction(), (spec.splitSeed() + 1) & 0xFFFFFFFFL,
                model.classifier(), "--val-fraction");
            train = v.train();
            val = v.test();
        }
        if (!spec.standardize()) {
            return new TrainingData(train, test, null, labelled.classes(), val, labelled.columns(), labelled.notes());
        }
        Standardizer st = Standardizer.fit(train);
        return new TrainingData(st.apply(train), test == null ? null : st.apply(test), st, labelled.classes(),
            val == null ? null : st.apply(val), labelled.columns(), labelled.notes());
    }

    /** Test or validation samples from files of their own, with the training data's classes and width. */
    private static Dataset other(DataFiles files, DataSpec spec, ModelSpec model, DataFiles.Labelled labelled,
                                 Dataset all, Path x, Path y, String what) {
        Dataset d = labelsSuit(model, files.readWithClasses(x, y, labelled.classes()), y == null ? x : y);
        if (d.features() != all.features()) {
            throw new DataFormatException(x + ": " + d.features() + " features a sample, but the training data ("
                + spec.x() + ") has " + all.features() + "; " + what + " data must have the same features");
        }
        return d;
    }

    /**
     * {@code data} if its labels suit {@code model} (whole numbers 0..K-1 for a classifier); a
     * label that does not is an error in the data file, not in a setting.
     *
     * @param model the model
     * @param data  the samples
     * @param file  where the labels are, for the message
     * @return {@code data}
     * @throws DataFormatException naming the file and the first bad label
     */
    public static Dataset labelsSuit(ModelSpec model, Dataset data, Path file) {
        try {
            model.classes(data);
        } catch (IllegalArgumentException e) {
            throw new DataFormatException(file + ": " + e.getMessage());
        }
        return data;
    }

    /**
     * How the data were prepared, as checkpoints record it (to refuse resuming on other data)
     * and as result.json records it.
     *
     * @param spec the data spec
     * @return format (with LibSVM's zero-basedness and feature count and npz's array names where
     *     given), scaling, held-out fraction and split seed
     */
    public static ObjectNode preparation(DataSpec spec) {
        ObjectNode prep = RunWriter.json().createObjectNode();
        prep.put("format", spec.format().label());
        // Recorded only where not the default, so that checkpoints from before these options still resume.
        if (spec.libsvm() != null && !spec.libsvm().equals(org.paratrain.data.LibSvmFormat.Layout.DEFAULT)) {
            prep.put("zero_based", spec.libsvm().zeroBased().name().toLowerCase(java.util.Locale.ROOT));
            prep.put("n_features", spec.libsvm().features());
        }
        if (spec.npz() != null && !spec.npz().equals(org.paratrain.data.NpzFormat.Names.DEFAULT)) {
            prep.put("npz_x", spec.npz().x() == null ? "" : spec.npz().x());
            prep.put("npz_y", spec.npz().y() == null ? "" : spec.npz().y());
        }
        if (spec.csv() != null && spec.csv().weight() != null) {
            prep.put("sample_weight", spec.csv().weight());
        }
        prep.put("standardized", spec.standardize());
        prep.put("test_fraction", spec.testFraction());
        prep.put("split_seed", spec.splitSeed());
        if (spec.valFraction() > 0) {
            prep.put("validation_fraction", spec.valFraction());
        }
        return prep;
    }

    /**
     * What a checkpoint records of the data: size and CRC-32C of each input file, and the
     * preparation.
     *
     * @param spec the data spec
     * @return the fingerprint, see {@link DataFingerprint}
     */
    public static ObjectNode fingerprint(DataSpec spec) {
        return DataFingerprint.of(Arrays.asList(spec.x(), spec.y()), preparation(spec));
    }

    /**
     * The record of the data for result.json: files, size, and how they were prepared.
     *
     * @param spec     the data spec
     * @param samples  training samples
     * @param features features a sample
     * @return the {@code data} object
     */
    public static ObjectNode record(DataSpec spec, int samples, int features) {
        ObjectNode d = RunWriter.json().createObjectNode();
        d.put("x", spec.x().toString());
        d.put("y", spec.y() == null ? "" : spec.y().toString());
        d.put("samples", samples);
        d.put("features", features);
        d.setAll(preparation(spec));
        return d;
    }
}
