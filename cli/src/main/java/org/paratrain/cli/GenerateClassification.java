package org.paratrain.cli;

import java.nio.file.Path;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeClassification;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.data.PaperFormat;
import org.paratrain.io.AtomicFiles;
import org.paratrain.io.Clip;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code generate classification}: scikit-learn's make_classification, bit for bit, under its own argument names. */
@Command(name = "classification", mixinStandardHelpOptions = true,
    description = {"Write X.in and y.in (one class index 0..K-1 a line) as scikit-learn's make_classification",
        "makes them (same arguments and random_state give the same numbers), and optionally a CSV."})
final class GenerateClassification implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", defaultValue = "100", description = "n_samples (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--features", defaultValue = "20", description = "n_features (default ${DEFAULT-VALUE}).")
    int features;

    @Option(names = "--informative", defaultValue = "2", description = "n_informative (default ${DEFAULT-VALUE}).")
    int informative;

    @Option(names = "--redundant", defaultValue = "2", description = "n_redundant: random linear combinations of the "
        + "informative features (default ${DEFAULT-VALUE}).")
    int redundant;

    @Option(names = "--repeated", defaultValue = "0", description = "n_repeated: copies of informative or redundant "
        + "features (default ${DEFAULT-VALUE}).")
    int repeated;

    @Option(names = "--classes", defaultValue = "2", description = "n_classes (default ${DEFAULT-VALUE}).")
    int classes;

    @Option(names = "--clusters-per-class", defaultValue = "2", description = "n_clusters_per_class (default "
        + "${DEFAULT-VALUE}).")
    int clustersPerClass;

    @Option(names = "--weights", split = ",", description = "weights: the share of each class, K or K-1 values "
        + "separated by commas (default: equal shares).")
    double[] weights;

    @Option(names = "--flip-y", defaultValue = "0.01", description = "flip_y: the fraction of labels replaced at random "
        + "(default ${DEFAULT-VALUE}).")
    double flipY;

    @Option(names = "--class-sep", defaultValue = "1.0", description = "class_sep: half the hypercube's side (default "
        + "${DEFAULT-VALUE}).")
    double classSep;

    @Option(names = "--no-hypercube", description = "hypercube=False: clusters on a random polytope.")
    boolean noHypercube;

    @Option(names = "--shift", defaultValue = "0.0", description = "shift: added to every feature, or random for "
        + "shift=None (default ${DEFAULT-VALUE}).")
    String shift;

    @Option(names = "--scale", defaultValue = "1.0", description = "scale: multiplies every feature, or random for "
        + "scale=None (default ${DEFAULT-VALUE}).")
    String scale;

    @Option(names = "--no-shuffle", description = "shuffle=False.")
    boolean noShuffle;

    @Option(names = "--random-state", defaultValue = "42", description = "Seed of numpy's RandomState, 0..4294967295 "
        + "(default ${DEFAULT-VALUE}).")
    long randomState;

    @Option(names = "--out", required = true, description = "Directory to write X.in and y.in into.")
    Path out;

    @Option(names = "--csv", description = "Also write this CSV file: a header x0..x(d-1),class, one sample a line.")
    Path csv;

    @Override
    public void run() {
        MakeClassification spec = new MakeClassification(samples, features, informative, redundant, repeated, classes,
            clustersPerClass, weights, flipY, classSep, !noHypercube, number("--shift", shift),
            number("--scale", scale), !noShuffle);
        OptionChecks.range("--random-state", randomState, 0, 0xFFFF_FFFFL);
        OutputPaths.directoryFor("--out", out, java.util.List.of("X.in", "y.in"));
        if (csv != null) {
            OutputPaths.file("--csv", csv);
        }
        Dataset d = spec.generate(new NumpyRandomState(randomState));
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(out)) {
            AtomicFiles.writeText(staged.dir().resolve("X.in"), w -> PaperFormat.writeRows(w, d.x(), d.samples(),
                d.features()));
            AtomicFiles.writeText(staged.dir().resolve("y.in"), w -> {
                for (double v : d.y()) {
                    w.write((int) v + "\n");
                }
            });
            staged.publish(java.util.List.of("X.in", "y.in"));
        }
        if (csv != null) {
            writeCsv(d, csv);
        }
        this.spec.commandLine().getOut().println("wrote " + samples + " samples x " + features + " features, "
            + classes + " classes, to " + out.resolve("X.in") + " and " + out.resolve("y.in")
            + (csv == null ? "" : " and " + csv));
    }

    /** A number, or null for "random" (scikit-learn's None: a random value a feature). */
    private static Double number(String option, String text) {
        if (text.equals("random")) {
            return null;
        }
        try {
            return Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number or random, got '" + Clip.value(text) + "'");
        }
    }

    private static void writeCsv(Dataset d, Path file) {
        AtomicFiles.writeText(file, w -> {
            StringBuilder sb = new StringBuilder();
            for (int j = 0; j < d.features(); j++) {
                sb.append('x').append(j).append(',');
            }
            w.write(sb.append("class\n").toString());
            for (int i = 0; i < d.samples(); i++) {
                sb.setLength(0);
                for (int j = 0; j < d.features(); j++) {
                    sb.append(d.x(i, j)).append(',');
                }
                w.write(sb.append((int) d.y()[i]).append('\n').toString());
            }
        });
    }
}
