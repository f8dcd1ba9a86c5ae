package org.paratrain.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.comm.mpi.MpiJob;
import org.paratrain.train.FailureInjection;
import org.paratrain.data.Standardizer;
import org.paratrain.data.TrainTestSplit;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.Metrics;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Recipe;
import org.paratrain.train.TrainConfig;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code paratrain train}: the paper's data-parallel gradient descent on a data set. */
@Command(name = "train", mixinStandardHelpOptions = true,
    description = {"Train a model data-parallel (by default the paper's linear regression).",
        "By default: linear regression by full-batch gradient descent, data-parallel:",
        "each rank computes the loss and gradient of its shard, rank 0 sums them, updates",
        "the weights and sends them back (the paper's scheme)."})
final class TrainCommand implements Runnable {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = {"--x", "--data"}, required = true,
        description = "Features: the paper's X.in (one sample a line), IDX images (--format idx), or a CSV or LibSVM "
            + "file holding the labels too.")
    Path xFile;

    @Option(names = {"--y", "--labels"},
        description = "Targets or labels for --format paper (the paper's y.in) and idx (IDX labels).")
    Path yFile;

    @picocli.CommandLine.Mixin
    DataFormatOptions dataFormat;

    @Option(names = "--test-data", description = "Test features, in --format (instead of --test-fraction).")
    Path testX;

    @Option(names = "--test-labels", description = "Test labels, in --format.")
    Path testY;

    @Option(names = "--nodes", defaultValue = "1",
        description = "Number of ranks, or auto (the fastest by the cost model, up to the cores) (default ${DEFAULT-VALUE}).")
    String nodesText;

    @Option(names = "--epochs", defaultValue = "300", description = "Epochs (default ${DEFAULT-VALUE}).")
    int epochs;

    @Option(names = "--lr", defaultValue = "1e-4", description = "Learning rate (default ${DEFAULT-VALUE}).")
    double lr;

    @Option(names = "--intercept", description = "Also learn a bias term.")
    boolean intercept;

    @Option(names = "--loss-reduction", defaultValue = "sum",
        description = "sum (the paper's) or mean of the squared errors (default ${DEFAULT-VALUE}).")
    String lossReduction;

    @Option(names = "--block-size", defaultValue = "0",
        description = "Samples per shard block; 0 picks 32 to 256 blocks (default). Results are identical "
            + "at any node count for one block size.")
    int blockSize;

    @Option(names = "--model", defaultValue = "linear",
        description = "linear (default), logistic (labels 0/1), softmax or mlp (labels 0..K-1), or mlp-regression "
            + "(an MLP with a squared-error head).")
    String model;

    @Option(names = "--classes", defaultValue = "0",
        description = "Classes for softmax and mlp (0: counted from the labels).")
    int classes;

    @Option(names = "--layers", defaultValue = "", description = "Hidden-layer widths of --model mlp, e.g. 256,128.")
    String layers;

    @Option(names = "--activation", defaultValue = "relu", description = "Hidden activation of --model mlp: relu "
        + "(He initialisation), tanh or sigmoid (Xavier).")
    String activation;

    @Option(names = "--optimizer", defaultValue = "gd", description = "gd (default), momentum, nesterov or adam.")
    String optimizer;

    @Option(names = "--momentum", defaultValue = "0.9", description = "Momentum for momentum and nesterov (default ${DEFAULT-VALUE}).")
    double momentum;

    @Option(names = "--weight-decay", defaultValue = "0", description = "L2 weight decay (decoupled for adam).")
    double weightDecay;

    @Option(names = "--schedule", defaultValue = "constant",
        description = "Learning rate schedule: constant (default), cosine or step:EVERY:FACTOR.")
    String schedule;

    @Option(names = "--warmup-steps", defaultValue = "0", description = "Linear learning-rate warm-up, in steps.")
    long warmupSteps;

    @Option(names = "--batch-size", defaultValue = "0",
        description = "Samples per step for mini-batch SGD (0: full batch, the default). Batches visit the samples in "
            + "an order drawn from --seed, the same at any node count; the last short batch of an epoch is dropped.")
    int batchSize;

    @Option(names = "--standardize", description = "Scale each feature to mean 0, sd 1 (fitted on the training data).")
    boolean standardize;

    @Option(names = "--test-fraction", defaultValue = "0",
        description = "Hold out this fraction of the samples for testing (0: none, default).")
    double testFraction;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the train/test split and the mini-batch order (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--allreduce", defaultValue = "master-worker",
        description = "How gradients are combined: master-worker (the paper's: gather to rank 0, which updates and "
            + "sends the weights back; default), star, tree, recursive-doubling, ring, rabenseifner, native "
            + "(MPI's own, with --backend mpi) or auto (the fastest by the cost model).")
    String allreduce;

    @picocli.CommandLine.Mixin
    BackendOptions backendOptions;

    @Option(names = "--inject-failure", hidden = true, description = "RANK:EPOCH: make a rank fail, for tests.")
    String injectFailure;

    @Option(names = "--out", description = "Directory for result.json and history.csv.")
    Path out;

    @Override
    public void run() {
        boolean mpi = backendOptions.isMpi();
        boolean child = mpi && MpiJob.insideMpirun();
        if (child) {
            backendOptions.configureRank();
        }
        if (child && (nodesText.equals("auto") || allreduce.equals("auto"))) {
            throw new IllegalArgumentException("auto is decided before launching; under your own mpirun give --nodes "
                + "and --allreduce explicitly");
        }
        int n = child && !spec.commandLine().getParseResult().hasMatchedOption("--nodes")
            ? org.paratrain.comm.mpi.MpiCommunicator.world().size() : parseNodes(nodesText);
        TrainConfig config = new TrainConfig(n == AUTO ? 1 : n, epochs, lr, intercept, reduction(lossReduction), blockSize,
            allreduce);
        FailureInjection failure = injectFailure == null ? null : FailureInjection.parse(injectFailure);
        Recipe recipe = new Recipe(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize,
            seed, layers, activation);
        List<String> args = List.of(spec.commandLine().getParseResult().originalArgs().toArray(String[]::new));
        Provenance provenance = Provenance.capture(args);
        if (child && shardable()) {
            trainOnShard(config, recipe, provenance);
            return;
        }
        Prepared prepared = prepare(read(xFile, yFile, "--labels"), testX == null ? null
            : read(testX, testY, "--test-labels"));
        Dataset data = prepared.train();
        if (n == AUTO || config.exchange().equals("auto")) {
            config = AutoChoice.resolve(config, n == AUTO, data, mpi, out());
            args = AutoChoice.replace(args, config);
        }
        if (mpi && !child) {
            backendOptions.launch(config.nodes(), args);   // every rank runs this command again, under mpirun
            return;
        }
        TrainingResult r = mpi ? Training.mpi(data, config, recipe, failure)
            : Training.local(data, config, recipe, failure);
        if (r == null) {
            return;   // an MPI rank other than 0: rank 0 reports
        }
        printSummary(data, r);
        ModelFile file = new ModelFile(recipe.model(), data.features(), recipe.check(data), config.intercept(),
            r.params(), prepared.standardizer(), recipe.layers(), recipe.activation());
        java.util.Map<String, Object> test = prepared.test() == null ? null
            : Metrics.evaluate(file.newModel(), r.params(), prepared.test());
        if (test != null) {
            out().println("  test       " + Evaluate.format(test));
        }
        if (out != null) {
            ObjectNode d = RunWriter.json().createObjectNode();
            d.put("x", xFile.toString());
            d.put("y", yFile == null ? "" : yFile.toString());
            d.put("format", dataFormat.format);
            d.put("samples", data.samples());
            d.put("features", data.features());
            d.put("standardized", standardize);
            d.put("test_fraction", testFraction);
            d.put("split_seed", seed);
            ObjectNode extra = RunWriter.json().createObjectNode();
            if (test != null) {
                extra.set("test_metrics", RunWriter.json().valueToTree(test));
            }
            RunWriter.write(out, r, config, recipe, d, provenance, extra);
            file.write(out.resolve("model.json"), RunWriter.resultJson(r, config).retain("config", "epochs", "nodes",
                "backend", "algorithm", "final_loss"), provenance);
            out().println("wrote " + out.resolve("result.json") + ", history.csv and model.json");
        }
    }

    /** The training data (and test data and scaling, when asked for). */
    record Prepared(Dataset train, Dataset test, Standardizer standardizer) { }

    /**
     * Whether each MPI rank can read only its own blocks: full batch, no split, no scaling
     * (those need every sample), the paper's format, and a known number of classes.
     */
    private boolean shardable() {
        boolean classesKnown = model.equals("linear") || model.equals("logistic") || model.equals("mlp-regression")
            || classes > 0;
        boolean format = dataFormat.format.equals("paper") || dataFormat.format.equals("idx");
        return batchSize == 0 && testFraction == 0 && testX == null && !standardize
            && format && classesKnown && injectFailure == null
            && !"false".equals(System.getenv("PARATRAIN_SHARD_READ"));
    }

    /** This rank reads only the lines of its blocks, and trains on them. */
    private void trainOnShard(TrainConfig config, Recipe recipe, Provenance provenance) {
        boolean idx = dataFormat.format.equals("idx");
        if (yFile == null) {
            throw new IllegalArgumentException("--format " + dataFormat.format + " needs --labels");
        }
        int total = idx ? org.paratrain.data.IdxFormat.count(xFile) : PaperFormat.countSamples(xFile);
        org.paratrain.data.BlockSharding sh = config.blockSize() == 0
            ? org.paratrain.data.BlockSharding.byDefault(total)
            : new org.paratrain.data.BlockSharding(total, config.blockSize());
        int rank = org.paratrain.comm.mpi.MpiCommunicator.world().rank();
        int from = sh.blockStart(sh.firstBlock(rank, config.nodes()));
        int to = sh.blockStart(sh.endBlock(rank, config.nodes()));
        Dataset shard = idx ? org.paratrain.data.IdxFormat.readRange(xFile, yFile, from, to)
            : PaperFormat.readRange(xFile, yFile, from, to, total);
        int k = model.equals("logistic") ? 2 : model.equals("linear") || model.equals("mlp-regression") ? 0 : classes;
        if (from < to) {
            recipe.withModel(model, k).check(shard);
        }
        TrainingResult r = Training.mpiShard(shard, from, to - from, total, k, config, recipe);
        if (r == null) {
            return;
        }
        out().printf(Locale.ROOT, "(each rank read only the samples of its own blocks: rank 0, %d of %d)%n",
            to - from, total);
        printSummary(new Dataset(new double[shard.features()], new double[1], 1, shard.features()), r, total);
        if (out != null) {
            ObjectNode d = RunWriter.json().createObjectNode();
            d.put("x", xFile.toString());
            d.put("y", yFile.toString());
            d.put("samples", total);
            d.put("features", shard.features());
            d.put("read", "each rank its own blocks");
            RunWriter.write(out, r, config, recipe, d, provenance);
            new ModelFile(model, shard.features(), k, config.intercept(), r.params(), null, layers, activation)
                .write(out.resolve("model.json"), RunWriter.resultJson(r, config).retain("config", "epochs", "nodes",
                    "backend", "algorithm", "final_loss"), provenance);
            out().println("wrote " + out.resolve("result.json") + ", history.csv and model.json");
        }
    }

    private Dataset read(Path x, Path y, String labelsOption) {
        return dataFormat.read(x, y, labelsOption);
    }

    private Prepared prepare(Dataset all, Dataset givenTest) {
        if (givenTest != null && testFraction != 0) {
            throw new IllegalArgumentException("give either --test-data or --test-fraction, not both");
        }
        TrainTestSplit split = testFraction == 0 ? null : TrainTestSplit.of(all, testFraction, seed);
        Dataset train = split == null ? all : split.train();
        Dataset test = split == null ? givenTest : split.test();
        if (!standardize) {
            return new Prepared(train, test, null);
        }
        Standardizer st = Standardizer.fit(train);
        return new Prepared(st.apply(train), test == null ? null : st.apply(test), st);
    }

    private static final int AUTO = -1;

    private static int parseNodes(String s) {
        if (s.equals("auto")) {
            return AUTO;
        }
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--nodes must be a whole number or auto, got '" + s + "'");
        }
    }

    private java.io.PrintWriter out() {
        return spec.commandLine().getOut();
    }

    static LossReduction reduction(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "sum" -> LossReduction.SUM;
            case "mean" -> LossReduction.MEAN;
            default -> throw new IllegalArgumentException("--loss-reduction must be sum or mean, got '" + s + "'");
        };
    }

    private void printSummary(Dataset data, TrainingResult r) {
        printSummary(data, r, data.samples());
    }

    private void printSummary(Dataset data, TrainingResult r, int samples) {
        out().printf(Locale.ROOT, "trained %s on %d samples x %d features: %d nodes (%s, %s), %d epochs%n", model,
            samples, data.features(), r.nodes(), r.backend(), r.algorithm(), r.epochs());
        out().println("  params     " + format(r.params()));
        out().printf(Locale.ROOT, "  final loss %.10g%n", r.finalLoss());
        if (!Double.isNaN(r.trainAccuracy())) {
            out().printf(Locale.ROOT, "  accuracy   %.2f%% on the training data%n", 100 * r.trainAccuracy());
        }
        out().printf(Locale.ROOT, "  time       %.3f ms (%.2f us/epoch: compute %.2f, communication %.2f)%n",
            r.trainSeconds() * 1e3, r.trainSeconds() / r.epochs() * 1e6, r.computeSeconds() / r.epochs() * 1e6,
            r.commSeconds() / r.epochs() * 1e6);
    }

    private static String format(double[] v) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(v.length, 8);
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.10g", v[i]));
        }
        return v.length > shown ? sb + " ... (" + v.length + " in all)" : sb.toString();
    }
}
