package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.train.spec.DataSpec;
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
        DataSpec.Format f = format.format();
        return new DataSpec(f, f == DataSpec.Format.CSV ? format.layout() : null, xFile, yFile, testX, testY,
            testFraction, standardize, seed);
    }
}
