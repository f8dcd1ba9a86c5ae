package org.paratrain.data;

import java.nio.file.Path;
import java.util.Arrays;
import org.paratrain.io.Clip;

/**
 * The rows of a CSV file: numeric features, and labels still as text, with the line each
 * sample came from so that a label refused later still names its line.
 *
 * @param file     the file read
 * @param names    the column names (0-based indices when the file has no header)
 * @param label    the label's column, -1 when the file has none
 * @param x        features, row-major
 * @param labels   each sample's label, as written
 * @param lines    each sample's line in the file
 * @param columns  the feature columns read, in the order of the features
 * @param notes    what the reader did that a user should hear of (an index column dropped, columns ignored)
 * @param weights  each sample's weight, from the weights' column; null when the file has none
 */
public record CsvTable(Path file, String[] names, int label, double[] x, String[] labels, int[] lines,
                       int[] columns, java.util.List<String> notes, double[] weights) {

    /**
     * A table without sample weights, as before the weights' column existed.
     *
     * @param file    the file read
     * @param names   the header's names
     * @param label   the label's column
     * @param x       the features, row by row
     * @param labels  each sample's label as written
     * @param lines   each sample's line in the file
     * @param columns the feature columns read, in the order of the features
     * @param notes   what the reader did that a user should hear of
     */
    public CsvTable(Path file, String[] names, int label, double[] x, String[] labels, int[] lines, int[] columns,
                    java.util.List<String> notes) {
        this(file, names, label, x, labels, lines, columns, notes, null);
    }

    /** The number of samples. */
    int samples() {
        return labels.length;
    }

    /**
     * {@return the samples with their labels read as numbers: targets of a regression, or class indices}
     * @throws DataFormatException naming the line and column of a label that is not a finite number
     */
    public Dataset numeric() {
        double[] y = new double[labels.length];
        for (int i = 0; i < y.length; i++) {
            try {
                y[i] = TextLines.parse(labels[i].strip());
            } catch (NumberFormatException e) {
                y[i] = Double.NaN;
            }
            if (!Double.isFinite(y[i])) {
                throw new DataFormatException(file + ":" + lines[i] + ": label '" + Clip.value(labels[i]) + "' (column '"
                    + Clip.value(names[label]) + "') is not a number; a regression needs numeric targets");
            }
        }
        return dataset(y);
    }

    /**
     * {@return the samples with their labels mapped to the class indices of {@code classes}}
     * @param classes the names, from these labels or from a model file
     * @throws DataFormatException naming the line of a label that is no class of {@code classes}
     */
    public Dataset coded(ClassNames classes) {
        return dataset(classes.encode(labels, i -> file + ":" + lines[i]));
    }

    /** {@return the number of features: the columns read, the label's not among them} */
    public int features() {
        return columns.length;
    }

    /** {@return the names of the features, in their order: header names, or 0-based column indices} */
    public java.util.List<String> featureNames() {
        return java.util.Arrays.stream(columns).mapToObj(c -> names[c]).toList();
    }

    /** {@return the features alone, with zeros as labels, for prediction} */
    public Dataset unlabelled() {
        return dataset(new double[labels.length]);
    }

    private Dataset dataset(double[] y) {
        return new Dataset(x, y, y.length, features(), weights);
    }

    /** Collects rows, checking each as it comes. */
    static final class Builder {
        private final Path file;
        private final String[] names;
        private final int label;
        private final int weight;
        private final boolean header;
        private final int[] columns;
        private final java.util.List<String> notes;
        private final boolean[] used;
        private double[] x = new double[1024];
        private String[] labels = new String[256];
        private int[] lines = new int[256];
        private double[] weights;
        private int n;

        Builder(Path file, String[] names, int label, int weight, boolean header, int[] columns,
                java.util.List<String> notes) {
            this.file = file;
            this.names = names;
            this.label = label;
            this.weight = weight;
            this.weights = weight >= 0 ? new double[256] : null;
            this.header = header;
            this.columns = columns;
            this.notes = notes;
            this.used = new boolean[names.length];
            for (int c : columns) {
                used[c] = true;
            }
            if (label >= 0) {
                used[label] = true;
            }
            if (weight >= 0) {
                used[weight] = true;
            }
        }

        void add(String[] f, int line) {
            int cols = names.length;
            int d = columns.length;
            if (f.length != cols) {
                throw new DataFormatException(file + ":" + line + ": found " + f.length + " columns, expected " + cols
                    + (header ? " like the header" : " like the first row"));
            }
            if ((long) (n + 1) * d > x.length) {
                x = PaperFormat.grow(file, x, (long) (n + 1) * d);
            }
            if (n == labels.length) {
                labels = Arrays.copyOf(labels, n * 2);
                lines = Arrays.copyOf(lines, n * 2);
                weights = weights == null ? null : Arrays.copyOf(weights, n * 2);
            }
            for (int c = 0; c < cols; c++) {
                if (used[c] && CsvFormat.missing(f[c])) {
                    throw new DataFormatException(file + ":" + line + ": column " + (c + 1) + " ('"
                        + Clip.value(names[c]) + "') is " + (f[c].isBlank() ? "empty" : "'" + Clip.value(f[c]) + "'")
                        + ": a missing value; fill or drop it first");
                }
            }
            if (label >= 0) {
                labels[n] = f[label].strip();
            }
            for (int k = 0; k < d; k++) {
                x[n * d + k] = number(f[columns[k]], columns[k], line);
            }
            if (weight >= 0) {
                double w = number(f[weight], weight, line);
                if (w < 0) {
                    throw new DataFormatException(file + ":" + line + ": column " + (weight + 1) + " ('"
                        + Clip.value(names[weight]) + "') is '" + Clip.value(f[weight]) + "'; a sample weight must be "
                        + "at least 0");
                }
                weights[n] = w;
            }
            labels[n] = label >= 0 ? labels[n] : "";
            lines[n] = line;
            n++;
        }

        private double number(String field, int c, int line) {
            double v;
            try {
                v = TextLines.parse(field.strip());
            } catch (NumberFormatException e) {
                v = Double.NaN;
            }
            if (!Double.isFinite(v)) {
                throw new DataFormatException(file + ":" + line + ": column " + (c + 1) + " ('" + Clip.value(names[c])
                    + "') is '" + Clip.value(field) + "', expected a finite number");
            }
            return v;
        }

        CsvTable build() {
            if (n == 0) {
                throw new DataFormatException(file + ": no samples" + (header ? " after the header" : ""));
            }
            int d = columns.length;
            double[] w = weights == null ? null : Arrays.copyOf(weights, n);
            if (w != null && Arrays.stream(w).allMatch(v -> v == 0)) {
                throw new DataFormatException(file + ": every sample weight in column " + (weight + 1) + " ('"
                    + Clip.value(names[weight]) + "') is 0; nothing to train on");
            }
            return new CsvTable(file, names, label, Arrays.copyOf(x, n * d), Arrays.copyOf(labels, n),
                Arrays.copyOf(lines, n), columns, java.util.List.copyOf(notes), w);
        }
    }
}
