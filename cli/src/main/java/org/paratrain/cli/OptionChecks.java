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
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.ParseResult;

/**
 * Checks of a command's options that need more than one option, or the file system, made
 * before any work: a run that would fail, or silently ignore an option, after minutes of
 * reading data or training is refused at once, with the option named. Options that have no
 * effect in the configuration given are refused rather than ignored: a user who writes
 * {@code --momentum 0.5} with plain gradient descent believes it changed something.
 */
public final class OptionChecks {
    private static final List<String> NETWORKS = List.of("mlp", "mlp-regression");

    private OptionChecks() { }

    /** {@code train}'s options, before any file is read. */
    static void train(TrainCommand c) {
        ParseResult given = c.command.commandLine().getParseResult();
        boolean mpi = c.backendOptions.isMpi();
        exchangeFitsBackend(c.exchange.allreduce, mpi, true);
        if (c.input.testX != null && c.input.testFraction != 0) {
            throw new IllegalArgumentException("give either --test-data or --test-fraction, not both");
        }
        if (c.epochs < 1) {
            throw new IllegalArgumentException("--epochs must be at least 1, got " + c.epochs);
        }
        if (c.batchSize == 0 && c.learning.warmupSteps > c.epochs) {
            throw new IllegalArgumentException("--warmup-steps " + c.learning.warmupSteps + " is longer than the run (" + c.epochs
                + " steps: one per epoch at full batch), so the learning rate would never reach --lr");
        }
        noEffect(given, c);
        formats(given, c.dataFormat, c.input.testX != null);
        backend(given, mpi);
        boolean child = mpi && Backend.insideMpiJob();
        if (child && Backend.mpiRankFromEnvironment() != 0) {
            return;   // rank 0 checks the files; only it writes
        }
        InputFiles.require(c.input.xFile, c.input.yFile, c.input.testX, c.input.testY, c.checkpoints.initFrom);
        if (c.out != null) {
            OutputPaths.directoryFor("--out", c.out, TrainReport.FILES);
            OutputPaths.notIntoInputs("--out", c.out, TrainReport.FILES, c.input.xFile, c.input.yFile, c.input.testX,
                c.input.testY, c.checkpoints.resume, c.checkpoints.initFrom);
        }
        if (c.checkpoints.dir != null) {
            OutputPaths.directory("--checkpoint-dir", c.checkpoints.dir);   // found now, not when the first is due
        }
        if (mpi && !child) {
            InputFiles.mpiLibrary(System.getenv("PARATRAIN_MPI_LIB"));
        }
    }

    /**
     * Batchnorm keeps a rank's whole step in memory and sums statistics over each rank's own
     * blocks: a full batch of many samples, or the shared exchange (which hands blocks out), is
     * refused before the data is trained on.
     */
    private static void batchNorm(TrainCommand c, Dataset train, TrainSpec spec) {
        if (!(spec.model() instanceof org.paratrain.train.spec.ModelSpec.Cnn cnn) || !cnn.normalises()) {
            return;
        }
        if (spec.exchange().scheme() == org.paratrain.train.spec.ExchangeSpec.Scheme.SHARED) {
            throw new IllegalArgumentException("--allreduce shared does not go with batchnorm in --layers: batchnorm "
                + "sums each step's statistics over every rank's own blocks, and shared hands blocks out as ranks are "
                + "ready; use ring, rabenseifner or auto");
        }
        long step = c.batchSize > 0 ? Math.min(c.batchSize, train.samples()) : train.samples();
        long perRank = (step + spec.nodes() - 1) / spec.nodes();
        int most = org.paratrain.model.ConvNet.BatchNorm.MAX_STEP_SAMPLES;
        if (perRank > most) {
            throw new IllegalArgumentException("batchnorm in --layers keeps every activation of a rank's step until its "
                + "backward pass: " + (c.batchSize > 0 ? "--batch-size " + c.batchSize : "a full batch of " + step)
                + " gives " + perRank + " samples a rank, more than " + most + "; give a smaller --batch-size");
        }
    }

    /**
     * {@code --allreduce native} is refused on the local backend, which has no MPI, and
     * {@code --allreduce shared} on MPI, whose ranks share no memory ({@code auto}: may auto be named).
     */
    static void exchangeFitsBackend(String allreduce, boolean mpi, boolean auto) {
        if (!mpi && allreduce.equals("native")) {
            throw new IllegalArgumentException("--allreduce native is MPI's own allreduce and needs --backend mpi; on "
                + "the local backend use master-worker, shared, star, tree, recursive-doubling, ring" + (auto
                ? ", rabenseifner or auto" : " or rabenseifner"));
        }
        if (mpi && allreduce.equals("shared")) {
            throw new IllegalArgumentException("--allreduce shared needs the local backend (its ranks are threads of "
                + "one JVM that share a step's blocks in memory); with --backend mpi use master-worker, native, star, "
                + "tree, recursive-doubling, ring" + (auto ? ", rabenseifner or auto" : " or rabenseifner"));
        }
    }

    /**
     * A classifier's labels must hold two classes at least: of one, the model learns only to say
     * that class (scikit-learn refuses such labels too).
     */
    private static void oneClass(TrainCommand c, Dataset train) {
        double[] y = train.y();
        for (int i = 1; i < train.samples(); i++) {
            if (y[i] != y[0]) {
                return;
            }
        }
        Path labels = c.input.yFile != null ? c.input.yFile : c.input.xFile;
        throw new DataFormatException(labels + ": every one of the " + train.samples() + " training labels is the same "
            + "class; a classifier needs labels of two classes at least");
    }

    /** {@code train}'s options against the training data, before training starts. */
    static void trainData(TrainCommand c, Dataset train, int classes, TrainSpec spec) {
        // auto picks its count later (at most the cores); the arrays and the heap are checked at one rank here
        TrainSpec counted = spec.run().nodes() instanceof RunSpec.Nodes.Auto ? spec.withNodes(1) : spec;
        batchNorm(c, train, counted);
        if (c.batchSize > 0 && c.batchSize <= train.samples()) {
            long steps = (long) c.epochs * (train.samples() / c.batchSize);
            if (c.learning.warmupSteps > steps) {
                throw new IllegalArgumentException("--warmup-steps " + c.learning.warmupSteps + " is longer than the run ("
                    + steps + " steps: " + c.epochs + " epochs of " + train.samples() / c.batchSize + "), so the "
                    + "learning rate would never reach --lr");
            }
        }
        if (c.learning.classes == 0 && classes > train.samples()) {
            // Counted from the largest label: one stray label (1000000 in a file of 0..9) makes a huge model.
            Path labels = c.input.yFile != null ? c.input.yFile : c.input.xFile;
            throw new DataFormatException(labels + ": the largest label makes "
                + classes + " classes, more than the " + train.samples() + " samples; if that is meant, say so "
                + "with --classes " + classes);
        }
        if (spec.model().classifier() && train.samples() > 0) {
            oneClass(c, train);
        }
        long params = spec.model().parameterCount(train.features(), classes);
        String model = "--model " + c.learning.model + " with " + train.features() + " features"
            + (c.learning.layers.isBlank() ? "" : ", --layers " + c.learning.layers) + (classes > 0 ? " and " + classes + " classes" : "");
        if (params > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException(model + " has " + params + " parameters, more than one array holds ("
                + HeapBudget.MAX_ARRAY + ")");
        }
        long table = MemoryEstimate.largestArray(train.samples(), params, spec.run());
        if (table > HeapBudget.MAX_ARRAY) {
            int blocks = MemoryEstimate.stepBlocks(train.samples(), spec.run()).blocks();
            throw new IllegalArgumentException(model + " has " + params + " parameters; the gradient exchange keeps "
                + "them for each of the " + blocks + " blocks, " + table + " values, more than one array holds ("
                + HeapBudget.MAX_ARRAY + "); give a larger --block-size (fewer blocks) or a smaller model");
        }
        if (!c.backendOptions.isMpi()) {
            MemoryEstimate.check(train.samples(), params, counted);
        }
    }

    /** Options that the model or optimiser chosen would ignore. */
    private static void noEffect(ParseResult given, TrainCommand c) {
        boolean network = NETWORKS.contains(c.learning.model);
        boolean cnn = c.learning.model.equals("cnn");
        String withModel = "with --model " + c.learning.model;
        refuse(given, "--layers", !network && !cnn, withModel + ": only the networks (--model mlp, mlp-regression, cnn) "
            + "have layers");
        refuse(given, "--image-shape", !cnn, withModel + ": only --model cnn reads samples as images");
        refuse(given, "--activation", !network, withModel + ": only the MLPs (--model mlp, mlp-regression) have "
            + "hidden activations" + (cnn ? " (a cnn's are ReLU)" : ""));
        refuse(given, "--intercept", network || cnn, withModel + ": a network always learns biases");
        refuse(given, "--classes", !List.of("softmax", "mlp", "cnn").contains(c.learning.model), withModel + ": "
            + (c.learning.model.equals("logistic") ? "logistic regression always has 2 classes" : "a regression has no classes"));
        String method = c.learning.optimizer().method().name().toLowerCase(java.util.Locale.ROOT);
        refuse(given, "--momentum", method.equals("gd") || method.equals("adam"), "with --optimizer "
            + method + ": only momentum and nesterov use it");
        refuse(given, "--seed", !network && !cnn && c.batchSize == 0 && c.input.testFraction == 0, "here: it seeds the train/test "
            + "split (--test-fraction), the mini-batch order (--batch-size) and an MLP's initial weights, and this "
            + "run has none of them");
    }

    /** Options that the data format chosen would ignore ({@code test} whether test data is given). */
    static void formats(ParseResult given, DataFormatOptions options, boolean test) {
        String format = options.format().label();
        boolean csv = format.equals("csv");
        boolean table = csv || format.equals("libsvm") || format.equals("npz");
        String withFormat = "with " + options.described();
        refuse(given, "--labels", table, withFormat + ": its file holds the labels"
            + (csv ? " (--label names their column)" : format.equals("npz") ? " (--npz-y names their array)" : ""));
        refuse(given, "--label", !csv, withFormat + ": only csv files name their label column");
        refuse(given, "--delimiter", !csv, withFormat + ": only csv files have a delimiter to choose");
        refuse(given, "--no-header", !csv, withFormat + ": only csv files have a header line");
        refuse(given, "--zero-based", !format.equals("libsvm"), withFormat + ": only libsvm files have indices");
        refuse(given, "--n-features", !format.equals("libsvm"), withFormat + ": only libsvm files leave features out");
        refuse(given, "--npz-x", !format.equals("npz"), withFormat + ": only npz files hold named arrays");
        refuse(given, "--npz-y", !format.equals("npz"), withFormat + ": only npz files hold named arrays");
        options.layout();   // a bad --delimiter is an option error, before any file is read
        options.libsvm();   // and so is a bad --zero-based
        if (given.hasMatchedOption("--n-features")) {
            range("--n-features", given.matchedOptionValue("--n-features", 0), 1, HeapBudget.MAX_ARRAY);
        }
        if (given.hasMatchedOption("--test-labels")) {
            refuse(given, "--test-labels", !test, "without --test-data");
            refuse(given, "--test-labels", table, withFormat + ": the --test-data file holds its labels");
        }
    }

    /** Options of the MPI backend given with the local one. */
    static void backend(ParseResult given, boolean mpi) {
        refuse(given, "--hostfile", !mpi, "with --backend local: ranks are threads of this JVM");
        refuse(given, "--mpirun-args", !mpi, "with --backend local: no mpirun is started");
        refuse(given, "--ranks-per-process", !mpi, "with --backend local: every rank is a thread of this JVM already");
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
     * Checks a count option's value is in [min, max].
     *
     * @param option the option, for the message
     * @param value  its value
     * @param min    the least allowed
     * @param max    the most allowed
     * @throws IllegalArgumentException naming the option and the range
     */
    public static void range(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be in [%d, %d], got %d", option,
                min, max, value));
        }
    }

    /** {@code train}'s layout limits where a launcher starts the ranks itself ({@code launches}). */
    static void layout(TrainCommand c, TrainSpec spec, boolean launches) {
        if (launches && c.backendOptions.ranksPerProcess(spec.nodes()) > 1    // checks the layout
            && spec.exchange().scheme() == org.paratrain.train.spec.ExchangeSpec.Scheme.SHARDED && spec.exchange().algorithm().equals("native")) {
            throw new IllegalArgumentException("--shard-optimizer with --allreduce native cannot run with "
                + "--ranks-per-process above 1: MPI's own reduce-scatter is between processes; use ring or rabenseifner");
        }
    }
}
