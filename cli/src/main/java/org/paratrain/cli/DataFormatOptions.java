package org.paratrain.cli;

import java.nio.file.Path;
import java.util.Locale;
import org.paratrain.data.CsvFormat;
import org.paratrain.data.LibSvmFormat;
import org.paratrain.data.NpzFormat;
import org.paratrain.cli.experiment.DataFiles;
import org.paratrain.io.Clip;
import org.paratrain.train.spec.DataSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * How input files are laid out, shared by train, evaluate and predict, and how their labels
 * become class indices: by the training data's own class names when training, by the
 * model's when evaluating, so that "setosa" is the same class in both. Without
 * {@code --format}, the format is the one the name of {@code --data} suggests
 * ({@link DataSpec.Format#ofFileName}), so that a model trained from one format is evaluated
 * on data in any other without saying so.
 */
final class DataFormatOptions {
    /** The command this is mixed into, whose {@code --data} names the format when {@code --format} does not. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--format",
        description = "paper (features and labels in two text files), idx (MNIST, Fashion-MNIST; gzipped or not), csv "
            + "(a header line; --label names the label column, default the last), libsvm, npy (NumPy arrays: --data "
            + "X.npy --labels y.npy) or npz (one archive of both). Default: from the name of --data (.csv, .tsv, .svm, "
            + ".libsvm, .svmlight, .npy, .npz, -idx3-ubyte[.gz], .idx), otherwise paper.")
    String format;

    @Option(names = "--label", description = "With --format csv: the label column, by name or 0-based index.")
    String label;

    @Option(names = "--delimiter", description = "With --format csv: the field separator, one character, or tab "
        + "(default , and tab for a .tsv file).")
    String delimiter;

    @Option(names = "--no-header", description = "With --format csv: the file has no header line (--label is then "
        + "a 0-based index).")
    boolean noHeader;

    @Option(names = "--zero-based", paramLabel = "auto|true|false", description = "With --format libsvm: whether "
        + "indices start at 0; auto (default): if any index 0 occurs, as scikit-learn's load_svmlight_file decides.")
    String zeroBased;

    @Option(names = "--npz-x", paramLabel = "NAME", description = "With --format npz: the features' array (default "
        + "X, else x, else data).")
    String npzX;

    @Option(names = "--npz-y", paramLabel = "NAME", description = "With --format npz: the labels' array (default y, "
        + "else target, else labels).")
    String npzY;

    /** The CSV layout the options describe; a bad --delimiter is an option error. */
    CsvFormat.Layout layout() {
        char d = delimiter == null && name(data()).endsWith(".tsv") ? '\t' : delimiter(delimiter);
        return new CsvFormat.Layout(label, d, !noHeader, true);
    }

    static char delimiter(String d) {
        if (d == null) {
            return ',';
        }
        if (d.equals("tab") || d.equals("\\t") || d.equals("\t")) {
            return '\t';
        }
        if (d.length() != 1 || d.equals("\"") || d.equals("\n") || d.equals("\r")) {
            throw new IllegalArgumentException("--delimiter must be one character (or tab), not a quote or a line "
                + "break; got '" + Clip.value(d) + "'");
        }
        return d.charAt(0);
    }

    /** {@return how LibSVM files are read: --zero-based, the feature count their largest index makes} */
    LibSvmFormat.Layout libsvm() {
        return new LibSvmFormat.Layout(zeroBased == null ? LibSvmFormat.ZeroBased.AUTO
            : LibSvmFormat.ZeroBased.parse(zeroBased), 0, null);
    }

    /**
     * {@return a reader for data to use {@code model} on: a CSV file's columns matched to the
     * model's features by name; a warning on {@code err} when the model's features have names
     * but the file has no header, so that its columns can only be taken by position}
     * (LibSVM rows are padded to the model's features)
     * @param model     the model file
     * @param modelFile where it was read from, for messages
     * @param file      the data file, for the warning
     * @param err       where the warning goes
     */
    DataFiles files(org.paratrain.experiment.ModelFile model, Path modelFile, Path file, java.io.PrintWriter err) {
        DataFiles f = files(model.features(), modelFile);
        if (f.format() == DataSpec.Format.CSV && noHeader && model.columns().named()) {
            err.println("paratrain: warning: " + file + " has no header: its columns are taken as the model's "
                + model.features() + " features in their order (" + Clip.message(String.join(", ",
                model.columns().features())) + ")");
        }
        return f.matching(model.columns());
    }


    /** {@return the format as the specs name it: --format, or the one the name of --data suggests} */
    DataSpec.Format format() {
        return format != null ? DataSpec.Format.parse(format) : DataSpec.Format.ofFileName(data());
    }

    /** {@return the format as the messages name it: "--format csv", saying so if it was taken from the file name} */
    String described() {
        String f = "--format " + format().label();
        return format != null ? f : f + " (taken from the name of " + data() + "; --format chooses another)";
    }

    /** {@return a reader of files in this format and layout} */
    DataFiles files() {
        DataSpec.Format f = format();
        return new DataFiles(f, f == DataSpec.Format.CSV ? layout() : null, f == DataSpec.Format.LIBSVM ? libsvm()
            : null, f == DataSpec.Format.NPZ ? new NpzFormat.Names(npzX, npzY) : null);
    }

    /**
     * {@return a reader for data a model is used on: LibSVM rows padded to the model's features}
     * @param features  the model's number of features
     * @param modelFile the model's file, for the message when a row has more
     */
    DataFiles files(int features, Path modelFile) {
        return files().forModel(features, modelFile);
    }

    /** The --data (or --x) of the command, or null. */
    private Path data() {
        return command == null ? null : command.commandLine().getParseResult().matchedOptionValue("--data", null);
    }

    private static String name(Path p) {
        return p == null || p.getFileName() == null ? "" : p.getFileName().toString().toLowerCase(Locale.ROOT);
    }
}
