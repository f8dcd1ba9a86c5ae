package org.paratrain.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * CSV (a header line, one sample a line, one column the label) and LibSVM ({@code label
 * index:value ...}, 1-based indices, absent features zero). Strict as the paper's format:
 * errors name file, line and what was expected; NaN and infinities are refused.
 */
public final class TableFormats {
    private TableFormats() { }

    /**
     * Reads a CSV file whose first line names the columns.
     *
     * @param label the label column: a name from the header, or a 0-based index; null for the last
     */
    public static Dataset csv(Path file, String label) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null || header.isBlank()) {
                throw new DataFormatException(file + ": the file is empty; expected a header line naming the columns");
            }
            String[] names = header.split(",", -1);
            int cols = names.length;
            int lab = labelColumn(file, names, label);
            double[] x = new double[1024];
            double[] y = new double[256];
            int n = 0;
            String line;
            int lineNo = 1;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split(",", -1);
                if (f.length != cols) {
                    throw new DataFormatException(file + ":" + lineNo + ": found " + f.length + " columns, expected "
                        + cols + " like the header");
                }
                if ((long) (n + 1) * (cols - 1) > x.length) {
                    x = Arrays.copyOf(x, Math.max(x.length * 2, (n + 1) * (cols - 1)));
                }
                if (n == y.length) {
                    y = Arrays.copyOf(y, y.length * 2);
                }
                int k = 0;
                for (int c = 0; c < cols; c++) {
                    double v = number(file, lineNo, names[c].strip(), f[c].strip());
                    if (c == lab) {
                        y[n] = v;
                    } else {
                        x[n * (cols - 1) + k++] = v;
                    }
                }
                n++;
            }
            if (n == 0) {
                throw new DataFormatException(file + ": no samples after the header");
            }
            if (cols < 2) {
                throw new DataFormatException(file + ": only the label column; expected features too");
            }
            return new Dataset(Arrays.copyOf(x, n * (cols - 1)), Arrays.copyOf(y, n), n, cols - 1);
        } catch (NoSuchFileException e) {
            throw new DataFormatException(file + ": no such file");
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + e.getMessage());
        }
    }

    private static int labelColumn(Path file, String[] names, String label) {
        if (label == null) {
            return names.length - 1;
        }
        for (int c = 0; c < names.length; c++) {
            if (names[c].strip().equals(label)) {
                return c;
            }
        }
        try {
            int c = Integer.parseInt(label);
            if (c >= 0 && c < names.length) {
                return c;
            }
        } catch (NumberFormatException e) {
            // Not an index either: reported below.
        }
        throw new DataFormatException(file + ": --label '" + label + "' is neither a column of the header "
            + Arrays.toString(names) + " nor an index below " + names.length);
    }

    /**
     * Reads a LibSVM file.
     *
     * @param features the number of features, or 0 to take the largest index seen
     */
    public static Dataset libsvm(Path file, int features) {
        try {
            java.util.List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            int max = 0;
            int n = 0;
            for (int i = 0; i < lines.size(); i++) {
                String[] t = lines.get(i).strip().split("\\s+");
                if (t.length == 0 || t[0].isEmpty()) {
                    continue;
                }
                n++;
                for (int k = 1; k < t.length; k++) {
                    max = Math.max(max, index(file, i + 1, t[k]));
                }
            }
            if (n == 0) {
                throw new DataFormatException(file + ": the file is empty; expected one 'label index:value ...' a line");
            }
            int d = features > 0 ? features : Math.max(1, max);
            if (max > d) {
                throw new DataFormatException(file + ": feature index " + max + " is beyond --features " + d);
            }
            double[] x = new double[n * d];
            double[] y = new double[n];
            int row = 0;
            for (int i = 0; i < lines.size(); i++) {
                String[] t = lines.get(i).strip().split("\\s+");
                if (t.length == 0 || t[0].isEmpty()) {
                    continue;
                }
                y[row] = number(file, i + 1, "label", t[0]);
                for (int k = 1; k < t.length; k++) {
                    int j = index(file, i + 1, t[k]);
                    x[row * d + j - 1] = number(file, i + 1, "feature " + j, t[k].substring(t[k].indexOf(':') + 1));
                }
                row++;
            }
            return new Dataset(x, y, n, d);
        } catch (NoSuchFileException e) {
            throw new DataFormatException(file + ": no such file");
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + e.getMessage());
        }
    }

    private static int index(Path file, int line, String token) {
        int colon = token.indexOf(':');
        try {
            int j = Integer.parseInt(token.substring(0, Math.max(0, colon)));
            if (colon > 0 && j >= 1) {
                return j;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        throw new DataFormatException(file + ":" + line + ": '" + token + "' is not index:value with an index >= 1");
    }

    private static double number(Path file, int line, String what, String token) {
        double v;
        try {
            v = Double.parseDouble(token);
        } catch (NumberFormatException e) {
            throw new DataFormatException(file + ":" + line + ": " + what + " is '" + token + "', expected a number");
        }
        if (!Double.isFinite(v)) {
            throw new DataFormatException(file + ":" + line + ": " + what + " is " + token + ", expected a finite number");
        }
        return v;
    }
}
