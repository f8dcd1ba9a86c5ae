package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.CsvFormat;
import org.paratrain.experiment.DataFiles;
import org.paratrain.io.Clip;
import org.paratrain.train.spec.DataSpec;
import picocli.CommandLine.Option;

/**
 * How input files are laid out, shared by train, evaluate and predict, and how their labels
 * become class indices: by the training data's own class names when training, by the
 * model's when evaluating, so that "setosa" is the same class in both.
 */
final class DataFormatOptions {
    @Option(names = "--format", defaultValue = "paper",
        description = "paper (default: features and labels in two text files), idx (MNIST, Fashion-MNIST; gzipped or "
            + "not), csv (a header line; --label names the label column, default the last) or libsvm.")
    String format;

    @Option(names = "--label", description = "With --format csv: the label column, by name or 0-based index.")
    String label;

    @Option(names = "--delimiter", description = "With --format csv: the field separator, one character, or tab "
        + "(default ,).")
    String delimiter;

    @Option(names = "--no-header", description = "With --format csv: the file has no header line (--label is then "
        + "a 0-based index).")
    boolean noHeader;

    /** The CSV layout the options describe; a bad --delimiter is an option error. */
    CsvFormat.Layout layout() {
        return new CsvFormat.Layout(label, delimiter(delimiter), !noHeader, true);
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

    /** {@return the format as the specs name it} */
    DataSpec.Format format() {
        return DataSpec.Format.parse(format);
    }

    /**
     * {@return a reader for data to use {@code model} on: a CSV file's columns matched to the
     * model's features by name; a warning on {@code err} when the model's features have names
     * but the file has no header, so that its columns can only be taken by position}
     * @param model the model file
     * @param file  the data file, for the warning
     * @param err   where the warning goes
     */
    DataFiles files(org.paratrain.experiment.ModelFile model, Path file, java.io.PrintWriter err) {
        DataFiles f = files();
        if (f.format() == DataSpec.Format.CSV && noHeader && model.columns().named()) {
            err.println("paratrain: warning: " + file + " has no header: its columns are taken as the model's "
                + model.features() + " features in their order (" + Clip.message(String.join(", ",
                model.columns().features())) + ")");
        }
        return f.matching(model.columns());
    }

    /** {@return a reader of files in this format and (for CSV) layout} */
    DataFiles files() {
        DataSpec.Format f = format();
        return new DataFiles(f, f == DataSpec.Format.CSV ? layout() : null);
    }
}
