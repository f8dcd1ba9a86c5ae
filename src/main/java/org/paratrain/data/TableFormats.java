package org.paratrain.data;

import java.nio.file.Path;
import java.util.Arrays;
import org.paratrain.io.Clip;

/**
 * LibSVM ({@code label index:value ...}, 1-based indices, absent features zero; CSV is
 * {@link CsvFormat}). Strict as the paper's format: errors name file, line and what was
 * expected; NaN and infinities are refused.
 */
public final class TableFormats {
    /** Compiled once: {@code String.split} with a pattern compiles it again for every line. */
    private static final java.util.regex.Pattern WHITESPACE = java.util.regex.Pattern.compile("\\s+");

    private TableFormats() { }

    /** The shape of a LibSVM file, from a first pass that checks every index. */
    private record Shape(int samples, long maxIndex, int maxIndexLine) { }

    /**
     * Reads a LibSVM file in two passes: the first checks the indices and finds the shape, so
     * that the features are allocated once, at their size, and only after checking it fits.
     *
     * @param file     lines of {@code label index:value ...}, indices 1-based
     * @param features the number of features, or 0 to take the largest index seen
     * @return the samples, absent features 0
     * @throws DataFormatException naming the file and line of a repeated or too large
     *     index, a non-number, or data too large for the heap
     */
    public static Dataset libsvm(Path file, int features) {
        Shape shape = libsvmShape(file);
        long d = features > 0 ? features : Math.max(1, shape.maxIndex());
        if (shape.maxIndex() > d) {
            throw new DataFormatException(file + ":" + shape.maxIndexLine() + ": feature index " + shape.maxIndex()
                + " is beyond the " + d + " features");
        }
        String what = file + ": " + shape.samples() + " samples x " + d + " features (the largest index, at line "
            + shape.maxIndexLine() + ")";
        if (shape.samples() * d > HeapBudget.MAX_ARRAY) {
            throw new DataFormatException(what + " make " + shape.samples() * d + " values, more than one array "
                + "holds (" + HeapBudget.MAX_ARRAY + "); is the index a mistake?");
        }
        HeapBudget.require(8 * (shape.samples() * d + shape.samples()), what);
        int n = shape.samples();
        double[] x = new double[(int) (n * d)];
        double[] y = new double[n];
        try (TextLines in = TextLines.open(file)) {
            int row = 0;
            String line;
            while ((line = in.next()) != null) {
                String[] t = WHITESPACE.split(line.strip());
                if (t[0].isEmpty()) {
                    continue;
                }
                y[row] = in.number("label", t[0]);
                for (int k = 1; k < t.length; k++) {
                    int j = index(in, t[k]);
                    x[(int) (row * d) + j - 1] = in.number("feature " + j, t[k].substring(t[k].indexOf(':') + 1));
                }
                row++;
            }
        }
        return new Dataset(x, y, n, (int) d);
    }

    /** First pass: samples, the largest index and its line; refuses bad and repeated indices. */
    private static Shape libsvmShape(Path file) {
        try (TextLines in = TextLines.open(file)) {
            int n = 0;
            long max = 0;
            int maxLine = 0;
            String line;
            while ((line = in.next()) != null) {
                String[] t = WHITESPACE.split(line.strip());
                if (t[0].isEmpty()) {
                    continue;
                }
                n++;
                int[] indices = new int[t.length - 1];
                for (int k = 1; k < t.length; k++) {
                    indices[k - 1] = index(in, t[k]);
                    if (indices[k - 1] > max) {
                        max = indices[k - 1];
                        maxLine = in.line();
                    }
                }
                refuseRepeats(in, indices);
            }
            if (n == 0) {
                throw new DataFormatException(file + ": the file is empty; expected one 'label index:value ...' a line");
            }
            return new Shape(n, max, maxLine);
        }
    }

    /** A feature given twice in one row is a mistake in whatever wrote the file: one value would be lost. */
    private static void refuseRepeats(TextLines in, int[] indices) {
        int[] sorted = indices.clone();
        Arrays.sort(sorted);
        for (int k = 1; k < sorted.length; k++) {
            if (sorted[k] == sorted[k - 1]) {
                throw in.error("feature index " + sorted[k] + " appears more than once in the row");
            }
        }
    }

    private static int index(TextLines in, String token) {
        int colon = token.indexOf(':');
        String digits = token.substring(0, Math.max(0, colon));
        if (colon > 0 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (digits.length() > 10 || Long.parseLong(digits) > Integer.MAX_VALUE) {
                throw in.error("feature index " + Clip.value(digits) + " is too large (at most "
                    + Integer.MAX_VALUE + ")");
            }
            int j = Integer.parseInt(digits);
            if (j >= 1) {
                return j;
            }
        }
        throw in.error("'" + Clip.value(token) + "' is not index:value with an index >= 1");
    }
}
