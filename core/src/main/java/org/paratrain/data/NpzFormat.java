package org.paratrain.data;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import org.paratrain.io.Clip;

/**
 * NumPy's {@code .npz} archives ({@code numpy.savez}, {@code numpy.savez_compressed}): a zip
 * of {@code .npy} members, stored or deflated, one a named array. The features are the array
 * {@link Names#x} names (by default {@code X}, else {@code x}, else {@code data}, the first
 * present), the labels the array {@link Names#y} names (by default {@code y}, else
 * {@code target}, else {@code labels}); each is read as {@link NpyFormat} reads a file.
 */
public final class NpzFormat {
    private static final List<String> FEATURES = List.of("X", "x", "data");
    private static final List<String> LABELS = List.of("y", "target", "labels");

    private NpzFormat() { }

    /**
     * Which arrays of the archive hold the features and the labels.
     *
     * @param x the features' array (its member is {@code x + ".npy"}), or null for the first of X, x, data
     * @param y the labels' array, or null for the first of y, target, labels
     */
    public record Names(String x, String y) {
        /** The first of the usual names present in the archive. */
        public static final Names DEFAULT = new Names(null, null);
    }

    /**
     * Reads features and labels from one archive and checks they agree in count.
     *
     * @param file  an .npz file
     * @param names the arrays to read
     * @return the samples
     * @throws DataFormatException naming the file and the array, for a file that is not a zip, an
     *     array that is missing, or one that {@link NpyFormat} refuses
     */
    public static Dataset read(Path file, Names names) {
        return read(file, names, true);
    }

    /**
     * Reads the features alone, for prediction: every target is 0, and the archive needs no labels.
     *
     * @param file  an .npz file
     * @param names the arrays to read (the labels' name is not used)
     * @return the samples
     * @throws DataFormatException naming the file and the array, as {@link #read(Path, Names)} does
     */
    public static Dataset readFeatures(Path file, Names names) {
        return read(file, names, false);
    }

    private static Dataset read(Path file, Names names, boolean labels) {
        try (ZipFile zip = new ZipFile(file.toFile())) {
            List<String> arrays = arrays(zip);
            String xName = pick(file, arrays, names.x(), FEATURES, "--npz-x", "features");
            NpyFormat.Matrix x = array(zip, file, xName, NpyFormat.Role.FEATURES);
            if (!labels) {
                return new Dataset(x.values(), new double[x.rows()], x.rows(), x.cols());
            }
            String yName = pick(file, arrays, names.y(), LABELS, "--npz-y", "labels");
            NpyFormat.Matrix y = array(zip, file, yName, NpyFormat.Role.LABELS);
            return NpyFormat.dataset(x, y, file + ": array '" + xName + "'", file + ": array '" + yName + "'");
        } catch (ZipException e) {
            throw new DataFormatException(file + ": not an .npz file (a zip archive of .npy arrays, as numpy.savez "
                + "writes): " + Clip.message(e.getMessage()));
        } catch (IOException e) {
            throw TextLines.failure(file, e);
        }
    }

    /** The names of the archive's arrays: its members ending in .npy, without that ending. */
    private static List<String> arrays(ZipFile zip) {
        List<String> names = new ArrayList<>();
        zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".npy"))
            .forEach(n -> names.add(n.substring(0, n.length() - 4)));
        return names;
    }

    /** The array named by the option, or the first of the usual names present; an error lists what is there. */
    private static String pick(Path file, List<String> arrays, String given, List<String> usual, String option,
                               String what) {
        if (given != null && arrays.contains(given)) {
            return given;
        }
        if (given == null) {
            for (String u : usual) {
                if (arrays.contains(u)) {
                    return u;
                }
            }
        }
        String held = arrays.isEmpty() ? "it holds no .npy arrays" : "it holds " + Clip.value(String.join(", ",
            arrays));
        throw new DataFormatException(file + ": no array named " + (given != null ? "'" + Clip.value(given) + "' ("
            + option + ")" : String.join(", ", usual.subList(0, 2)) + " or " + usual.get(2)) + " for the " + what
            + "; " + held + (given == null ? "; name the " + what + "' array with " + option : ""));
    }

    private static NpyFormat.Matrix array(ZipFile zip, Path file, String name, NpyFormat.Role role) throws IOException {
        ZipEntry e = zip.getEntry(name + ".npy");
        String where = file + ": array '" + Clip.value(name) + "'";
        try (InputStream in = new BufferedInputStream(zip.getInputStream(e), 1 << 16)) {
            return NpyFormat.read(in, e.getSize(), where, role);
        } catch (EOFException | ZipException ex) {
            throw new DataFormatException(where + ": ends before its data does (" + Clip.message(ex.getMessage())
                + "); is the archive cut short or damaged?");
        }
    }
}
