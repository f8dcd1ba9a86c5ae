package org.paratrain.data;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.Arrays;
import org.paratrain.io.AtomicFiles;

/**
 * The paper's text format: {@code X.in} holds one sample a line, its features separated by
 * spaces or tabs; {@code y.in} holds one target a line.
 *
 * <p>Reading is strict, because a silently skipped line shifts every later sample against
 * its target: every line must hold the same number of finite numbers, both files the same
 * number of lines; blank lines are allowed only at the end. Errors name file and line.
 * Writing uses the shortest decimal that reads back to the same double
 * ({@link Double#toString}), so a write and a read lose no bit.
 */
public final class PaperFormat {
    private PaperFormat() { }

    /**
     * Reads X and y and checks that they agree in length.
     *
     * @param xFile features, one sample a line, numbers separated by spaces or tabs
     * @param yFile targets (or class labels), one a line
     * @return the samples, row-major
     * @throws DataFormatException naming the file and line of a ragged row, a non-number, NaN or
     *     infinity, or if the files differ in length
     */
    public static Dataset read(Path xFile, Path yFile) {
        Matrix x = readMatrix(xFile, -1);
        Matrix y = readMatrix(yFile, 1);
        if (x.rows != y.rows) {
            throw new DataFormatException(xFile + " has " + x.rows + " samples but " + yFile + " has "
                + y.rows + " targets; expected one target per sample");
        }
        return new Dataset(x.values, y.values, x.rows, x.cols);
    }

    /**
     * Counts the samples in a paper-format file (non-blank lines), without keeping them.
     *
     * @param file an X.in or y.in
     * @return the number of samples, at least 1
     * @throws DataFormatException if the file is empty or cannot be read as text
     */
    public static int countSamples(Path file) {
        try (TextLines in = TextLines.open(file)) {
            int n = 0;
            String line;
            while ((line = in.next()) != null) {
                if (!line.isBlank()) {
                    n++;
                }
            }
            if (n == 0) {
                throw new DataFormatException(file + ": the file is empty; expected one sample a line");
            }
            return n;
        }
    }

    /**
     * Reads only samples {@code [from, to)} of X and y, checking those lines as {@link #read}
     * does: what one rank of a large job keeps in memory. The files must hold {@code total}
     * samples each (see {@link #countSamples}).
     *
     * @param xFile features
     * @param yFile targets
     * @param from  first sample to keep
     * @param to    end of the samples to keep (exclusive); {@code from == to} gives a placeholder
     * @param total samples each file holds, as counted before
     * @return samples {@code [from, to)}
     * @throws DataFormatException if y does not hold {@code total} targets or a kept line is bad
     */
    public static Dataset readRange(Path xFile, Path yFile, int from, int to, int total) {
        int targets = countSamples(yFile);
        if (targets != total) {
            throw new DataFormatException(xFile + " has " + total + " samples but " + yFile + " has "
                + targets + " targets; expected one target per sample");
        }
        Matrix x = readLines(xFile, -1, from, to);
        Matrix y = readLines(yFile, 1, from, to);
        return from == to ? Dataset.placeholder(x.cols) : new Dataset(x.values, y.values, to - from, x.cols);
    }

    private static Matrix readLines(Path file, int expectedCols, int from, int to) {
        try (TextLines in = TextLines.open(file)) {
            int sample = 0;
            int cols = expectedCols;
            double[] values = null;
            int count = 0;
            String line;
            while (sample < to && (line = in.next()) != null) {
                String[] tokens = tokens(line);
                if (tokens.length == 0) {
                    continue;
                }
                if (cols < 0) {
                    cols = tokens.length;
                }
                if (sample >= from) {
                    if (tokens.length != cols) {
                        throw in.error("found " + tokens.length + " numbers, expected " + cols);
                    }
                    if (values == null) {
                        long n = (long) (to - from) * cols;
                        checkSize(file, n);
                        HeapBudget.require(8 * n, file + ": " + (to - from) + " samples x " + cols + " values");
                        values = new double[(int) n];
                    }
                    for (int t = 0; t < cols; t++) {
                        values[count++] = in.number("value " + (t + 1), tokens[t]);
                    }
                }
                sample++;
            }
            return new Matrix(values == null ? new double[0] : values, to - from, Math.max(cols, 1));
        }
    }

    /**
     * Reads features without targets, for predictions.
     *
     * @param xFile features, one sample a line
     * @return the samples, with zeros as targets
     * @throws DataFormatException naming the file and line of a bad row
     */
    public static Dataset readFeatures(Path xFile) {
        Matrix x = readMatrix(xFile, -1);
        return new Dataset(x.values, new double[x.rows], x.rows, x.cols);
    }

    /** Numbers read from a file, row-major. */
    record Matrix(double[] values, int rows, int cols) { }

    /** Reads rows of numbers; {@code expectedCols} of -1 takes the first line's count. */
    static Matrix readMatrix(Path file, int expectedCols) {
        try (TextLines in = TextLines.open(file)) {
            return parse(file, in, expectedCols);
        }
    }

    private static Matrix parse(Path file, TextLines in, int expectedCols) {
        double[] values = new double[1024];
        int count = 0;
        int rows = 0;
        int cols = expectedCols;
        int blankAt = 0;
        String line;
        while ((line = in.next()) != null) {
            String[] tokens = tokens(line);
            if (tokens.length == 0) {
                blankAt = blankAt == 0 ? in.line() : blankAt;
                continue;
            }
            if (blankAt != 0) {
                throw new DataFormatException(file + ":" + blankAt + ": blank line before the end of the file;"
                    + " expected one sample a line");
            }
            if (cols < 0) {
                cols = tokens.length;
            }
            if (tokens.length != cols) {
                throw in.error("found " + tokens.length + " numbers, expected " + cols
                    + (expectedCols < 0 ? " like line 1" : ""));
            }
            if (count + cols > values.length) {
                values = grow(file, values, (long) count + cols);
            }
            for (int t = 0; t < cols; t++) {
                values[count++] = in.number("value " + (t + 1), tokens[t]);
            }
            rows++;
        }
        if (rows == 0) {
            throw new DataFormatException(file + ": the file is empty; expected one sample a line");
        }
        return new Matrix(Arrays.copyOf(values, count), rows, cols);
    }

    /** A larger copy of {@code values} that holds at least {@code needed}: doubled, up to the largest array. */
    static double[] grow(Path file, double[] values, long needed) {
        checkSize(file, needed);
        int size = (int) Math.min(HeapBudget.MAX_ARRAY, Math.max(2L * values.length, needed));
        HeapBudget.require(8L * size, file + ": the first " + needed + " values");
        return Arrays.copyOf(values, size);
    }

    /** Refuses more values than one Java array holds (a little under 2^31). */
    static void checkSize(Path file, long values) {
        if (values > HeapBudget.MAX_ARRAY) {
            throw new DataFormatException(file + ": more than " + HeapBudget.MAX_ARRAY + " values, more than one "
                + "array holds; split the data or use fewer features");
        }
    }

    /**
     * The line's numbers: what lies between runs of spaces and tabs, after stripping the ends.
     * A scan rather than {@code split("[ \t]+")}, which compiles that pattern again for every
     * line: on 20,000 x 10 it made reading 3 times slower, and the JIT was still compiling the
     * regular-expression code well into the training that followed.
     */
    static String[] tokens(String line) {
        String s = line.strip();
        int n = s.length();
        if (n == 0) {
            return NONE;
        }
        int count = 1;
        for (int i = 0; i < n; i++) {
            if (separator(s.charAt(i)) && !separator(s.charAt(i + 1))) {
                count++;        // a run of separators ends at i; strip() left no separator at the end
            }
        }
        String[] out = new String[count];
        int k = 0;
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || separator(s.charAt(i))) {
                if (i > start) {
                    out[k++] = s.substring(start, i);
                }
                start = i + 1;
            }
        }
        return out;
    }

    private static final String[] NONE = new String[0];

    private static boolean separator(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * Writes {@code DIR/X.in} and {@code DIR/y.in}, each atomically, as numbers that read back
     * to the same bits.
     *
     * @param data the samples
     * @param dir  the directory, made if missing
     */
    public static void write(Dataset data, Path dir) {
        AtomicFiles.writeText(dir.resolve("X.in"), out -> writeRows(out, data.x(), data.samples(), data.features()));
        AtomicFiles.writeText(dir.resolve("y.in"), out -> writeRows(out, data.y(), data.samples(), 1));
    }

    /**
     * Writes one value a line, atomically (e.g. coef.txt).
     *
     * @param values the numbers
     * @param file   the file to write or replace
     */
    public static void writeColumn(double[] values, Path file) {
        AtomicFiles.writeText(file, out -> writeRows(out, values, values.length, 1));
    }

    /**
     * Writes a matrix, one row a line, values separated by spaces, each as the shortest decimal
     * that reads back to the same double.
     *
     * @param out    where the text goes
     * @param values the matrix, row-major
     * @param rows   rows to write
     * @param cols   values a row
     * @throws IOException if {@code out} fails
     */
    public static void writeRows(Writer out, double[] values, int rows, int cols) throws IOException {
        StringBuilder sb = new StringBuilder(32 * cols);
        for (int i = 0; i < rows; i++) {
            sb.setLength(0);
            for (int j = 0; j < cols; j++) {
                if (j > 0) {
                    sb.append(' ');
                }
                sb.append(values[i * cols + j]);
            }
            sb.append('\n');
            out.append(sb);
        }
    }
}
