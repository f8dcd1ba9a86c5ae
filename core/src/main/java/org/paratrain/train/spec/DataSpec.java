package org.paratrain.train.spec;

import java.nio.file.Path;
import java.util.Locale;
import org.paratrain.data.CsvFormat;
import org.paratrain.data.LibSvmFormat;
import org.paratrain.data.NpzFormat;

/**
 * Where the training (and test) samples come from and how they are prepared: the files and
 * their format, a held-out fraction or test files, and feature scaling.
 *
 * @param format       the files' format
 * @param csv          column layout of {@link Format#CSV} files (label column, delimiter, header); null otherwise
 * @param libsvm       how {@link Format#LIBSVM} files are read (zero-based indices, feature count); null otherwise
 * @param npz          the arrays of an {@link Format#NPZ} file that hold features and labels; null otherwise
 * @param x            features (and labels, for CSV, LibSVM and npz)
 * @param y            labels of {@link Format#PAPER}, {@link Format#IDX} and {@link Format#NPY}; null for the others
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
public record DataSpec(Format format, CsvFormat.Layout csv, LibSvmFormat.Layout libsvm, NpzFormat.Names npz, Path x,
                       Path y, Path testX, Path testY, double testFraction, boolean standardize, long splitSeed,
                       Path valX, Path valY, double valFraction) {

    /** File formats. */
    public enum Format {
        /** The paper's X.in and y.in: one sample a line, features separated by spaces. */
        PAPER,
        /** IDX images and labels (MNIST, Fashion-MNIST), gzipped or not. */
        IDX,
        /** A CSV table holding features and the label column. */
        CSV,
        /** LibSVM's sparse {@code label index:value ...} lines. */
        LIBSVM,
        /** NumPy's .npy arrays: features (samples x features) and labels in a file each. */
        NPY,
        /** A NumPy .npz archive holding the features' and the labels' arrays. */
        NPZ;

        private static final String NAMES = "paper, idx, csv, libsvm, npy or npz";

        /** {@return the name, as on the command line ({@code csv})} */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@return whether labels are in a file of their own} */
        public boolean separateLabels() {
            return this == PAPER || this == IDX || this == NPY;
        }

        /**
         * The format a file's name suggests: {@code .csv} and {@code .tsv} CSV, {@code .npy} and
         * {@code .npz} NumPy's, {@code .svm}, {@code .libsvm} and {@code .svmlight} LibSVM,
         * {@code -idx3-ubyte} (any IDX dimension count, gzipped or not) and {@code .idx} IDX, any
         * other the paper's.
         *
         * @param file a data file, or null
         * @return the format its name suggests; the paper's for null
         */
        public static Format ofFileName(Path file) {
            String name = file == null || file.getFileName() == null ? ""
                : file.getFileName().toString().toLowerCase(Locale.ROOT);
            String bare = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
            if (name.endsWith(".csv") || name.endsWith(".tsv")) {
                return CSV;
            }
            if (name.endsWith(".npy") || name.endsWith(".npz")) {
                return name.endsWith(".npy") ? NPY : NPZ;
            }
            if (name.endsWith(".svm") || name.endsWith(".libsvm") || name.endsWith(".svmlight")) {
                return LIBSVM;
            }
            if (bare.matches(".*[-.]idx\\d-ubyte") || bare.endsWith(".idx")) {
                return IDX;
            }
            return PAPER;
        }

        /**
         * The format of this name.
         *
         * @param s {@code paper}, {@code idx}, {@code csv}, {@code libsvm}, {@code npy} or {@code npz}
         * @return the format
         * @throws SpecException for any other name
         */
        public static Format parse(String s) {
            for (Format f : values()) {
                if (f.label().equals(s)) {
                    return f;
                }
            }
            throw new SpecException("format", "must be " + NAMES + ", got '" + s + "'");
        }
    }

    /**
     * Checks that labels are where the format keeps them and that test samples come from one
     * place; a LibSVM or npz spec without its layout gets the default one.
     */
    public DataSpec {
        SpecException.check(format != null, "format", "must be " + Format.NAMES);
        libsvm = format == Format.LIBSVM && libsvm == null ? LibSvmFormat.Layout.DEFAULT : libsvm;
        npz = format == Format.NPZ && npz == null ? NpzFormat.Names.DEFAULT : npz;
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
     * A spec without validation samples.
     *
     * @param format       the files' format
     * @param csv          column layout of CSV files; null otherwise
     * @param libsvm       how LibSVM files are read, or null for the default
     * @param npz          the arrays of an npz file, or null for the default
     * @param x            features (and labels, for CSV, LibSVM and npz)
     * @param y            labels of the formats that keep them in a file of their own; null for the others
     * @param testX        test features in the same format, or null
     * @param testY        test labels, or null
     * @param testFraction fraction of the samples held out for testing, in [0, 1); 0 with test files
     * @param standardize  whether each feature is scaled to mean 0 and sd 1
     * @param splitSeed    seed of the train/test split
     */
    public DataSpec(Format format, CsvFormat.Layout csv, LibSvmFormat.Layout libsvm, NpzFormat.Names npz, Path x,
                    Path y, Path testX, Path testY, double testFraction, boolean standardize, long splitSeed) {
        this(format, csv, libsvm, npz, x, y, testX, testY, testFraction, standardize, splitSeed, null, null, 0);
    }

    /**
     * A spec with the default LibSVM and npz layouts.
     *
     * @param format       the files' format
     * @param csv          column layout of CSV files; null otherwise
     * @param x            features (and labels, for CSV, LibSVM and npz)
     * @param y            labels of the formats that keep them in a file of their own; null for the others
     * @param testX        test features in the same format, or null
     * @param testY        test labels, or null
     * @param testFraction fraction of the samples held out for testing, in [0, 1); 0 with test files
     * @param standardize  whether each feature is scaled to mean 0 and sd 1
     * @param splitSeed    seed of the train/test split
     */
    public DataSpec(Format format, CsvFormat.Layout csv, Path x, Path y, Path testX, Path testY, double testFraction,
                    boolean standardize, long splitSeed) {
        this(format, csv, null, null, x, y, testX, testY, testFraction, standardize, splitSeed);
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
