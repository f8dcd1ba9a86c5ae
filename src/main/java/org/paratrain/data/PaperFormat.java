package org.paratrain.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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

    /** Reads X and y and checks that they agree in length. */
    public static Dataset read(Path xFile, Path yFile) {
        Matrix x = readMatrix(xFile, -1);
        Matrix y = readMatrix(yFile, 1);
        if (x.rows != y.rows) {
            throw new DataFormatException(xFile + " has " + x.rows + " samples but " + yFile + " has "
                + y.rows + " targets; expected one target per sample");
        }
        return new Dataset(x.values, y.values, x.rows, x.cols);
    }

    /** Number of samples in a paper-format file (non-blank lines), without keeping them. */
    public static int countSamples(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int n = 0;
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    n++;
                }
            }
            if (n == 0) {
                throw new DataFormatException(file + ": the file is empty; expected one sample a line");
            }
            return n;
        } catch (NoSuchFileException e) {
            throw new DataFormatException(file + ": no such file");
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + e.getMessage());
        }
    }

    /**
     * Reads only samples {@code [from, to)} of X and y, checking those lines as {@link #read}
     * does: what one rank of a large job keeps in memory. The files must hold {@code total}
     * samples each (see {@link #countSamples}).
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
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int sample = 0;
            int lineNo = 0;
            int cols = expectedCols;
            double[] values = null;
            int count = 0;
            String line;
            while (sample < to && (line = in.readLine()) != null) {
                lineNo++;
                String[] tokens = tokens(line);
                if (tokens.length == 0) {
                    continue;
                }
                if (cols < 0) {
                    cols = tokens.length;
                }
                if (sample >= from) {
                    if (tokens.length != cols) {
                        throw new DataFormatException(file + ":" + lineNo + ": found " + tokens.length
                            + " numbers, expected " + cols);
                    }
                    if (values == null) {
                        values = new double[(to - from) * cols];
                    }
                    for (int t = 0; t < cols; t++) {
                        values[count++] = number(file, lineNo, t + 1, tokens[t]);
                    }
                }
                sample++;
            }
            return new Matrix(values == null ? new double[0] : values, to - from, Math.max(cols, 1));
        } catch (NoSuchFileException e) {
            throw new DataFormatException(file + ": no such file");
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + e.getMessage());
        }
    }

    /** Reads features without targets (for predictions); targets are zeros. */
    public static Dataset readFeatures(Path xFile) {
        Matrix x = readMatrix(xFile, -1);
        return new Dataset(x.values, new double[x.rows], x.rows, x.cols);
    }

    /** Numbers read from a file, row-major. */
    record Matrix(double[] values, int rows, int cols) { }

    /** Reads rows of numbers; {@code expectedCols} of -1 takes the first line's count. */
    static Matrix readMatrix(Path file, int expectedCols) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(file, in, expectedCols);
        } catch (NoSuchFileException e) {
            throw new DataFormatException(file + ": no such file");
        } catch (java.nio.charset.MalformedInputException e) {
            throw new DataFormatException(file + ": not a text file (invalid UTF-8)");
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + e.getMessage());
        }
    }

    private static Matrix parse(Path file, BufferedReader in, int expectedCols) throws IOException {
        double[] values = new double[1024];
        int count = 0;
        int rows = 0;
        int cols = expectedCols;
        int lineNo = 0;
        int blankAt = 0;
        String line;
        while ((line = in.readLine()) != null) {
            lineNo++;
            String[] tokens = tokens(line);
            if (tokens.length == 0) {
                blankAt = blankAt == 0 ? lineNo : blankAt;
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
                throw new DataFormatException(file + ":" + lineNo + ": found " + tokens.length + " numbers, expected "
                    + cols + (expectedCols < 0 ? " like line 1" : ""));
            }
            if (count + cols > values.length) {
                values = Arrays.copyOf(values, Math.max(values.length * 2, count + cols));
            }
            for (int t = 0; t < cols; t++) {
                values[count++] = number(file, lineNo, t + 1, tokens[t]);
            }
            rows++;
        }
        if (rows == 0) {
            throw new DataFormatException(file + ": the file is empty; expected one sample a line");
        }
        return new Matrix(Arrays.copyOf(values, count), rows, cols);
    }

    private static String[] tokens(String line) {
        String s = line.strip();
        return s.isEmpty() ? new String[0] : s.split("[ \t]+");
    }

    private static double number(Path file, int line, int column, String token) {
        double v;
        try {
            v = Double.parseDouble(token);
        } catch (NumberFormatException e) {
            throw new DataFormatException(file + ":" + line + ": value " + column + " is '" + token
                + "', expected a number");
        }
        if (!Double.isFinite(v)) {
            throw new DataFormatException(file + ":" + line + ": value " + column + " is " + token
                + ", expected a finite number");
        }
        return v;
    }

    /** Writes {@code DIR/X.in} and {@code DIR/y.in}, each atomically. */
    public static void write(Dataset data, Path dir) {
        AtomicFiles.writeText(dir.resolve("X.in"), out -> writeRows(out, data.x(), data.samples(), data.features()));
        AtomicFiles.writeText(dir.resolve("y.in"), out -> writeRows(out, data.y(), data.samples(), 1));
    }

    /** Writes one value a line, atomically. */
    public static void writeColumn(double[] values, Path file) {
        AtomicFiles.writeText(file, out -> writeRows(out, values, values.length, 1));
    }

    private static void writeRows(Writer out, double[] values, int rows, int cols) throws IOException {
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
