package org.paratrain.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Dataset;
import org.paratrain.data.HeapBudget;
import org.paratrain.io.Clip;
import org.paratrain.train.Backend;
import org.paratrain.train.MemoryEstimate;
import org.paratrain.train.Recipe;
import org.paratrain.train.TrainConfig;
import picocli.CommandLine.ParseResult;

/**
 * Checks of a command's options that need more than one option, or the file system, made
 * before any work: a run that would fail, or silently ignore an option, after minutes of
 * reading data or training is refused at once, with the option named. Options that have no
 * effect in the configuration given are refused rather than ignored: a user who writes
 * {@code --momentum 0.5} with plain gradient descent believes it changed something.
 */
final class OptionChecks {
    private static final List<String> NETWORKS = List.of("mlp", "mlp-regression");

    private OptionChecks() { }

    /** {@code train}'s options, before any file is read. */
    static void train(TrainCommand c) {
        ParseResult given = c.spec.commandLine().getParseResult();
        nodes(c.nodesText);
        boolean mpi = c.backendOptions.isMpi();
        if (!mpi && c.allreduce.equals("native")) {
            throw new IllegalArgumentException("--allreduce native is MPI's own allreduce and needs --backend mpi; on "
                + "the local backend use star, tree, recursive-doubling, ring, rabenseifner or auto");
        }
        schedule(c.schedule);
        if (!(c.testFraction >= 0 && c.testFraction < 1)) {
            throw new IllegalArgumentException("--test-fraction must be in [0, 1), got " + c.testFraction);
        }
        if (c.batchSize == 0 && c.warmupSteps > c.epochs) {
            throw new IllegalArgumentException("--warmup-steps " + c.warmupSteps + " is longer than the run (" + c.epochs
                + " steps: one per epoch at full batch), so the learning rate would never reach --lr");
        }
        noEffect(given, c);
        formats(given, c.dataFormat, c.testX != null);
        backend(given, mpi);
        boolean child = mpi && Backend.insideMpiJob();
        if (child && Backend.mpiRankFromEnvironment() != 0) {
            return;   // rank 0 checks the files; only it writes
        }
        InputFiles.require(c.xFile, c.yFile, c.testX, c.testY);
        if (c.out != null) {
            OutputPaths.directory("--out", c.out);
        }
        if (mpi && !child) {
            InputFiles.mpiLibrary(System.getenv("PARATRAIN_MPI_LIB"));
        }
    }

    /** {@code train}'s options against the training data, before training starts. */
    static void trainData(TrainCommand c, Dataset train, int classes, TrainConfig config, Recipe recipe) {
        if (c.batchSize > 0 && c.batchSize <= train.samples()) {
            long steps = (long) c.epochs * (train.samples() / c.batchSize);
            if (c.warmupSteps > steps) {
                throw new IllegalArgumentException("--warmup-steps " + c.warmupSteps + " is longer than the run ("
                    + steps + " steps: " + c.epochs + " epochs of " + train.samples() / c.batchSize + "), so the "
                    + "learning rate would never reach --lr");
            }
        }
        if (c.classes == 0 && classes > train.samples()) {
            // Counted from the largest label: one stray label (1000000 in a file of 0..9) makes a huge model.
            throw new DataFormatException((c.yFile != null ? c.yFile : c.xFile) + ": the largest label makes "
                + classes + " classes, more than the " + train.samples() + " samples; if that is meant, say so "
                + "with --classes " + classes);
        }
        long params = parameters(c, train.features(), classes);
        String model = "--model " + c.model + " with " + train.features() + " features"
            + (c.layers.isBlank() ? "" : ", --layers " + c.layers) + (classes > 0 ? " and " + classes + " classes" : "");
        if (params > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException(model + " has " + params + " parameters, more than one array holds ("
                + HeapBudget.MAX_ARRAY + ")");
        }
        long table = MemoryEstimate.largestArray(train.samples(), params, config, recipe);
        if (table > HeapBudget.MAX_ARRAY) {
            int blocks = MemoryEstimate.stepBlocks(train.samples(), config, recipe).blocks();
            throw new IllegalArgumentException(model + " has " + params + " parameters; the gradient exchange keeps "
                + "them for each of the " + blocks + " blocks, " + table + " values, more than one array holds ("
                + HeapBudget.MAX_ARRAY + "); give a larger --block-size (fewer blocks) or a smaller model");
        }
        if (!c.backendOptions.isMpi()) {
            MemoryEstimate.check(train.samples(), params, config, recipe);
        }
    }

    /** The number of parameters, counted without overflow (the models count in int). */
    private static long parameters(TrainCommand c, int features, int classes) {
        long bias = c.intercept ? 1 : 0;
        return switch (c.model) {
            case "softmax" -> (long) classes * (features + bias);
            case "mlp", "mlp-regression" -> {
                long p = 0;
                long in = features;
                for (String w : c.layers.isBlank() ? new String[0] : c.layers.split(",")) {
                    long out = Long.parseLong(w.strip());
                    p += in * out + out;
                    in = out;
                }
                long out = c.model.equals("mlp") ? classes : 1;
                yield p + in * out + out;
            }
            default -> features + bias;
        };
    }

    /** {@code --nodes}: a whole number of ranks or auto; never a value the code uses as a marker. */
    static void nodes(String text) {
        if (text.strip().equals("auto")) {
            return;
        }
        long n;
        try {
            n = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--nodes must be a whole number or auto, got '" + Clip.value(text) + "'");
        }
        if (n < 1 || n > TrainConfig.MAX_NODES) {
            throw new IllegalArgumentException("--nodes must be in [1, " + TrainConfig.MAX_NODES + "] or auto, got " + n);
        }
    }

    /** {@code --schedule step:EVERY:FACTOR}: checked here, where today it fails only once training starts. */
    static void schedule(String s) {
        if (!s.startsWith("step:")) {
            return;   // constant, cosine, or a name the recipe refuses
        }
        String[] parts = s.split(":", -1);
        String usage = "--schedule step:EVERY:FACTOR needs EVERY, steps between drops, a whole number >= 1, and "
            + "FACTOR, the drop, in (0, 1], e.g. step:100:0.5; got '" + Clip.value(s) + "'";
        if (parts.length != 3) {
            throw new IllegalArgumentException(usage);
        }
        try {
            long every = Long.parseLong(parts[1]);
            double factor = Double.parseDouble(parts[2]);
            if (every < 1 || !(factor > 0 && factor <= 1)) {
                throw new IllegalArgumentException(usage);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(usage);
        }
    }

    /** Options that the model or optimiser chosen would ignore. */
    private static void noEffect(ParseResult given, TrainCommand c) {
        boolean network = NETWORKS.contains(c.model);
        String withModel = "with --model " + c.model;
        refuse(given, "--layers", !network, withModel + ": only the MLPs (--model mlp, mlp-regression) have hidden "
            + "layers");
        refuse(given, "--activation", !network, withModel + ": only the MLPs (--model mlp, mlp-regression) have "
            + "hidden activations");
        refuse(given, "--intercept", network, withModel + ": an MLP always learns biases");
        refuse(given, "--classes", !c.model.equals("softmax") && !c.model.equals("mlp"), withModel + ": "
            + (c.model.equals("logistic") ? "logistic regression always has 2 classes" : "a regression has no classes"));
        refuse(given, "--momentum", c.optimizer.equals("gd") || c.optimizer.equals("adam"), "with --optimizer "
            + c.optimizer + ": only momentum and nesterov use it");
        refuse(given, "--seed", !network && c.batchSize == 0 && c.testFraction == 0, "here: it seeds the train/test "
            + "split (--test-fraction), the mini-batch order (--batch-size) and an MLP's initial weights, and this "
            + "run has none of them");
    }

    /** Options that the data format chosen would ignore ({@code test} whether test data is given). */
    static void formats(ParseResult given, DataFormatOptions options, boolean test) {
        String format = options.format;
        boolean table = format.equals("csv") || format.equals("libsvm");
        String withFormat = "with --format " + format;
        refuse(given, "--labels", table, withFormat + ": its file holds the labels"
            + (format.equals("csv") ? " (--label names their column)" : ""));
        refuse(given, "--label", !format.equals("csv"), withFormat + ": only csv files name their label column");
        refuse(given, "--delimiter", !format.equals("csv"), withFormat + ": only csv files have a delimiter to choose");
        refuse(given, "--no-header", !format.equals("csv"), withFormat + ": only csv files have a header line");
        options.layout();   // a bad --delimiter is an option error, before any file is read
        if (given.hasMatchedOption("--test-labels")) {
            refuse(given, "--test-labels", !test, "without --test-data");
            refuse(given, "--test-labels", table, withFormat + ": the --test-data file holds its labels");
        }
    }

    /** Options of the MPI backend given with the local one. */
    static void backend(ParseResult given, boolean mpi) {
        refuse(given, "--hostfile", !mpi, "with --backend local: ranks are threads of this JVM");
        refuse(given, "--mpirun-args", !mpi, "with --backend local: no mpirun is started");
        if (given.hasMatchedOption("--hostfile")) {
            InputFiles.optionFile("--hostfile", given.matchedOptionValue("--hostfile", (Path) null));
        }
    }

    private static void refuse(ParseResult given, String option, boolean noEffect, String why) {
        if (noEffect && given.hasMatchedOption(option)) {
            throw new IllegalArgumentException(option + " has no effect " + why);
        }
    }

    /**
     * {@code data} with labels that suit {@code model} (whole numbers 0..K-1 for a classifier);
     * a label that does not is an error in the data file, not in an option.
     */
    static Dataset labels(String model, int classes, Dataset data, Path file) {
        Recipe recipe = new Recipe(model, classes, "gd", 0.9, 0, "constant", 0);
        try {
            recipe.check(data);
        } catch (IllegalArgumentException e) {
            throw new DataFormatException(file + ": " + e.getMessage());
        }
        return data;
    }

    /** Test data with as many features as the training data; else the test metrics would read the wrong columns. */
    static void sameFeatures(Dataset train, Path trainFile, Dataset test, Path testFile) {
        if (test != null && test.features() != train.features()) {
            throw new DataFormatException(testFile + ": " + test.features() + " features a sample, but the training "
                + "data (" + trainFile + ") has " + train.features());
        }
    }

    /** A count option's value in [min, max]. */
    static void range(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be in [%d, %d], got %d", option,
                min, max, value));
        }
    }
}
