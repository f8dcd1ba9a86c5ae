package org.paratrain;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.paratrain.data.Dataset;
import org.paratrain.train.LossReduction;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.LossSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * What a {@link Trainer}'s chained calls have said so far, starting from the command line's
 * defaults: the paper's (gradient descent at 1e-4 on the summed loss) for linear regression,
 * Adam at 1e-3 on the mean loss for every other model, unless a call says otherwise.
 * The values are kept as the command line's option texts and only collected: nothing is
 * checked until {@link #spec} reads them into the specs, so a bad value fails with the
 * command line's message, naming the setting, and a later call can still correct an earlier
 * one.
 */
final class TrainerSettings {
    private Dataset data;
    String model = "linear";
    int classes;
    String layers = "";
    String activation = "relu";
    String precision = "float64";
    boolean intercept;
    /** Null until set: the paper's gd at 1e-4 for linear regression, Adam at 1e-3 for every other model. */
    String optimizer;
    double learningRate = Double.NaN;
    double momentum = 0.9;
    double weightDecay;
    double clipNorm;
    /** The class weights ({@code balanced}, {@code 1,2}) or null, and label smoothing. */
    String classWeights;
    double labelSmoothing;
    String schedule = "constant";
    long warmupSteps;
    /** Null until set: see {@link org.paratrain.train.spec.Defaults}. */
    Integer epochs;
    /** Null until set: see {@link org.paratrain.train.spec.Defaults}. */
    Integer batchSize;
    int blockSize;
    int rebalance;
    long seed = 42;
    /** Null until set: the paper's sum for linear regression, the mean for every other model. */
    LossReduction reduction;
    int nodes = 1;
    String exchange = "master-worker";
    String sum;
    boolean shard;
    TrainingControl.EpochListener listener;
    Dataset validation;
    int validateEvery;
    int patience;
    org.paratrain.train.TrainingControl.Plateau plateau;
    Path checkpointDir;
    int checkpointEvery;
    Path resume;
    /** A file of initial parameters (safetensors or model.json), or null. */
    Path initFrom;
    /** Initial parameters given as numbers, or null. */
    double[] initial;
    Duration commTimeout = TrainingControl.DEFAULT_TIMEOUT;

    TrainerSettings(Dataset data) {
        this.data = data;
    }

    Dataset data() {
        return data;
    }

    /** Weighs the training samples ({@link Dataset#withWeights}); null: all weigh 1. */
    void sampleWeights(double[] weights) {
        if (weights != null && weights.length != data.samples()) {
            throw new IllegalArgumentException("sampleWeights: " + weights.length + " weights for "
                + data.samples() + " samples; give one a sample");
        }
        data = data.withWeights(weights == null ? null : weights.clone());
    }

    /** Picks the model; unlike {@link #mlp} and {@link #cnn} it leaves the layers as they were. */
    void model(String kind, int k, boolean bias) {
        model = kind;
        classes = k;
        intercept = bias;
    }

    /** A network of {@code kind} {@code mlp} (classifier) or {@code mlp-regression}, with these hidden widths. */
    void mlp(String kind, int... hidden) {
        model(kind, 0, false);
        layers = Arrays.stream(hidden).mapToObj(Integer::toString).collect(Collectors.joining(","));
    }

    /** A network of {@code kind} with hidden layers as the command line writes them ({@code 256,dropout:0.5,128}). */
    void mlp(String kind, String hidden) {
        model(kind, 0, false);
        layers = hidden;
    }

    void cnn(String layers) {
        model("cnn", 0, false);
        this.layers = layers;
    }

    void optimizer(String kind, double lr) {
        optimizer = kind;
        learningRate = lr;
    }

    void momentum(double lr, double mu) {
        momentum = mu;
        optimizer("momentum", lr);
    }

    void validateOn(Dataset held, int every) {
        validation = held;
        validateEvery = every;
    }

    void checkpoints(Path dir, int every) {
        checkpointDir = dir;
        checkpointEvery = every;
    }

    /** {@return the settings as the specs every layer below reads; a bad one throws, naming it} */
    TrainSpec spec() {
        ModelSpec m = ModelNames.named(model, intercept, classes, org.paratrain.train.spec.Defaults.hiddenLayers(model,
            layers), activation, "").withPrecision(ModelNames.precision(precision));
        boolean paper = model.equals("linear");
        OptimizerSpec o = new OptimizerSpec(OptimizerSpec.Method.parse(optimizer != null ? optimizer : paper ? "gd"
            : "adam"), !Double.isNaN(learningRate) ? learningRate : paper ? 1e-4 : 1e-3, momentum, weightDecay,
            OptimizerSpec.Schedule.parse(schedule), warmupSteps, clipNorm);
        LossReduction r = reduction != null ? reduction : paper ? LossReduction.SUM : LossReduction.MEAN;
        int batch = batchSize != null ? batchSize : org.paratrain.train.spec.Defaults.batchSize(m, data.samples());
        int ep = epochs != null ? epochs : org.paratrain.train.spec.Defaults.epochs(m, data.samples(), batch);
        RunSpec run = new RunSpec(new RunSpec.Nodes.Count(nodes), ep, batch, seed, r, blockSize)
            .withRebalance(rebalance);
        ExchangeSpec e = ExchangeSpec.parse(exchange, sum == null ? null : ExchangeSpec.Sum.parse(sum));
        if (rebalance != 0 && nodes > 1) {
            // Refused here, before any rank starts, as the ranks would refuse it.
            if (e.scheme() == ExchangeSpec.Scheme.SHARED) {
                throw new IllegalArgumentException("rebalance does not apply to allreduce(\"shared\"), which hands out "
                    + "blocks as ranks are ready");
            }
            if (e.sum() == ExchangeSpec.Sum.FLOAT) {
                throw new IllegalArgumentException("rebalance needs a sum whose bits do not depend on which rank adds "
                    + "which blocks (\"blocks\" or \"fixed\"), got sum(\"float\")");
            }
        }
        if (e.scheme() == ExchangeSpec.Scheme.SHARED && m instanceof org.paratrain.train.spec.ModelSpec.Cnn c
            && c.normalises()) {
            // Refused here, before any rank starts, as the ranks would refuse it.
            throw new IllegalArgumentException("allreduce(\"shared\") does not go with batchnorm: it sums each step's "
                + "statistics over every rank's own blocks, and shared hands blocks out as ranks are ready");
        }
        return new TrainSpec(m, o, shard ? e.sharded() : e, run, LossSpec.parse(classWeights, labelSmoothing));
    }

    /** {@return rank 0's result of training on the data with these settings} */
    TrainingResult run() {
        return new TrainerRun(data, listener, commTimeout, validation, validateEvery, patience, checkpointDir,
            checkpointEvery, resume, initFrom, initial, plateau).run(spec());
    }
}
