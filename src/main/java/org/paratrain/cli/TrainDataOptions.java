package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.LibSvmFormat;
import org.paratrain.experiment.DataFiles;
import org.paratrain.train.spec.DataSpec;
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

    @Option(names = "--standardize", description = "Scale each feature to mean 0, sd 1 (fitted on the training data).")
    boolean standardize;

    @Option(names = "--test-fraction", defaultValue = "0",
        description = "Hold out this fraction of the samples for testing (0: none, default).")
    double testFraction;

    /**
     * {@return the data's spec: files, format, held-out samples and scaling}
     * @param format the files' format and, for CSV, layout
     * @param seed the seed of the train/test split, the run's {@code --seed}
     */
    DataSpec spec(DataFormatOptions format, long seed) {
        DataFiles files = format.files();
        LibSvmFormat.Layout libsvm = files.libsvm() == null || nFeatures == null ? files.libsvm()
            : files.libsvm().withFeatures(nFeatures, "--n-features " + nFeatures);
        return new DataSpec(files.format(), files.csv(), libsvm, files.npz(), xFile, yFile, testX, testY,
            testFraction, standardize, seed);
    }
}
