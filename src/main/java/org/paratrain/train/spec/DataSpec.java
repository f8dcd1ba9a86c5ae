package org.paratrain.train.spec;

import java.nio.file.Path;
import java.util.Locale;
import org.paratrain.data.CsvFormat;

/**
 * Where the training (and test) samples come from and how they are prepared: the files and
 * their format, a held-out fraction or test files, and feature scaling.
 *
 * @param format       the files' format
 * @param csv          column layout of {@link Format#CSV} files (label column, delimiter, header); null otherwise
 * @param x            features (and labels, for CSV and LibSVM)
 * @param y            labels of {@link Format#PAPER} and {@link Format#IDX}; null for the others
 * @param testX        test features in the same format, or null
 * @param testY        test labels, or null
 * @param testFraction fraction of the samples held out for testing, in [0, 1); 0 with test files
 * @param standardize  whether each feature is scaled to mean 0 and sd 1, fitted on the training samples
 * @param splitSeed    seed of the train/test split (and of the validation split, drawn from what remains)
 * @param valX         validation features in the same format, or null
 * @param valY         validation labels, or null
 * @param valFraction  fraction of the training samples (after the test split) held out for validation, in
 *                     [0, 1); 0 with validation files
 */
public record DataSpec(Format format, CsvFormat.Layout csv, Path x, Path y, Path testX, Path testY,
                       double testFraction, boolean standardize, long splitSeed, Path valX, Path valY,
                       double valFraction) {

    /** File formats. */
    public enum Format {
        /** The paper's X.in and y.in: one sample a line, features separated by spaces. */
        PAPER,
        /** IDX images and labels (MNIST, Fashion-MNIST), gzipped or not. */
        IDX,
        /** A CSV table holding features and the label column. */
        CSV,
        /** LibSVM's sparse {@code label index:value ...} lines. */
        LIBSVM;

        /** {@return the name, as on the command line ({@code csv})} */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@return whether labels are in a file of their own} */
        public boolean separateLabels() {
            return this == PAPER || this == IDX;
        }

        /**
         * The format of this name.
         *
         * @param s {@code paper}, {@code idx}, {@code csv} or {@code libsvm}
         * @return the format
         * @throws SpecException for any other name
         */
        public static Format parse(String s) {
            for (Format f : values()) {
                if (f.label().equals(s)) {
                    return f;
                }
            }
            throw new SpecException("format", "must be paper, idx, csv or libsvm, got '" + s + "'");
        }
    }

    /** Checks that labels are where the format keeps them and that test samples come from one place. */
    public DataSpec {
        SpecException.check(format != null, "format", "must be paper, idx, csv or libsvm");
        SpecException.check(x != null, "features", "must be given");
        SpecException.check(!format.separateLabels() || y != null, "labels", "are needed with format "
            + format.label() + " (a file of their own)");
        SpecException.check(format != Format.CSV || csv != null, "format", "csv needs a column layout");
        SpecException.check(testFraction >= 0 && testFraction < 1, "test fraction", "must be in [0, 1), got "
            + testFraction);
        SpecException.check(testX == null || testFraction == 0, "test data",
            "and a held-out test fraction exclude each other: give either, not both");
        SpecException.check(testY == null || testX != null, "test labels", "need test data");
        SpecException.check(testX == null || !format.separateLabels() || testY != null, "test labels",
            "are needed with format " + format.label() + " (a file of their own)");
        SpecException.check(valFraction >= 0 && valFraction < 1, "validation fraction", "must be in [0, 1), got "
            + valFraction);
        SpecException.check(valX == null || valFraction == 0, "validation data",
            "and a validation fraction exclude each other: give either, not both");
        SpecException.check(valY == null || valX != null, "validation labels", "need validation data");
        SpecException.check(valX == null || !format.separateLabels() || valY != null, "validation labels",
            "are needed with format " + format.label() + " (a file of their own)");
    }

    /**
     * Data without validation samples.
     *
     * @param format       the files' format
     * @param csv          column layout of CSV files, or null
     * @param x            features
     * @param y            labels of the formats that keep them apart, or null
     * @param testX        test features, or null
     * @param testY        test labels, or null
     * @param testFraction fraction held out for testing
     * @param standardize  whether features are standardised
     * @param splitSeed    seed of the split
     */
    public DataSpec(Format format, CsvFormat.Layout csv, Path x, Path y, Path testX, Path testY,
                    double testFraction, boolean standardize, long splitSeed) {
        this(format, csv, x, y, testX, testY, testFraction, standardize, splitSeed, null, null, 0);
    }

    /**
     * {@return the paper's two files, nothing held out, no scaling}
     * @param x features (the paper's X.in)
     * @param y targets (the paper's y.in)
     */
    public static DataSpec paper(Path x, Path y) {
        return new DataSpec(Format.PAPER, null, x, y, null, null, 0, false, 42);
    }

    /** {@return whether part of the data, or other files, are kept for validation} */
    public boolean hasValidation() {
        return valX != null || valFraction > 0;
    }

    /** {@return whether part of the data, or other files, are kept for testing} */
    public boolean hasTest() {
        return testX != null || testFraction > 0;
    }
}
