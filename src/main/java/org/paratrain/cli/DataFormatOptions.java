package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.ClassNames;
import org.paratrain.data.CsvFormat;
import org.paratrain.data.CsvTable;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.data.PaperFormat;
import org.paratrain.data.TableFormats;
import org.paratrain.io.Clip;
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

    /** Data with its labels as class indices, and the names of the classes (null when the labels were indices). */
    record Labelled(Dataset data, ClassNames classes) { }

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

    /**
     * Reads features for prediction: the paper's X file alone, or any format's file with its
     * labels (which are ignored; IDX needs its labels file only to be read as a data set). A
     * CSV file with exactly the model's {@code features} columns, and no --label, has no label
     * column; where it has one, its labels must be classes the model knows ({@code names}),
     * since a label the model never saw means the file is not what the user thinks it is.
     */
    Dataset readFeatures(Path x, Path y, int features, ClassNames names) {
        if (format.equals("paper") && y == null) {
            return PaperFormat.readFeatures(x);
        }
        if (format.equals("csv")) {
            CsvTable t = CsvFormat.read(x, layout());
            if (label == null && t.features() + 1 == features) {
                return CsvFormat.read(x, layout().unlabelled()).unlabelled();
            }
            if (names != null) {
                t.coded(names);
            }
            return t.unlabelled();
        }
        return read(x, y, "--labels");
    }

    /**
     * Training data: string labels become classes numbered in sorted order; numeric
     * two-class labels -1/+1 or 1/2 become 0/1; other labels are read as they are.
     *
     * @param classifier whether the model predicts classes
     * @param classes    the --classes given, 0 if none
     */
    Labelled readForTraining(Path x, Path y, String labelsOption, boolean classifier, int classes) {
        if (format.equals("csv")) {
            CsvTable t = CsvFormat.read(x, layout());
            ClassNames names = classifier ? ClassNames.ofLabels(t.labels()) : null;
            if (names == null) {
                return recoded(t.numeric(), x, classifier, classes);
            }
            return new Labelled(t.coded(names), names);
        }
        return recoded(read(x, y, labelsOption), y == null ? x : y, classifier, classes);
    }

    private static Labelled recoded(Dataset d, Path file, boolean classifier, int classes) {
        ClassNames names = classifier && classes <= 2 ? ClassNames.ofSignedOrOneBased(d.y()) : null;
        if (names == null) {
            return new Labelled(d, null);
        }
        return new Labelled(new Dataset(d.x(), names.encode(d.y(), file), d.samples(), d.features()), names);
    }

    /** Labelled data for a model whose classes are {@code names} (null: labels are read as they are). */
    Dataset readWithClasses(Path x, Path y, String labelsOption, ClassNames names) {
        if (format.equals("csv")) {
            CsvTable t = CsvFormat.read(x, layout());
            return names == null ? t.numeric() : t.coded(names);
        }
        Dataset d = read(x, y, labelsOption);
        return names == null ? d : new Dataset(d.x(), names.encode(d.y(), y == null ? x : y), d.samples(),
            d.features());
    }

    /** Reads features and labels; {@code y} is the separate labels file of the paper and idx formats. */
    private Dataset read(Path x, Path y, String labelsOption) {
        boolean separateLabels = format.equals("paper") || format.equals("idx");
        if (separateLabels && y == null) {
            throw new IllegalArgumentException("--format " + format + " needs " + labelsOption);
        }
        return switch (format) {
            case "paper" -> PaperFormat.read(x, y);
            case "idx" -> IdxFormat.read(x, y);
            case "csv" -> CsvFormat.read(x, layout()).numeric();
            case "libsvm" -> TableFormats.libsvm(x, 0);
            default -> throw new IllegalArgumentException("--format must be paper, idx, csv or libsvm, got '" + format
                + "'");
        };
    }

    /** A classifier's names against the classes the model will have. */
    static void checkClasses(ClassNames names, String model, int classes, Path file) {
        if (names == null) {
            return;
        }
        int needed = model.equals("logistic") ? 2 : classes;
        if (needed > 0 && needed != names.size()) {
            throw new DataFormatException(file + ": the labels name " + names.size() + " classes ("
                + Clip.message(String.join(", ", names.names())) + "), but --model " + model
                + (model.equals("logistic") ? " has 2" : " --classes " + classes + " says " + classes));
        }
    }
}
