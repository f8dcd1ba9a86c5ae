package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.data.PaperFormat;
import org.paratrain.data.TableFormats;
import picocli.CommandLine.Option;

/** How input files are laid out, shared by train, evaluate and predict. */
final class DataFormatOptions {
    @Option(names = "--format", defaultValue = "paper",
        description = "paper (default: features and labels in two text files), idx (MNIST, Fashion-MNIST; gzipped or "
            + "not), csv (a header line; --label names the label column, default the last) or libsvm.")
    String format;

    @Option(names = "--label", description = "With --format csv: the label column, by name or 0-based index.")
    String label;

    /**
     * Reads features for prediction: the paper's X file alone, or any format's file with its
     * labels (which are ignored; IDX needs its labels file only to be read as a data set).
     */
    Dataset readFeatures(Path x, Path y) {
        if (format.equals("paper") && y == null) {
            return PaperFormat.readFeatures(x);
        }
        return read(x, y, "--labels");
    }

    /** Reads features and labels; {@code y} is the separate labels file of the paper and idx formats. */
    Dataset read(Path x, Path y, String labelsOption) {
        boolean separateLabels = format.equals("paper") || format.equals("idx");
        if (separateLabels && y == null) {
            throw new IllegalArgumentException("--format " + format + " needs " + labelsOption);
        }
        return switch (format) {
            case "paper" -> PaperFormat.read(x, y);
            case "idx" -> IdxFormat.read(x, y);
            case "csv" -> TableFormats.csv(x, label);
            case "libsvm" -> TableFormats.libsvm(x, 0);
            default -> throw new IllegalArgumentException("--format must be paper, idx, csv or libsvm, got '" + format
                + "'");
        };
    }
}
