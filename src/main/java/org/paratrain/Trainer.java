package org.paratrain;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.DataFingerprint;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.model.Classifier;
import org.paratrain.model.Model;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Recipe;
import org.paratrain.train.TrainConfig;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;

/**
 * Training from a Java program, in a few chained calls: what to train, how to update it, on
 * how many ranks, and what to do after every epoch. Every setting is checked when
 * {@link #run} starts, with the same messages as the command line gives.
 *
 * <pre>{@code
 * TrainingResult r = Trainer.on(data)
 *     .softmax(3).adam(0.05).epochs(200).batchSize(64)
 *     .nodes(4)
 *     .onEpoch((epoch, history) -> System.out.println(epoch + " " + history.loss()[epoch - 1]))
 *     .run();
 * }</pre>
 *
 * Ranks are threads of this JVM (the local backend). Results are the same bits at any node
 * count; a run checkpointed with {@link #checkpoints} and continued with {@link #resumeFrom}
 * ends with the bits of one that never stopped.
 */
public final class Trainer {
    private final Dataset data;
    private String model = "linear";
    private int classes;
    private String layers = "";
    private String activation = "relu";
    private boolean intercept;
    private String optimizer = "gd";
    private double learningRate = 1e-4;
    private double momentum = 0.9;
    private double weightDecay;
    private String schedule = "constant";
    private long warmupSteps;
    private int epochs = 300;
    private int batchSize;
    private int blockSize;
    private long seed = 42;
    private LossReduction reduction = LossReduction.SUM;
    private int nodes = 1;
    private String exchange = TrainConfig.MASTER_WORKER;
    private TrainingControl.EpochListener listener;
    private Dataset validation;
    private int validateEvery;
    private int patience;
    private Path checkpointDir;
    private int checkpointEvery;
    private Path resume;
    private Duration commTimeout = TrainingControl.DEFAULT_TIMEOUT;

    private Trainer(Dataset data) {
        this.data = data;
    }

    /** A trainer of the paper's defaults (linear regression, gradient descent, lr 1e-4, 300 epochs, summed loss, 1 rank) on {@code data}. */
    public static Trainer on(Dataset data) {
        return new Trainer(data);
    }

    /** Linear regression (the default); {@code withIntercept} learns a bias too. @return this */
    public Trainer linear(boolean withIntercept) {
        return model("linear", 0, withIntercept);
    }

    /** Logistic regression, labels 0 and 1, with a bias. @return this */
    public Trainer logistic() {
        return model("logistic", 0, true);
    }

    /** Softmax regression over {@code k} classes (labels 0..k-1; 0: counted from the labels), with biases. @return this */
    public Trainer softmax(int k) {
        return model("softmax", k, true);
    }

    /**
     * A multilayer perceptron classifier with ReLU hidden layers of the given widths.
     *
     * @param hidden widths of the hidden layers, e.g. 256, 128
     * @return this
     */
    public Trainer mlp(int... hidden) {
        model("mlp", 0, false);
        layers = Arrays.stream(hidden).mapToObj(Integer::toString).collect(Collectors.joining(","));
        return this;
    }

    /** The hidden activation of an MLP: relu (the default), tanh or sigmoid. @return this */
    public Trainer activation(String name) {
        activation = name;
        return this;
    }

    private Trainer model(String kind, int k, boolean bias) {
        model = kind;
        classes = k;
        intercept = bias;
        return this;
    }

    /** Plain gradient descent at learning rate {@code lr} (the paper's rule). @return this */
    public Trainer gd(double lr) {
        return optimizer("gd", lr);
    }

    /** Gradient descent with heavy-ball momentum {@code mu}. @return this */
    public Trainer momentum(double lr, double mu) {
        momentum = mu;
        return optimizer("momentum", lr);
    }

    /** Adam (betas 0.9 and 0.999, epsilon 1e-8). @return this */
    public Trainer adam(double lr) {
        return optimizer("adam", lr);
    }

    private Trainer optimizer(String kind, double lr) {
        optimizer = kind;
        learningRate = lr;
        return this;
    }

    /** L2 weight decay (decoupled for Adam). @return this */
    public Trainer weightDecay(double decay) {
        weightDecay = decay;
        return this;
    }

    /** Cosine decay of the learning rate to 0 over the run. @return this */
    public Trainer cosineSchedule() {
        schedule = "cosine";
        return this;
    }

    /** The learning rate times {@code factor} every {@code every} updates. @return this */
    public Trainer stepSchedule(long every, double factor) {
        schedule = "step:" + every + ":" + factor;
        return this;
    }

    /** A linear warm-up of the learning rate over the first {@code steps} updates. @return this */
    public Trainer warmup(long steps) {
        warmupSteps = steps;
        return this;
    }

    /** Full passes over the data. @return this */
    public Trainer epochs(int n) {
        epochs = n;
        return this;
    }

    /** Mini-batches of {@code n} samples in an order drawn from the seed (0: full batch, the default). @return this */
    public Trainer batchSize(int n) {
        batchSize = n;
        return this;
    }

    /** Samples per shard block (0: 32 to 256 blocks, the default). @return this */
    public Trainer blockSize(int n) {
        blockSize = n;
        return this;
    }

    /** The seed of the mini-batch order and of a network's initial weights. @return this */
    public Trainer seed(long s) {
        seed = s;
        return this;
    }

    /** Minimise the mean of the per-sample losses instead of their sum. @return this */
    public Trainer meanLoss() {
        reduction = LossReduction.MEAN;
        return this;
    }

    /** Ranks, threads of this JVM. @return this */
    public Trainer nodes(int n) {
        nodes = n;
        return this;
    }

    /**
     * How gradients are combined: master-worker (the paper's, the default), star, tree,
     * recursive-doubling, ring or rabenseifner.
     *
     * @return this
     */
    public Trainer allreduce(String algorithm) {
        exchange = algorithm;
        return this;
    }

    /** Called on rank 0 after every epoch with the history so far (do not keep its arrays). @return this */
    public Trainer onEpoch(TrainingControl.EpochListener l) {
        listener = l;
        return this;
    }

    /** Measure the model on {@code held} every {@code every} epochs; results in the history's val columns. @return this */
    public Trainer validateOn(Dataset held, int every) {
        validation = held;
        validateEvery = every;
        return this;
    }

    /** Stop when the validation loss has not improved for {@code p} validations; keep the best parameters. @return this */
    public Trainer earlyStop(int p) {
        patience = p;
        return this;
    }

    /** Save the training state into {@code dir} every {@code every} epochs. @return this */
    public Trainer checkpoints(Path dir, int every) {
        checkpointDir = dir;
        checkpointEvery = every;
        return this;
    }

    /** Continue from the newest intact checkpoint in {@code dir} (or that file). @return this */
    public Trainer resumeFrom(Path dir) {
        resume = dir;
        return this;
    }

    /** How long a rank may wait for another before the run is ended as hung. @return this */
    public Trainer commTimeout(Duration d) {
        commTimeout = d;
        return this;
    }

    /**
     * Trains and returns rank 0's result.
     *
     * @return the parameters, losses, history and timings
     * @throws IllegalArgumentException naming the setting, if one is out of range
     * @throws org.paratrain.train.DivergenceException if the loss diverged
     * @throws org.paratrain.comm.RankFailedException if a rank failed or hung
     */
    public TrainingResult run() {
        TrainConfig config = new TrainConfig(nodes, epochs, learningRate, intercept, reduction, blockSize, exchange);
        Recipe recipe = new Recipe(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize,
            seed, layers, activation);
        int k = recipe.check(data);
        JsonNode meta = checkpointDir == null && resume == null ? null : meta(config, recipe);
        TrainingState state = resume == null ? null : checkedState(meta);
        TrainingControl control = new TrainingControl(state, null, listener, commTimeout, validation(recipe, k));
        if (checkpointDir == null) {
            return Training.local(data, config, recipe, control, null);
        }
        try (CheckpointWriter w = new CheckpointWriter(new CheckpointStore(checkpointDir, 2), meta, f -> { })) {
            return Training.local(data, config, recipe, new TrainingControl(state,
                new TrainingControl.Checkpoints(checkpointEvery, 0, w), listener, commTimeout, control.validation()),
                null);
        }
    }

    private JsonNode meta(TrainConfig config, Recipe recipe) {
        com.fasterxml.jackson.databind.node.ObjectNode m = SpecCodec.encode(config, recipe).objectNode();
        m.set("settings", SpecCodec.encode(config, recipe));
        m.set("data", DataFingerprint.of(data));
        m.set("provenance", Provenance.capture(java.util.List.of("Trainer")).toJson());
        return m;
    }

    private TrainingState checkedState(JsonNode meta) {
        var c = CheckpointStore.newest(resume, w -> System.err.println("paratrain: warning: " + w));
        var diff = new java.util.ArrayList<>(SpecCodec.differences(c.meta().path("settings"), meta.path("settings")));
        diff.addAll(DataFingerprint.differences(c.meta().path("data"), meta.path("data")));
        if (!diff.isEmpty()) {
            throw new IllegalArgumentException(resume + ": the checkpoint belongs to another run: "
                + String.join("; ", diff));
        }
        return c.state();
    }

    private TrainingControl.Validation validation(Recipe recipe, int k) {
        if (validation == null) {
            if (patience > 0) {
                throw new IllegalArgumentException("earlyStop needs validateOn(data, every)");
            }
            return null;
        }
        Model m = recipe.newModel(data.features(), intercept, k);
        boolean classifier = m instanceof Classifier c && c.classifies();
        double scale = reduction == LossReduction.MEAN ? 1.0 / validation.samples() : 1.0;
        return new TrainingControl.Validation(validateEvery, patience, p -> new double[] {
            m.loss(validation, 0, validation.samples(), p) * scale,
            classifier ? ((Classifier) m).accuracy(validation, p) : Double.NaN});
    }
}
