package org.paratrain.data;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * NumPy's {@code .npy} arrays ({@code numpy.save}): features from a 2-D array of samples x
 * features, labels from a 1-D array (or one of n x 1), in separate files. The header is
 * {@link NpyHeader}; the elements may be float16, float32 or float64, signed or unsigned
 * integers of 1, 2, 4 or 8 bytes or bools (0 and 1), in either byte order and in C (row-major)
 * or Fortran (column-major) order. Every element becomes the double numpy's
 * {@code astype(np.float64)} makes of it (uint64 and int64 rounded to the nearest double, as
 * C's conversion does), so data read from any format holds the same bits.
 *
 * <p>Strict as the text formats: a 1-D array of features (scikit-learn refuses one too: is it
 * one feature a sample, or one sample?), counts that differ, a file that ends early or goes
 * on after its data, and NaN or infinities are errors naming the file and the element
 * ({@code [row, column]}, counted from 0 as numpy indexes them). {@code .npz} archives of such
 * arrays are {@link NpzFormat}.
 */
public final class NpyFormat {
    /** Elements converted a chunk at a time: large enough to stream, small enough to stay in cache. */
    private static final int CHUNK = 1 << 15;

    private NpyFormat() { }

    /** What an array is read for: features must be 2-D; labels 1-D or n x 1. */
    enum Role { FEATURES, LABELS }

    /**
     * An array read as doubles, in row-major order.
     *
     * @param values the elements, {@code rows * cols}, row-major
     * @param rows   samples
     * @param cols   features a sample (1 for labels)
     */
    record Matrix(double[] values, int rows, int cols) { }

    /**
     * Reads features and labels and checks they agree in count.
     *
     * @param x a .npy file of samples x features
     * @param y a .npy file of one label (or target) a sample
     * @return the samples
     * @throws DataFormatException naming the file, for a header that is not .npy, a type that is
     *     not a number, a shape that does not fit, data cut short or not finite
     */
    public static Dataset read(Path x, Path y) {
        Matrix f = read(x, Role.FEATURES);
        Matrix l = read(y, Role.LABELS);
        return dataset(f, l, x.toString(), y.toString());
    }

    /**
     * Reads features alone, for prediction: every target is 0.
     *
     * @param x a .npy file of samples x features
     * @return the samples
     * @throws DataFormatException naming the file, as {@link #read(Path, Path)} does
     */
    public static Dataset readFeatures(Path x) {
        Matrix f = read(x, Role.FEATURES);
        return new Dataset(f.values(), new double[f.rows()], f.rows(), f.cols());
    }

    /** Features and labels as a data set, after checking there is one label a sample. */
    static Dataset dataset(Matrix f, Matrix l, String features, String labels) {
        if (f.rows() != l.rows()) {
            throw new DataFormatException(labels + ": " + l.rows() + " labels, but " + features + " holds " + f.rows()
                + " samples; expected one label a sample");
        }
        return new Dataset(f.values(), l.values(), f.rows(), f.cols());
    }

    /** Reads one array from a .npy file. */
    static Matrix read(Path file, Role role) {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return read(in, Files.size(file), file.toString(), role);
        } catch (IOException e) {
            throw TextLines.failure(file, e);
        }
    }

    /**
     * Reads one array from {@code in}.
     *
     * @param in    the array's bytes, header first
     * @param size  the number of bytes the array holds, header included, or -1 if unknown
     * @param where the file (and array) for messages
     * @param role  features or labels, which decides the shapes accepted
     * @return the elements as doubles, row-major
     * @throws IOException if reading fails
     */
    static Matrix read(InputStream in, long size, String where, Role role) throws IOException {
        NpyHeader h = NpyHeader.read(in, where);
        long[] s = h.shape();
        boolean labels = role == Role.LABELS;
        if (labels ? s.length != 1 && !(s.length == 2 && s[1] == 1) : s.length != 2) {
            throw new DataFormatException(where + ": " + shapeProblem(h, labels));
        }
        long rows = s[0];
        long cols = labels ? 1 : s[1];
        if (rows == 0 || cols == 0) {
            throw new DataFormatException(where + ": holds no " + (rows == 0 ? "samples" : "features") + " (shape "
                + h.shapeText() + ")");
        }
        String what = where + ": " + rows + (labels ? " labels" : " samples x " + cols + " features") + " of "
            + h.dtype().descr();
        if (rows > Integer.MAX_VALUE || cols > HeapBudget.MAX_ARRAY || rows * cols > HeapBudget.MAX_ARRAY) {
            throw new DataFormatException(what + " make more values than one array holds (" + HeapBudget.MAX_ARRAY
                + ")");
        }
        long data = rows * cols * h.dtype().size();
        if (size >= 0 && size - h.bytes() != data) {
            throw new DataFormatException(where + ": " + (size - h.bytes() < data ? "ends after " + (size - h.bytes())
                + " of the " + data + " bytes of data its header announces" : "holds " + (size - h.bytes() - data)
                + " bytes after the " + data + " bytes of data its header announces; expected it to end there")
                + " (shape " + h.shapeText() + ", dtype '" + h.dtype().descr() + "')");
        }
        HeapBudget.require(8 * rows * cols, what);
        double[] v = new double[(int) (rows * cols)];
        elements(in, h, (int) rows, (int) cols, v, where);
        if (size < 0 && in.read() >= 0) {
            throw new DataFormatException(where + ": goes on after the " + data + " bytes of data its header "
                + "announces (shape " + h.shapeText() + "); expected it to end there");
        }
        return new Matrix(v, (int) rows, (int) cols);
    }

    private static String shapeProblem(NpyHeader h, boolean labels) {
        long[] s = h.shape();
        if (labels) {
            return "labels of shape " + h.shapeText() + "; expected one label a sample, a 1-D array (or n x 1)";
        }
        if (s.length == 1) {
            return "a 1-D array of " + s[0] + " values; expected 2-D samples x features (save X.reshape(-1, 1) for one "
                + "feature a sample, X.reshape(1, -1) for one sample)";
        }
        return (s.length == 0 ? "a scalar" : "an array of shape " + h.shapeText()) + "; expected 2-D samples x "
            + "features" + (s.length > 2 ? " (save X.reshape(len(X), -1) to make each sample one row)" : "");
    }

    /** Reads the elements in chunks, converts them and puts them in row-major order, refusing NaN and infinities. */
    private static void elements(InputStream in, NpyHeader h, int rows, int cols, double[] v, String where)
        throws IOException {
        NpyHeader.Dtype t = h.dtype();
        byte[] raw = new byte[CHUNK * t.size()];
        double[] chunk = new double[CHUNK];
        long total = (long) rows * cols;
        for (long p = 0; p < total; p += CHUNK) {
            int n = (int) Math.min(CHUNK, total - p);
            int got = in.readNBytes(raw, 0, n * t.size());
            if (got < n * t.size()) {
                throw new DataFormatException(where + ": ends after " + (p * t.size() + got) + " of the " + total
                    * t.size() + " bytes of data its header announces (shape " + h.shapeText() + "); is it cut short?");
            }
            convert(ByteBuffer.wrap(raw, 0, n * t.size()).order(t.order()), t, chunk, n);
            for (int k = 0; k < n; k++) {
                if (!Double.isFinite(chunk[k])) {
                    throw notFinite(h, p + k, rows, cols, chunk[k], where);
                }
            }
            if (!h.fortran()) {
                System.arraycopy(chunk, 0, v, (int) p, n);
                continue;
            }
            for (int k = 0; k < n; k++) {
                long q = p + k;          // [q % rows, q / rows] in column-major order
                v[(int) (q % rows) * cols + (int) (q / rows)] = chunk[k];
            }
        }
    }

    /** The error for element {@code q} (in file order) that is not finite, naming it as numpy indexes it. */
    private static DataFormatException notFinite(NpyHeader h, long q, int rows, int cols, double value, String where) {
        int i = (int) (h.fortran() ? q % rows : q / cols);
        int j = (int) (h.fortran() ? q / rows : q % cols);
        String index = h.shape().length == 1 ? "[" + i + "] (row " + i : "[" + i + ", " + j + "] (row " + i
            + ", column " + j;
        return new DataFormatException(where + ": value " + index + ", counted from 0) is " + numpy(value)
            + ", expected a finite number");
    }

    private static String numpy(double v) {
        return Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
    }

    /** {@code n} elements of type {@code t} from {@code b} as doubles, the values numpy's astype(float64) gives. */
    private static void convert(ByteBuffer b, NpyHeader.Dtype t, double[] out, int n) {
        switch (t.kind()) {
            case FLOAT -> {
                for (int k = 0; k < n; k++) {
                    out[k] = switch (t.size()) {
                        case 2 -> Float.float16ToFloat(b.getShort());
                        case 4 -> b.getFloat();
                        default -> b.getDouble();
                    };
                }
            }
            case SIGNED -> {
                for (int k = 0; k < n; k++) {
                    out[k] = switch (t.size()) {
                        case 1 -> b.get();
                        case 2 -> b.getShort();
                        case 4 -> b.getInt();
                        default -> (double) b.getLong();
                    };
                }
            }
            case UNSIGNED -> {
                for (int k = 0; k < n; k++) {
                    out[k] = switch (t.size()) {
                        case 1 -> b.get() & 0xff;
                        case 2 -> b.getShort() & 0xffff;
                        case 4 -> b.getInt() & 0xffffffffL;
                        default -> unsigned(b.getLong());
                    };
                }
            }
            case BOOL -> {
                for (int k = 0; k < n; k++) {
                    out[k] = b.get() != 0 ? 1 : 0;
                }
            }
        }
    }

    /**
     * The double nearest to an unsigned 64-bit value. Above 2^63 it is halved first, keeping the
     * lowest bit as a sticky bit so that the one rounding is still to nearest, ties to even.
     */
    static double unsigned(long u) {
        if (u >= 0) {
            return u;
        }
        return ((double) (u >>> 1 | (u & 1))) * 2.0;
    }
}
