package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.TrainingState;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.Backend;
import org.paratrain.experiment.ModelFile;
import org.paratrain.cli.experiment.TrainingData;
import org.paratrain.train.LossReduction;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
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
    picocli.CommandLine.Model.CommandSpec command;

    @picocli.CommandLine.Mixin
    TrainDataOptions input;

    @picocli.CommandLine.Mixin
    DataFormatOptions dataFormat;

    @Option(names = "--nodes", defaultValue = "1",
        description = "Number of ranks, or auto (the fastest by the cost model, up to the cores) (default ${DEFAULT-VALUE}).")
    String nodesText;

    @Option(names = "--epochs", description = "Epochs (default: 300, the paper's, for its linear regression; for "
        + "other models about 3,000 steps' worth, 10 to 1,000 epochs).")
    Integer epochsGiven;

    /** The epochs run: {@code --epochs}, or the default once the data's size is known. */
    int epochs;

    @picocli.CommandLine.Mixin
    ModelOptions learning;

    @Option(names = "--loss-reduction", description = "sum or mean of the samples' losses (default: sum, the paper's, "
        + "for its linear regression; mean for classifiers and networks).")
    String lossReduction;

    @Option(names = "--block-size", defaultValue = "0",
        description = "Samples per shard block; 0 (default) picks 32 to 256 blocks of the data at full batch, and "
            + "4 or more blocks of up to 64 samples a mini-batch. Results are identical at any node count for one "
            + "block size; no more ranks than blocks do work.")
    int blockSize;

    @Option(names = "--batch-size",
        description = "Samples per step for mini-batch SGD (0: full batch; default: full batch for the paper's linear "
            + "regression, 32 for other models). Batches visit the samples in an order drawn from --seed, the same at "
            + "any node count; the last short batch of an epoch is dropped.")
    Integer batchGiven;

    /** The mini-batch size run: {@code --batch-size}, or the default once the data's size is known. */
    int batchSize;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the train/test split and the mini-batch order (default ${DEFAULT-VALUE}).")
    long seed;

    @picocli.CommandLine.Mixin
    ExchangeOptions exchange;

    @picocli.CommandLine.Mixin
    BackendOptions backendOptions;

    @picocli.CommandLine.Mixin
    CheckpointOptions checkpoints;

    @picocli.CommandLine.Mixin
    MonitorOptions monitor;

    @Option(names = "--inject-failure", hidden = true,
        description = "RANK:STEP[:hang|:slow=F]: make a rank fail, hang, or compute its blocks F times, for tests.")
    String injectFailure;

    @Option(names = "--out", description = "Directory for result.json and history.csv.")
    Path out;

    /** Where {@code --init-from} started the run, for result.json and model.json; null without it. */
    ObjectNode initRecord;

    @Override
    public void run() {
        boolean paper = learning.paperDefaults();
        epochs = epochsGiven != null ? epochsGiven : org.paratrain.train.spec.Defaults.PAPER_EPOCHS;
        batchSize = batchGiven != null ? batchGiven : paper ? 0 : org.paratrain.train.spec.Defaults.BATCH;
        backendOptions.sparkAllowed = true;
        if (backendOptions.isSpark()) {
            SparkTrain.run(this);
            return;
        }
        OptionChecks.train(this);
        boolean mpi = backendOptions.isMpi();
        boolean child = mpi && Backend.insideMpiJob();
        if (child) {
            backendOptions.configureRank();
        }
        TrainSpec spec = spec(child);
        if (mpi && spec.exchange().isAuto() && spec.exchange().sum() == null) {
            // Every exchange the ranks choose among sums with the default: recorded as such, so that a
            // checkpoint's settings (written after the choice) match this command's when it resumes.
            spec = spec.withExchange(ExchangeSpec.parse("auto", ExchangeSpec.Sum.DEFAULT_FIXED));
        }
        DataSpec dataSpec = dataSpec();
        boolean autoNodes = spec.run().nodes() instanceof RunSpec.Nodes.Auto;
        noAutoInsideJob(child, autoNodes);
        OptionChecks.layout(this, spec, mpi && !child && !autoNodes);
        List<String> args = List.of(command.commandLine().getParseResult().originalArgs().toArray(String[]::new));
        Provenance provenance = Provenance.capture(args);
        checkpoints.commTimeoutSeconds = backendOptions.commTimeout;
        checkpoints.sharded = spec.exchange().scheme() == ExchangeSpec.Scheme.SHARDED;
        checkpoints.check(autoNodes ? 1 : spec.nodes(), batchSize);
        monitor.check(input.valX != null || input.valFraction > 0);
        if (child && shardable(spec)) {
            ShardTraining.run(this, spec, provenance);
            return;
        }
        TrainingData prepared = TrainingData.prepare(dataSpec, spec.model());
        prepared.notes().forEach(n -> err().println("paratrain: note: " + n));
        Dataset data = prepared.train();
        spec = sizedDefaults(spec, data.samples());
        int classes = spec.check(data);
        OptionChecks.trainData(this, data, classes, spec);
        checkpoints.readInit(spec.model(), data.features(), classes, prepared.columns());
        AutoChoice.Chosen chosen = AutoChoice.choose(this, spec, args, data, classes, mpi, child, autoNodes);
        spec = chosen.spec();
        args = chosen.args();
        JsonNode meta = checkpoints.active() && Backend.mpiRankFromEnvironment() == 0
            ? meta(spec, TrainingData.fingerprint(dataSpec), provenance) : null;
        java.io.PrintWriter says = Backend.mpiRankFromEnvironment() == 0 && (child || !mpi) ? out()
            : new java.io.PrintWriter(java.io.Writer.nullWriter());
        TrainingState resumed = checkpoints.resume == null ? null : checkpoints.load(child ? null : meta,
            w -> err().println("paratrain: warning: " + w), says);
        initRecord = checkpoints.initRecord(resumed != null, says);
        Attempts attempts = new Attempts(checkpoints, meta, err());
        if (mpi && !child) {
            launchMpi(attempts, spec.nodes(), args);
            return;
        }
        TrainingResult r = WholeDataTraining.train(this, attempts, meta, prepared, classes, spec, resumed);
        if (r == null) {
            return;   // an MPI rank other than 0: rank 0 reports
        }
        WholeDataTraining.report(this, r, spec, dataSpec, new ModelFile(spec.model(), data.features(), classes,
            r.params(), prepared.standardizer(), prepared.classNames(), prepared.columns(), dataSpec.format()),
            prepared, attempts, provenance);
    }

    /** The batch size and epochs not given, from the training data's size ({@link org.paratrain.train.spec.Defaults}). */
    private TrainSpec sizedDefaults(TrainSpec spec, int samples) {
        if (batchGiven == null) {
            batchSize = org.paratrain.train.spec.Defaults.batchSize(spec.model(), samples);
        }
        if (epochsGiven == null) {
            epochs = org.paratrain.train.spec.Defaults.epochs(spec.model(), samples, batchSize);
        }
        return spec.withBatches(batchSize, seed).withEpochs(epochs);
    }

    /**
     * Under the user's own mpirun every rank must see the same node count, which is decided before
     * launching: {@code --nodes auto} is refused there ({@code --allreduce auto} is decided by the ranks).
     */
    private static void noAutoInsideJob(boolean child, boolean auto) {
        if (child && auto) {
            throw new IllegalArgumentException("--nodes auto is decided before launching; under your own mpirun give "
                + "--nodes explicitly");
        }
    }

    /** Starts mpirun with this command line (again, from a checkpoint, as long as restarts are allowed). */
    private void launchMpi(Attempts attempts, int nodes, List<String> args) {
        List<String> base = Attempts.withoutOption(Attempts.withoutOption(args, "--max-restarts"), "--min-nodes");
        attempts.runMpi(nodes, how -> backendOptions.launch(how.nodes(), relaunch(base, how)));
        if (out != null && !attempts.log().isEmpty()) {
            RunWriter.addToResult(out, "restarts", attempts.log());   // rank 0 of the last attempt wrote it
        }
    }

    /**
     * The run's specs: the one place where this command's options become settings. A
     * setting out of range is an error naming its option.
     *
     * @param child whether this is a rank of an MPI job, whose size is the node count unless given
     */
    TrainSpec spec(boolean child) {
        RunSpec.Nodes nodes = child && !command.commandLine().getParseResult().hasMatchedOption("--nodes")
            ? new RunSpec.Nodes.Count(Backend.mpiJobSize())
            : RunSpec.Nodes.parse(nodesText);
        ModelSpec m = idxImages(learning.model());
        OptimizerSpec o = learning.optimizer();
        int rebalance = exchange.rebalance();
        String reduction = lossReduction != null ? lossReduction : learning.paperDefaults() ? "sum" : "mean";
        RunSpec run = new RunSpec(nodes, epochs, batchSize, seed, reduction(reduction), blockSize, rebalance,
            exchange.bucketSize());
        return new TrainSpec(m, o, exchange.spec(rebalance), run, learning.loss());
    }

    /** A CNN on IDX images without --image-shape takes the images' shape from the file's header. */
    private ModelSpec idxImages(ModelSpec m) {
        if (!(m instanceof ModelSpec.Cnn cnn) || cnn.image() != null || dataFormat.format() != DataSpec.Format.IDX
            || input.xFile == null) {
            return m;
        }
        int[] item = org.paratrain.data.IdxFormat.itemShape(input.xFile);
        if (item.length < 2 || item.length > 3 || item.length == 2 && item[0] == item[1]) {
            return m;       // not images (checked as a square), or the square of one channel the default assumes
        }
        return new ModelSpec.Cnn(cnn.layers(), new org.paratrain.model.ConvNet.Shape(item[0], item[1],
            item.length == 3 ? item[2] : 1), cnn.classes(), cnn.precision());
    }

    /** The data's spec: files, format, held-out samples and scaling. */
    DataSpec dataSpec() {
        return input.spec(dataFormat, seed, learning.model());
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
    JsonNode meta(TrainSpec spec, ObjectNode data, Provenance provenance) {
        return CheckpointOptions.meta(SpecCodec.encode(spec), data, provenance.toJson());
    }

    java.io.PrintWriter err() {
        return command.commandLine().getErr();
    }

    /**
     * Whether each MPI rank can read only its own blocks: full batch, no split, no scaling, no
     * {@code --rebalance} (those need every sample), no injected failure, the paper's format, and
     * a known number of classes.
     */
    private boolean shardable(TrainSpec spec) {
        boolean classesKnown = !spec.model().classifier() || spec.model().classes() > 0;
        DataSpec.Format format = dataFormat.format();
        return batchSize == 0 && input.testFraction == 0 && input.testX == null
            && !input.standardize(spec.model(), format) && input.valX == null && input.valFraction == 0
            && (format == DataSpec.Format.PAPER || format == DataSpec.Format.IDX) && classesKnown
            && injectFailure == null && exchange.rebalance() == 0 && !"false".equals(System.getenv("PARATRAIN_SHARD_READ"));
    }

    java.io.PrintWriter out() {
        return command.commandLine().getOut();
    }

    static LossReduction reduction(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "sum" -> LossReduction.SUM;
            case "mean" -> LossReduction.MEAN;
            default -> throw new IllegalArgumentException("--loss-reduction must be sum or mean, got '" + s + "'");
        };
    }

}
