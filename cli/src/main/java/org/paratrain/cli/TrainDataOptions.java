package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.CsvFormat;
import org.paratrain.data.LibSvmFormat;
import org.paratrain.cli.experiment.DataFiles;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;
import picocli.CommandLine.Option;

/**
 * The files {@code train} reads, the samples it holds out for testing and its scaling. How the
 * files are laid out is {@link DataFormatOptions}, which evaluate and predict share.
 */
final class TrainDataOptions {
    @Option(names = {"--x", "--data"}, required = true,
        description = "Features: the paper's X.in (one sample a line), IDX images (--format idx), a .npy array, or a "
            + "CSV, LibSVM or .npz file holding the labels too.")
    Path xFile;

    @Option(names = {"--y", "--labels"},
        description = "Targets or labels for --format paper (the paper's y.in), idx (IDX labels) and npy.")
    Path yFile;

    @Option(names = "--n-features", paramLabel = "N", description = "With --format libsvm: rows have N features "
        + "(default: the largest index); an index beyond N is an error naming the line.")
    Integer nFeatures;

    @Option(names = "--test-data", description = "Test features, in --format (instead of --test-fraction).")
    Path testX;

    @Option(names = "--test-labels", description = "Test labels, in --format.")
    Path testY;

    @Option(names = "--standardize", negatable = true, description = "Scale each feature to mean 0, sd 1 (fitted on "
        + "the training data). Default: on for classifiers and networks on tables (CSV, LibSVM, NumPy, the paper's "
        + "format), as Spark MLlib's LogisticRegression does; off for IDX images and for the paper's linear regression.")
    Boolean standardize;

    @Option(names = "--features", split = ",", paramLabel = "NAME", description = "With --format csv: the feature "
        + "columns to train on, by header name, in this order (default: every column but the label).")
    java.util.List<String> features;

    @Option(names = "--drop-columns", split = ",", paramLabel = "NAME", description = "With --format csv: columns "
        + "to leave out, by header name (or 0-based index with --no-header). An unnamed first column (pandas' index) "
        + "is dropped without asking.")
    java.util.List<String> dropColumns;

    @Option(names = "--sample-weight", paramLabel = "COLUMN", description = "With --format csv: the column of "
        + "the training samples' weights (by header name, or 0-based index with --no-header): each sample's loss and "
        + "gradient count that many times; not a feature. Test and validation losses stay unweighted.")
    String sampleWeight;

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
        DataFiles files = format.files();
        DataSpec.Format f = files.format();
        if (f != DataSpec.Format.CSV && (features != null || dropColumns != null)) {
            throw new IllegalArgumentException((features != null ? "--features" : "--drop-columns") + " chooses "
                + "columns of a CSV file; with --format " + f.label() + " there are none to choose");
        }
        if (f != DataSpec.Format.CSV && sampleWeight != null) {
            throw new IllegalArgumentException("--sample-weight names a column of a CSV file; with --format " + f.label()
                + " there is none (the Java API's Dataset.withWeights weighs samples of any format)");
        }
        if (features != null && dropColumns != null) {
            throw new IllegalArgumentException("--features and --drop-columns exclude each other: --features names "
                + "every column kept");
        }
        CsvFormat.Layout layout = f != DataSpec.Format.CSV ? null : features != null ? files.csv().keeping(features)
            : dropColumns != null ? files.csv().dropping(dropColumns) : files.csv();
        if (layout != null && sampleWeight != null) {
            layout = layout.withWeight(sampleWeight);
        }
        LibSvmFormat.Layout libsvm = files.libsvm() == null || nFeatures == null ? files.libsvm()
            : files.libsvm().withFeatures(nFeatures, "--n-features " + nFeatures);
        return new DataSpec(f, layout, libsvm, files.npz(), xFile, yFile, testX, testY, testFraction,
            standardize(model, f), seed, valX, valY, valFraction);
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
