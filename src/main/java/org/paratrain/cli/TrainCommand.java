package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.paratrain.experiment.DataFingerprint;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingState;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.Backend;
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

    @picocli.CommandLine.Mixin
    CheckpointOptions checkpoints;

    @picocli.CommandLine.Mixin
    MonitorOptions monitor;

    @Option(names = "--inject-failure", hidden = true, description = "RANK:EPOCH: make a rank fail, for tests.")
    String injectFailure;

    @Option(names = "--out", description = "Directory for result.json and history.csv.")
    Path out;

    @Override
    public void run() {
        OptionChecks.train(this);
        boolean mpi = backendOptions.isMpi();
        boolean child = mpi && Backend.insideMpiJob();
        if (child) {
            backendOptions.configureRank();
        }
        if (child && (nodesText.equals("auto") || allreduce.equals("auto"))) {
            throw new IllegalArgumentException("auto is decided before launching; under your own mpirun give --nodes "
                + "and --allreduce explicitly");
        }
        int n = child && !spec.commandLine().getParseResult().hasMatchedOption("--nodes")
            ? Backend.mpiWorld().size() : parseNodes(nodesText);
        TrainConfig config = new TrainConfig(n == AUTO ? 1 : n, epochs, lr, intercept, reduction(lossReduction), blockSize,
            allreduce);
        FailureInjection failure = injectFailure == null ? null : FailureInjection.parse(injectFailure);
        Recipe recipe = new Recipe(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize,
            seed, layers, activation);
        List<String> args = List.of(spec.commandLine().getParseResult().originalArgs().toArray(String[]::new));
        Provenance provenance = Provenance.capture(args);
        checkpoints.commTimeoutSeconds = backendOptions.commTimeout;
        checkpoints.check(config.nodes(), batchSize);
        monitor.check(testX != null || testFraction > 0);
        if (child && shardable()) {
            trainOnShard(config, recipe, provenance);
            return;
        }
        DataFormatOptions.Labelled labelled = readTraining();
        Prepared prepared = prepare(labelled.data(), testX == null ? null
            : checked(dataFormat.readWithClasses(testX, testY, "--test-labels", labelled.classes()),
                testY == null ? testX : testY));
        Dataset data = prepared.train();
        OptionChecks.trainData(this, data, recipe.check(data), config, recipe);
        if (n == AUTO || config.exchange().equals("auto")) {
            config = AutoChoice.resolve(config, n == AUTO, data, mpi, out());
            args = AutoChoice.replace(args, config);
        }
        JsonNode meta = checkpoints.active() && Backend.mpiRankFromEnvironment() == 0 ? meta(config, recipe, provenance)
            : null;
        TrainingState resumed = checkpoints.resume == null ? null : CheckpointOptions.load(checkpoints.resume,
            child ? null : meta, w -> err().println("paratrain: warning: " + w));
        Attempts attempts = new Attempts(checkpoints, meta, err());
        if (mpi && !child) {
            List<String> base = Attempts.withoutOption(Attempts.withoutOption(args, "--max-restarts"), "--min-nodes");
            attempts.runMpi(config.nodes(), how -> backendOptions.launchStatus(how.nodes(), relaunch(base, how)));
            if (out != null && !attempts.log().isEmpty()) {
                RunWriter.addToResult(out, "restarts", attempts.log());   // rank 0 of the last attempt wrote it
            }
            return;
        }
        TrainingControl.Validation validation = prepared.test() == null ? null : monitor.validation(prepared.test(),
            recipe.newModel(data.features(), config.intercept(), recipe.check(data)), config.lossReduction());
        TrainingResult r = train(attempts, meta, data, config, recipe, resumed, failure, validation);
        if (r == null) {
            return;   // an MPI rank other than 0: rank 0 reports
        }
        org.paratrain.train.Divergence.checkFinal(r, config.learningRate());
        TrainReport.print(out(), model, data.samples(), data.features(), r, epochs);
        ModelFile file = new ModelFile(recipe.model(), data.features(), recipe.check(data), config.intercept(),
            r.params(), prepared.standardizer(), recipe.layers(), recipe.activation(), labelled.classes());
        java.util.Map<String, Object> test = prepared.test() == null ? null : Metrics.evaluate(file.newModel(),
            r.params(), prepared.test(), labelled.classes() == null ? null : labelled.classes().names());
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
            if (!attempts.log().isEmpty()) {
                extra.set("restarts", attempts.log());
            }
            TrainReport.write(out(), out, r, config, recipe, file, d, extra, provenance);
        }
    }

    /**
     * Trains here (local backend, or this rank of an MPI job), with restarts on the local
     * backend; if the run fails for good, the history of the epochs it completed is written.
     */
    private TrainingResult train(Attempts attempts, JsonNode meta, Dataset data, TrainConfig config, Recipe recipe,
                                 TrainingState resumed, FailureInjection failure,
                                 TrainingControl.Validation validation) {
        boolean rankZero = Backend.mpiRankFromEnvironment() == 0;
        try (MonitorOptions.Display display = monitor.display(config.epochs(), out(), attempts.listener())) {
            TrainingControl.EpochListener listener = rankZero ? display : attempts.listener();
            if (backendOptions.isMpi()) {
                return onMpiRank(meta, resumed, listener, control -> FailureInjection.mpi(data, config, recipe,
                    control.withValidation(validation), failure));
            }
            return attempts.runLocal(config.nodes(), resumed, listener, (nodes, control, first) ->
                FailureInjection.local(data, config.withNodes(nodes), recipe, control.withValidation(validation),
                    first ? failure : null));
        } catch (RuntimeException e) {
            attempts.writePartialHistory(out);
            throw e;
        }
    }

    /** Trains this rank of an MPI job; rank 0 saves checkpoints (as the ranks share the state, one copy is all). */
    private TrainingResult onMpiRank(JsonNode meta, TrainingState resumed,
                                     org.paratrain.train.TrainingControl.EpochListener listener,
                                     java.util.function.Function<org.paratrain.train.TrainingControl, TrainingResult> run) {
        org.paratrain.train.checkpoint.CheckpointWriter w = meta == null ? null : checkpoints.writer(meta, f -> { });
        try {
            return run.apply(checkpoints.control(resumed, w, listener));
        } finally {
            if (w != null) {
                w.close();
            }
        }
    }

    /**
     * The command line of a (re)started MPI job: its node count and the checkpoint to resume
     * from, if any; a failure injected for a test happens in the first attempt only.
     */
    private static List<String> relaunch(List<String> args, Attempts.Restart how) {
        List<String> a = Attempts.withOption(args, "--nodes", Integer.toString(how.nodes()));
        if (how.resume() != null) {
            a = Attempts.withOption(a, "--resume", how.resume().toString());
        }
        return how.first() ? a : Attempts.withoutOption(a, "--inject-failure");
    }

    /** What every checkpoint of this run records. */
    private JsonNode meta(TrainConfig config, Recipe recipe, Provenance provenance) {
        ObjectNode prep = RunWriter.json().createObjectNode();
        prep.put("format", dataFormat.format);
        prep.put("standardized", standardize);
        prep.put("test_fraction", testFraction);
        prep.put("split_seed", seed);
        return CheckpointOptions.meta(SpecCodec.encode(config, recipe),
            DataFingerprint.of(java.util.Arrays.asList(xFile, yFile), prep), provenance.toJson());
    }

    private java.io.PrintWriter err() {
        return spec.commandLine().getErr();
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
        int rank = Backend.mpiWorld().rank();
        int from = sh.blockStart(sh.firstBlock(rank, config.nodes()));
        int to = sh.blockStart(sh.endBlock(rank, config.nodes()));
        Dataset shard = idx ? org.paratrain.data.IdxFormat.readRange(xFile, yFile, from, to)
            : PaperFormat.readRange(xFile, yFile, from, to, total);
        int k = model.equals("logistic") ? 2 : model.equals("linear") || model.equals("mlp-regression") ? 0 : classes;
        if (from < to) {
            recipe.withModel(model, k).check(shard);
        }
        JsonNode meta = checkpoints.active() && rank == 0 ? meta(config, recipe, provenance) : null;
        TrainingState resumed = checkpoints.resume == null ? null : CheckpointOptions.load(checkpoints.resume, null,
            w -> { });
        TrainingResult r = onMpiRank(meta, resumed, null, control -> Training.mpiShard(shard, from, to - from, total, k,
            config, recipe, control));
        if (r == null) {
            return;
        }
        org.paratrain.train.Divergence.checkFinal(r, config.learningRate());
        out().printf(Locale.ROOT, "(each rank read only the samples of its own blocks: rank 0, %d of %d)%n",
            to - from, total);
        TrainReport.print(out(), model, total, shard.features(), r, epochs);
        if (out != null) {
            ObjectNode d = RunWriter.json().createObjectNode();
            d.put("x", xFile.toString());
            d.put("y", yFile.toString());
            d.put("samples", total);
            d.put("features", shard.features());
            d.put("read", "each rank its own blocks");
            TrainReport.write(out(), out, r, config, recipe, new ModelFile(model, shard.features(), k,
                config.intercept(), r.params(), null, layers, activation, null), d, RunWriter.json().createObjectNode(),
                provenance);
        }
    }

    /** The training data, its labels as class indices and the names of the classes if they had names. */
    private DataFormatOptions.Labelled readTraining() {
        boolean classifier = model.equals("logistic") || model.equals("softmax") || model.equals("mlp");
        DataFormatOptions.Labelled l = dataFormat.readForTraining(xFile, yFile, "--labels", classifier, classes);
        DataFormatOptions.checkClasses(l.classes(), model, classes, xFile);
        return new DataFormatOptions.Labelled(checked(l.data(), yFile == null ? xFile : yFile), l.classes());
    }

    /** Labels that suit the model; an error names {@code file}, where the labels are. */
    private Dataset checked(Dataset d, Path file) {
        return OptionChecks.labels(model, classes, d, file);
    }

    private Prepared prepare(Dataset all, Dataset givenTest) {
        OptionChecks.sameFeatures(all, xFile, givenTest, testX);
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

}
