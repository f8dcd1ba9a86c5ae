package org.paratrain.cli;

import static org.paratrain.cli.BadInput.bad;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.paratrain.cli.BadInput.Case;

/**
 * {@link BadFileInputTest}'s NumPy cases (.npy and .npz files broken in the ways they break, written
 * here byte by byte so that the cases need no numpy) and {@link BadOptionInputTest}'s options of the
 * data formats that cannot work or would be ignored.
 */
final class BadInputArrays {
    /** BadInput's 20 x 2 samples and targets, as numpy.save writes them. */
    static final byte[] X_NPY = npy("'<f8'", "(20, 2)", BadInput.X);
    static final byte[] Y_NPY = npy("'<f8'", "(20,)", BadInput.Y);
    static final byte[] NPZ = npz("X", X_NPY, "y", Y_NPY);

    private BadInputArrays() { }

    /** .npy files of features and labels. */
    static void npyFiles(List<Case> c) {
        String[] npy = {"train", "--x", "@X.npy", "--y", "@y.npy", "--epochs", "3", "--lr", "0.01"};
        c.add(bad("npy NaN", 1, "X.npy|[13, 1]|nan", npy).file("X.npy", npy("'<f8'", "(20, 2)",
            BadInput.X.replaceFirst("3 1\n", "3 NaN\n"))));
        c.add(bad("npy label inf", 1, "y.npy|[5]|inf", npy).file("y.npy", npy("'<f8'", "(20,)",
            BadInput.Y.replaceFirst("(?s)((?:[^\n]*\n){5})[^\n]*", "$1Infinity"))));
        c.add(bad("npy cut short", 1, "X.npy|ends after 312 of the 320 bytes", npy).file("X.npy",
            Arrays.copyOf(X_NPY, X_NPY.length - 8)));
        c.add(bad("npy bytes after the data", 1, "X.npy|4 bytes after", npy).file("X.npy",
            Arrays.copyOf(X_NPY, X_NPY.length + 4)));
        c.add(bad("npy header cut short", 1, "X.npy|inside its .npy header", npy).file("X.npy",
            Arrays.copyOf(X_NPY, 30)));
        c.add(bad("npy features 1-D", 1, "X.npy|1-D|reshape", npy).file("X.npy", npy("'<f8'", "(40,)",
            BadInput.X)));
        c.add(bad("npy features 3-D", 1, "X.npy|(20, 2, 1)", npy).file("X.npy", npy("'<f8'", "(20, 2, 1)",
            BadInput.X)));
        c.add(bad("npy labels 2-D", 1, "y.npy|labels of shape (10, 2)", npy).file("y.npy", npy("'<f8'", "(10, 2)",
            BadInput.Y)));
        c.add(bad("npy objects", 1, "X.npy|Python objects", npy).file("X.npy", header("'|O'", "(20, 2)", 0)));
        c.add(bad("npy strings", 1, "X.npy|strings", npy).file("X.npy", header("'<U3'", "(20, 2)", 0)));
        c.add(bad("npy complex", 1, "X.npy|complex", npy).file("X.npy", header("'<c16'", "(20, 2)", 0)));
        c.add(bad("npy structured", 1, "X.npy|structured", npy).file("X.npy", header("[('a', '<f8')]", "(20,)", 0)));
        c.add(bad("npy counts differ", 1, "y.npy|19 labels|20 samples", npy).file("y.npy", npy("'<f8'", "(19,)",
            BadInput.Y.substring(0, BadInput.Y.lastIndexOf('\n', BadInput.Y.length() - 2) + 1))));
        c.add(bad("npy text file", 1, "X.npy|not a NumPy", npy).file("X.npy", BadInput.X));
        c.add(bad("npy version 4", 1, "X.npy|version 4", npy).file("X.npy", version(X_NPY, 4)));
        c.add(bad("npy header not a dict", 1, "X.npy|dict", npy).file("X.npy", header("", "(20, 2)", 0)));
        c.add(bad("npy shape beyond an array", 1, "X.npy|more values than one array", npy).file("X.npy",
            header("'<f8'", "(3000000000, 2)", 0)));
        c.add(bad("npy shape whose product overflows", 1, "X.npy|more values than one array", npy).file("X.npy",
            header("'<f8'", "(4, 4611686018427387904)", 0)));
        c.add(bad("npy without labels", 2, "--labels|npy", "train", "--x", "@X.npy", "--epochs", "3"));
        c.add(bad("predict on npy NaN", 1, "X.npy|[0, 0]", "predict", "--model-file", "@model.json", "--x", "@X.npy",
            "--out", "@p.txt").file("X.npy", npy("'<f8'", "(20, 2)", "NaN" + BadInput.X.substring(1))));
    }

    /** .npz archives. */
    static void npzFiles(List<Case> c) {
        String[] npz = {"train", "--x", "@d.npz", "--epochs", "3", "--lr", "0.01"};
        c.add(bad("npz not a zip", 1, "d.npz|not an .npz", npz).file("d.npz", BadInput.X));
        c.add(bad("npz cut short", 1, "d.npz", npz).file("d.npz", Arrays.copyOf(NPZ, NPZ.length / 2)));
        c.add(bad("npz without features", 1, "d.npz|X, x or data|--npz-x", npz).file("d.npz", npz("a", X_NPY, "y",
            Y_NPY)));
        c.add(bad("npz without labels", 1, "d.npz|y, target or labels|--npz-y", npz).file("d.npz", npz("X", X_NPY)));
        c.add(bad("npz array named is missing", 1, "d.npz|'Z'|--npz-x", BadInput.concat(npz, "--npz-x", "Z")));
        c.add(bad("npz NaN", 1, "d.npz|array 'X'|[13, 1]", npz).file("d.npz", npz("X", npy("'<f8'", "(20, 2)",
            BadInput.X.replaceFirst("3 1\n", "3 NaN\n")), "y", Y_NPY)));
        c.add(bad("npz member cut short", 1, "d.npz|array 'X'|ends after", npz).file("d.npz", npz("X",
            Arrays.copyOf(X_NPY, 200), "y", Y_NPY)));
        c.add(bad("npz with labels", 2, "--labels|npz", BadInput.concat(npz, "--labels", "@y.npy")));
        c.add(bad("npz test labels", 2, "--test-labels|npz", BadInput.concat(npz, "--test-data", "@d.npz",
            "--test-labels", "@y.npy")));
    }

    /** Options of the formats that cannot work, or that the format given or inferred would ignore. */
    static void formatOptions(List<Case> c) {
        String[] svm = {"train", "--x", "@d.svm", "--epochs", "3", "--lr", "0.01"};
        c.add(bad("zero-based maybe", 2, "--zero-based|auto, true or false", BadInput.concat(svm, "--zero-based",
            "maybe")));
        c.add(bad("zero-based with paper", 2, "--zero-based|--format paper", BadInput.train("--zero-based",
            "true")));
        c.add(bad("n-features 0", 2, "--n-features|[1,", BadInput.concat(svm, "--n-features", "0")));
        c.add(bad("n-features with npy", 2, "--n-features|--format npy", "train", "--x", "@X.npy", "--y", "@y.npy",
            "--n-features", "3"));
        c.add(bad("n-features with evaluate", 2, "--n-features", "evaluate", "--model-file", "@model.json", "--x",
            "@d.svm", "--n-features", "3"));
        c.add(bad("npz-x with csv", 2, "--npz-x|--format csv", "train", "--x", "@d.csv", "--npz-x", "X"));
        c.add(bad("npz-y with npy", 2, "--npz-y|--format npy", "train", "--x", "@X.npy", "--y", "@y.npy", "--npz-y",
            "y"));
        c.add(bad("labels with a csv file named so", 2, "--labels|--format csv (taken from the name of", "train",
            "--x", "@d.csv", "--labels", "@y.in"));
        c.add(bad("format unknown lists npy", 2, "--format|npy or npz", BadInput.train("--format", "parquet")));
    }

    /** A version 1.0 .npy file of {@code shape} of the numbers in {@code values}, as {@code descr} ('<f8'). */
    static byte[] npy(String descr, String shape, String values) {
        double[] v = Arrays.stream(values.strip().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        ByteBuffer data = ByteBuffer.allocate(8 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        data.asDoubleBuffer().put(v);
        byte[] h = header(descr, shape, data.capacity());
        System.arraycopy(data.array(), 0, h, h.length - data.capacity(), data.capacity());
        return h;
    }

    /** The header numpy writes for {@code descr} and {@code shape} ("": no dict), then {@code data} zero bytes. */
    static byte[] header(String descr, String shape, int data) {
        StringBuilder h = new StringBuilder(descr.isEmpty() ? "[1, 2]" : "{'descr': " + descr + ", 'fortran_order': "
            + "False, 'shape': " + shape + ", }");
        while ((10 + h.length() + 1) % 64 != 0) {
            h.append(' ');
        }
        byte[] text = h.append('\n').toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[10 + text.length + data];
        byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) text.length, (byte) (text.length >> 8)};
        System.arraycopy(magic, 0, out, 0, magic.length);
        System.arraycopy(text, 0, out, magic.length, text.length);
        return out;
    }

    private static byte[] version(byte[] npy, int major) {
        byte[] v = npy.clone();
        v[6] = (byte) major;
        return v;
    }

    /** An .npz (deflated, as numpy.savez_compressed writes it) of {@code name, bytes} pairs, each member NAME.npy. */
    static byte[] npz(Object... members) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
                for (int i = 0; i < members.length; i += 2) {
                    zip.putNextEntry(new ZipEntry(members[i] + ".npy"));
                    zip.write((byte[]) members[i + 1]);
                    zip.closeEntry();
                }
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
