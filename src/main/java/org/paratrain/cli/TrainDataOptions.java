package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;
import picocli.CommandLine.Option;

/**
 * The files {@code train} reads, the samples it holds out for testing and its scaling. How the
 * files are laid out is {@link DataFormatOptions}, which evaluate and predict share.
 */
final class TrainDataOptions {
    @Option(names = {"--x", "--data"}, required = true,
        description = "Features: the paper's X.in (one sample a line), IDX images (--format idx), or a CSV or LibSVM "
            + "file holding the labels too.")
    Path xFile;

    @Option(names = {"--y", "--labels"},
        description = "Targets or labels for --format paper (the paper's y.in) and idx (IDX labels).")
    Path yFile;

    @Option(names = "--test-data", description = "Test features, in --format (instead of --test-fraction).")
    Path testX;

    @Option(names = "--test-labels", description = "Test labels, in --format.")
    Path testY;

    @Option(names = "--standardize", negatable = true, description = "Scale each feature to mean 0, sd 1 (fitted on "
        + "the training data). Default: on for classifiers and networks on tables (CSV, LibSVM, NumPy, the paper's "
        + "format), as Spark MLlib's LogisticRegression does; off for IDX images and for the paper's linear regression.")
    Boolean standardize;

    @Option(names = "--val-fraction", defaultValue = "0", description = "Hold out this fraction of the training "
        + "samples (after any test split) for validation: stratified by class for classifiers, drawn from --seed, the "
        + "same at any node count (0: none, default).")
    double valFraction;

    @Option(names = "--val-data", description = "Validation features, in --format (instead of --val-fraction).")
    Path valX;

    @Option(names = "--val-labels", description = "Validation labels, in --format.")
    Path valY;

    @Option(names = "--test-fraction", defaultValue = "0",
        description = "Hold out this fraction of the samples for testing (0: none, default).")
    double testFraction;

    /**
     * {@return the data's spec: files, format, held-out samples and scaling}
     * @param format the files' format and, for CSV, layout
     * @param seed the seed of the train/test split, the run's {@code --seed}
     * @param model the model, whose kind sets the default scaling
     */
    DataSpec spec(DataFormatOptions format, long seed, ModelSpec model) {
        DataSpec.Format f = format.format();
        return new DataSpec(f, f == DataSpec.Format.CSV ? format.layout() : null, xFile, yFile, testX, testY,
            testFraction, standardize(model, f), seed, valX, valY, valFraction);
    }

    /**
     * {@return whether features are standardised: as asked, else for a classifier or network on
     * tabular data (not IDX images, whose pixels share one scale, and not the paper's linear regression)}
     * @param model  the model trained
     * @param format the data's format
     */
    boolean standardize(ModelSpec model, DataSpec.Format format) {
        if (standardize != null) {
            return standardize;
        }
        return !(model instanceof ModelSpec.Linear) && format != DataSpec.Format.IDX;
    }
}
