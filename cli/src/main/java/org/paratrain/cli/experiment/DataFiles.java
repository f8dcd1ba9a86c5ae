package org.paratrain.cli.experiment;

import java.nio.file.Path;
import java.util.List;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.CsvFormat;
import org.paratrain.data.CsvTable;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.data.LibSvmFormat;
import org.paratrain.data.NpyFormat;
import org.paratrain.data.NpzFormat;
import org.paratrain.data.PaperFormat;
import org.paratrain.io.Clip;
import org.paratrain.train.spec.DataSpec.Format;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.SpecException;

/**
 * Reads samples in any of the formats, with labels as class indices: string labels (CSV)
 * and -1/+1 or 1/2 labels of two classes are mapped to 0..K-1 and the names kept, so that
 * predictions and metrics speak of the classes as the data named them.
 *
 * @param format the files' format
 * @param csv    the column layout of a CSV file; null for the other formats
 * @param libsvm how LibSVM indices are read and how many features rows have; null for the other formats
 * @param npz    the arrays of an npz file that hold features and labels; null for the other formats
 */
public record DataFiles(Format format, CsvFormat.Layout csv, LibSvmFormat.Layout libsvm, NpzFormat.Names npz) {

    /** A LibSVM or npz reader without its layout reads with the default one. */
    public DataFiles {
        libsvm = format == Format.LIBSVM && libsvm == null ? LibSvmFormat.Layout.DEFAULT : libsvm;
        npz = format == Format.NPZ && npz == null ? NpzFormat.Names.DEFAULT : npz;
    }

    /**
     * A reader of files in {@code format}, with the default LibSVM and npz layouts.
     *
     * @param format the files' format
     * @param csv    the column layout of a CSV file; null for the other formats
     */
    public DataFiles(Format format, CsvFormat.Layout csv) {
        this(format, csv, null, null);
    }

    /**
     * {@return this reader for the files a spec names: its format and layouts}
     * @param spec the data spec
     */
    public static DataFiles of(org.paratrain.train.spec.DataSpec spec) {
        return new DataFiles(spec.format(), spec.csv(), spec.libsvm(), spec.npz());
    }

    /**
     * {@return a reader that reads a LibSVM file's rows to a model's feature count: rows that
     * stop short of it are padded, an index beyond it is an error naming the line; other
     * formats as they are}
     * @param features  the model's number of features
     * @param modelFile the model's file, for that error
     */
    public DataFiles forModel(int features, Path modelFile) {
        return format != Format.LIBSVM ? this : new DataFiles(format, csv, libsvm.withFeatures(features, "the model ("
            + modelFile + ")"), npz);
    }

    /**
     * {@return a reader that reads these LibSVM files alike, as scikit-learn's
     * load_svmlight_files does: zero-based if any of them is, all to one feature count; other
     * formats as they are}
     * @param files the training and the test features
     */
    public DataFiles jointly(Path... files) {
        return format != Format.LIBSVM ? this : new DataFiles(format, csv, LibSvmFormat.jointly(libsvm, files), npz);
    }

    /**
     * Samples, the names of their classes and of their columns.
     *
     * @param data    the samples, labels as class indices for a classifier
     * @param classes the names of the classes when the labels had names, else null
     * @param columns the features' names (generated when the file names none)
     * @param notes   what the reader did that a user should hear of
     */
    public record Labelled(Dataset data, ClassNames classes, Columns columns, List<String> notes) {
        /** Samples of a file that names no columns. */
        Labelled(Dataset data, ClassNames classes) {
            this(data, classes, Columns.generated(data.features()), List.of());
        }
    }

    /**
     * Training data: for a classifier, labels become class indices and their names are kept.
     *
     * @param x     features (and labels, for CSV, LibSVM and npz)
     * @param y     labels of the paper's, the IDX and the npy format
     * @param model the model, which says whether labels are classes and how many there are
     * @return the samples and the class names
     * @throws DataFormatException naming the file, if the labels name other classes than the model has
     */
    public Labelled readForTraining(Path x, Path y, ModelSpec model) {
        boolean classifier = model.classifier();
        Labelled l;
        if (format == Format.CSV) {
            CsvTable t = CsvFormat.read(x, csv);
            ClassNames names = classifier ? ClassNames.ofLabels(t.labels()) : null;
            l = names == null ? recoded(t.numeric(), x, classifier, model.classes())
                : new Labelled(t.coded(names), names);
            l = new Labelled(l.data(), l.classes(), Columns.of(t, csv.header()), t.notes());
        } else {
            l = recoded(read(x, y), y == null ? x : y, classifier, model.classes());
        }
        checkClasses(l.classes(), model, x);
        return l;
    }

    /** {@return this reader without a CSV file's sample weights column: for test, validation and evaluated data} */
    public DataFiles unweighted() {
        return csv == null || csv.weight() == null ? this : new DataFiles(format, csv.withWeight(null), libsvm, npz);
    }

    /**
     * {@return a reader that matches a CSV file's columns to a model's features by name: the
     * model's features are read in the model's order, whatever the file's order, and the
     * label column is the model's unless the layout names one. Other formats, headerless
     * files and models whose names were generated read by position, as before}
     * @param model the model's columns
     */
    public DataFiles matching(Columns model) {
        if (format != Format.CSV || !csv.header() || model == null || !model.named() || csv.keep() != null) {
            return this;
        }
        CsvFormat.Layout l = csv.keeping(model.features());
        return new DataFiles(format, csv.label() == null && model.label() != null && csv.labelled()
            ? l.withLabel(model.label()) : l);
    }

    /**
     * As {@link #readWithClasses}, passing on the reader's notes (columns ignored) to {@code notes}.
     *
     * @param x     features (and labels, for CSV and LibSVM)
     * @param y     labels of the paper's and the IDX format
     * @param names the training data's class names, or null
     * @param notes receives the notes
     * @return the samples
     */
    public Dataset readWithClasses(Path x, Path y, ClassNames names, java.util.function.Consumer<String> notes) {
        if (format == Format.CSV) {
            CsvTable t = CsvFormat.read(x, csv);
            t.notes().forEach(notes);
            return names == null ? t.numeric() : t.coded(names);
        }
        return readWithClasses(x, y, names);
    }

    private static Labelled recoded(Dataset d, Path file, boolean classifier, int classes) {
        ClassNames names = classifier && classes <= 2 ? ClassNames.ofSignedOrOneBased(d.y()) : null;
        if (names == null) {
            return new Labelled(d, null);
        }
        return new Labelled(new Dataset(d.x(), names.encode(d.y(), file), d.samples(), d.features(), d.weights()), names);
    }

    /**
     * Samples whose labels are coded with the names the training data had.
     *
     * @param x     features (and labels, for CSV, LibSVM and npz)
     * @param y     labels of the paper's, the IDX and the npy format
     * @param names the training data's class names, or null if its labels were indices
     * @return the samples
     */
    public Dataset readWithClasses(Path x, Path y, ClassNames names) {
        if (format == Format.CSV) {
            CsvTable t = CsvFormat.read(x, csv);
            return names == null ? t.numeric() : t.coded(names);
        }
        Dataset d = read(x, y);
        return names == null ? d : new Dataset(d.x(), names.encode(d.y(), y == null ? x : y), d.samples(), d.features(),
            d.weights());
    }

    /**
     * Features to predict from: a file of features only, or a labelled file whose labels are
     * ignored.
     *
     * @param x        features, perhaps with labels
     * @param y        labels of the paper's, the IDX and the npy format, or null
     * @param features the model's number of features, which tells a CSV file's label column from a feature
     * @param names    the class names of the model, or null
     * @return the samples (labels, if any, as read)
     */
    public Dataset readFeatures(Path x, Path y, int features, ClassNames names) {
        return readFeatures(x, y, features, names, note -> { });
    }

    /**
     * As {@link #readFeatures(Path, Path, int, ClassNames)}, passing on the reader's notes to {@code notes}.
     *
     * @param x        features, perhaps with labels
     * @param y        labels of the paper's and the IDX format, or null
     * @param features the model's number of features
     * @param names    the class names of the model, or null
     * @param notes    receives the notes (columns ignored)
     * @return the samples
     */
    public Dataset readFeatures(Path x, Path y, int features, ClassNames names,
                                java.util.function.Consumer<String> notes) {
        if (format == Format.PAPER && y == null) {
            return PaperFormat.readFeatures(x);
        }
        if (format == Format.IDX && y == null) {
            return IdxFormat.readImages(x);      // prediction needs no labels
        }
        if (format == Format.CSV && csv.keep() != null) {
            CsvTable t = CsvFormat.read(x, csv.unlabelled());    // the model's columns, by name; the rest ignored
            t.notes().forEach(notes);
            return t.unlabelled();
        }
        if (format == Format.NPY && y == null) {
            return NpyFormat.readFeatures(x);
        }
        if (format == Format.NPZ) {
            return NpzFormat.readFeatures(x, npz);
        }
        if (format == Format.CSV) {
            CsvTable t = CsvFormat.read(x, csv);
            if (csv.label() == null && t.features() + 1 == features) {
                return CsvFormat.read(x, csv.unlabelled()).unlabelled();
            }
            if (names != null) {
                t.coded(names);
            }
            return t.unlabelled();
        }
        return read(x, y);
    }

    private Dataset read(Path x, Path y) {
        if (format.separateLabels() && y == null) {
            throw new SpecException("labels", "are needed with format " + format.label() + " (a file of their own)");
        }
        return switch (format) {
            case PAPER -> PaperFormat.read(x, y);
            case IDX -> IdxFormat.read(x, y);
            case CSV -> CsvFormat.read(x, csv).numeric();
            case LIBSVM -> LibSvmFormat.read(x, libsvm);
            case NPY -> NpyFormat.read(x, y);
            case NPZ -> NpzFormat.read(x, npz);
        };
    }

    /** Named labels that make as many classes as the model has, if it says how many. */
    private static void checkClasses(ClassNames names, ModelSpec model, Path file) {
        int needed = model.classes();
        if (names != null && needed > 0 && needed != names.size()) {
            throw new DataFormatException(file + ": the labels name " + names.size() + " classes ("
                + Clip.message(String.join(", ", names.names())) + "), but the model (" + model.kind() + ") has "
                + needed);
        }
    }
}
