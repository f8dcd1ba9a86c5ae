package org.paratrain.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The IDX format of MNIST and Fashion-MNIST, gzipped or not: a magic number (two zero bytes,
 * the element type, the number of dimensions), the dimensions as big-endian ints, then the
 * elements. Images (unsigned bytes, n x rows x cols) become n samples of rows*cols features
 * scaled to [0, 1]; labels (unsigned bytes, n) become the targets.
 */
public final class IdxFormat {
    private static final int UNSIGNED_BYTE = 0x08;
    /** What a pixel byte is divided by on reading, so that the features lie in [0, 1]. */
    public static final double PIXEL_SCALE = 255.0;

    private IdxFormat() { }

    /**
     * Reads images and labels and checks they agree in count.
     *
     * @param images an IDX file of unsigned bytes, n x rows x cols (gzipped or not)
     * @param labels an IDX file of n unsigned-byte labels
     * @return n samples of rows*cols features in [0, 1], the labels as targets
     * @throws DataFormatException naming the file, for a bad header, a size the file does not
     *     hold or counts that differ
     */
    public static Dataset read(Path images, Path labels) {
        return readRange(images, labels, 0, count(images));
    }

    /**
     * {@return the number of items (images or labels) in an IDX file, read from its header}
     * @param file an IDX file, gzipped or not
     * @throws DataFormatException if the header is not IDX or announces a size the file does not hold
     */
    public static int count(Path file) {
        return readArray(file, 0, 0).dims[0];
    }

    /**
     * {@return the shape of one item of an IDX file, from its header: {@code rows, cols} for
     * images of one channel ({@code 28, 28} for MNIST), {@code rows, cols, channels} for more}
     * @param file an IDX file, gzipped or not
     * @throws DataFormatException if the header is not IDX or announces a size the file does not hold
     */
    public static int[] itemShape(Path file) {
        int[] dims = readArray(file, 0, 0).dims;
        return java.util.Arrays.copyOfRange(dims, 1, dims.length);
    }

    /**
     * Reads only items {@code [from, to)} of images and labels: what one rank of a large job keeps.
     *
     * @param images an IDX file of images
     * @param labels an IDX file of labels
     * @param from   first item to keep
     * @param to     end of the items to keep (exclusive); {@code from == to} gives a placeholder
     * @return the kept samples
     * @throws DataFormatException naming the file, as {@link #read} does
     */
    public static Dataset readRange(Path images, Path labels, int from, int to) {
        // The images, then the labels' header: a mismatch between the files is reported as such.
        Array img = readArray(images, from, to);
        int[] imgDims = img.dims;
        int[] labDims = readArray(labels, 0, 0).dims;
        if (labDims.length != 1) {
            throw new DataFormatException(labels + ": expected a one-dimensional IDX array of labels, found "
                + labDims.length + " dimensions");
        }
        if (imgDims[0] != labDims[0]) {
            throw new DataFormatException(images + " holds " + imgDims[0] + " images but " + labels + " holds "
                + labDims[0] + " labels; expected one label per image");
        }
        Array lab = readArray(labels, from, to);
        int n = to - from;
        int features = itemSize(img.dims);
        if (n == 0) {
            return Dataset.placeholder(features);
        }
        double[] x = new double[img.values.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = (img.values[i] & 0xff) / PIXEL_SCALE;
        }
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            y[i] = lab.values[i] & 0xff;
        }
        return new Dataset(x, y, n, features);
    }

    /**
     * Reads the images of an IDX file alone, for prediction: every target is 0.
     *
     * @param images an IDX file of unsigned bytes, gzipped or not
     * @return its n images as samples of rows*cols features in [0, 1]
     * @throws DataFormatException naming the file, as {@link #read} does
     */
    public static Dataset readImages(Path images) {
        Array img = readArray(images, 0, count(images));
        int n = img.dims[0];
        int features = itemSize(img.dims);
        if (n == 0) {
            throw new DataFormatException(images + ": holds no images");
        }
        double[] x = new double[img.values.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = (img.values[i] & 0xff) / PIXEL_SCALE;
        }
        return new Dataset(x, new double[n], n, features);
    }

    /** Values per item: the product of every dimension but the first (checked by {@link #header} to fit). */
    private static int itemSize(int[] dims) {
        int s = 1;
        for (int d = 1; d < dims.length; d++) {
            s *= dims[d];
        }
        return s;
    }

    private record Array(int[] dims, byte[] values) { }

    /** Reads the header and items {@code [from, to)}, skipping the others. */
    private static Array readArray(Path file, int from, int to) {
        if (Files.isDirectory(file)) {
            throw new DataFormatException(file + ": is a directory, expected an IDX file");
        }
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            raw.mark(2);
            boolean gz = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            DataInputStream in = new DataInputStream(gz ? new GZIPInputStream(raw, 1 << 16) : raw);
            int[] dims = header(file, in);
            int item = itemSize(dims);
            if (from < 0 || to > dims[0] || from > to) {
                throw new DataFormatException(file + ": items [" + from + ", " + to + ") are outside its " + dims[0]);
            }
            long bytes = (long) (to - from) * item;
            // The bytes, and the doubles they become.
            HeapBudget.require(9 * bytes, file + ": " + (to - from) + " items of " + item + " values");
            in.skipNBytes((long) from * item);
            byte[] values = new byte[(int) bytes];
            try {
                in.readFully(values);
            } catch (EOFException e) {
                throw new DataFormatException(file + ": the file ends before the data its header announces ("
                    + dims[0] + " items of " + item + " bytes" + (gz ? ", uncompressed" : "") + ")");
            }
            if (to == dims[0] && in.read() != -1) {
                throw new DataFormatException(file + ": bytes after the " + dims[0] + " items of " + item
                    + " its header announces; the header and the data disagree");
            }
            return new Array(dims, values);
        } catch (EOFException e) {
            throw new DataFormatException(file + ": the file ends before the data its header announces");
        } catch (java.util.zip.ZipException e) {
            throw new DataFormatException(file + ": not a valid gzip file (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw TextLines.failure(file, e);
        }
    }

    /**
     * The dimensions, checked: every one at least 1 and their product small enough for one
     * array. The product is formed in steps that stop before a long could overflow (four
     * dimensions of 2^31 would).
     */
    private static int[] header(Path file, DataInputStream in) throws IOException {
        int magic;
        try {
            magic = in.readInt();
        } catch (EOFException e) {
            throw new DataFormatException(file + ": too short for an IDX header (expected at least 4 bytes)");
        }
        int type = (magic >>> 8) & 0xff;
        int ndims = magic & 0xff;
        if ((magic >>> 16) != 0 || type != UNSIGNED_BYTE || ndims < 1 || ndims > 4) {
            throw new DataFormatException(file + ": not an IDX file of unsigned bytes (magic number 0x"
                + Integer.toHexString(magic) + ", expected 0x0000080N with N from 1 to 4)");
        }
        int[] dims = new int[ndims];
        long total = 1;
        for (int d = 0; d < ndims; d++) {
            try {
                dims[d] = in.readInt();
            } catch (EOFException e) {
                throw new DataFormatException(file + ": the file ends inside its IDX header (" + ndims
                    + " dimensions announced)");
            }
            if (dims[d] < 1) {
                throw new DataFormatException(file + ": IDX dimension " + (d + 1) + " of " + ndims + " is "
                    + dims[d] + "; expected every dimension to be at least 1");
            }
            total *= dims[d];
            if (total > HeapBudget.MAX_ARRAY) {
                throw new DataFormatException(file + ": IDX dimensions " + java.util.Arrays.toString(
                    java.util.Arrays.copyOf(dims, d + 1)) + (d + 1 < ndims ? "..." : "") + " make more values than "
                    + "one array holds (" + HeapBudget.MAX_ARRAY + ")");
            }
        }
        return dims;
    }
}
