package org.paratrain;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import org.paratrain.data.Dataset;
import org.paratrain.train.LossReduction;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

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
    private final TrainerSettings settings;

    private Trainer(Dataset data) {
        settings = new TrainerSettings(data);
    }

    /**
     * A trainer of the paper's defaults: linear regression, gradient descent, lr 1e-4, 300
     * epochs, summed loss, 1 rank. Choosing another model also moves the defaults not set
     * explicitly to what trains it without tuning: Adam at 1e-3 on the mean loss.
     * @param data the training samples, shared by the ranks (threads of this JVM), each training on its shard
     * @return a trainer to configure with the calls below, then {@link #run}
     */
    public static Trainer on(Dataset data) {
        return new Trainer(data);
    }

    /**
     * {@return this trainer, set to linear regression (the default)}
     * @param withIntercept also learn a bias b in {@code y = w.x + b}; false: through the origin, as the paper
     */
    public Trainer linear(boolean withIntercept) {
        return set(t -> t.model("linear", 0, withIntercept));
    }

    /** {@return this trainer, set to logistic regression with a bias; the labels must be 0 and 1} */
    public Trainer logistic() {
        return set(t -> t.model("logistic", 0, true));
    }

    /**
     * {@return this trainer, set to softmax regression with a bias per class}
     * @param k the number of classes, labels 0..k-1; 0 counts them from the labels
     */
    public Trainer softmax(int k) {
        return set(t -> t.model("softmax", k, true));
    }

    /**
     * A multilayer perceptron classifier with ReLU hidden layers of the given widths.
     *
     * @param hidden widths of the hidden layers, e.g. 256, 128
     * @return this
     */
    public Trainer mlp(int... hidden) {
        return set(t -> t.mlp("mlp", hidden));
    }

    /**
     * A multilayer perceptron classifier with hidden layers as the command line's
     * {@code --layers} writes them: widths, each optionally followed by its dropout
     * ({@code 256,dropout:0.5,128}). Dropout's masks depend on the seed, the step and the
     * sample alone, so the result is the same bits at any node count.
     *
     * @param layers the hidden layers, e.g. {@code 256,dropout:0.5,128}
     * @return this
     */
    public Trainer mlp(String layers) {
        return set(t -> t.mlp("mlp", layers));
    }

    /**
     * A multilayer perceptron regressor: hidden layers of the given widths (ReLU unless
     * {@link #activation} says otherwise) and one linear output trained on the squared error;
     * the command line's {@code --model mlp-regression}.
     *
     * @param hidden widths of the hidden layers, e.g. 64, 32
     * @return this
     */
    public Trainer mlpRegression(int... hidden) {
        return set(t -> t.mlp("mlp-regression", hidden));
    }

    /**
     * A convolutional network classifier over square single-channel images (784 features are
     * 28x28x1), with ReLU convolutions, max pooling and dense layers, and a softmax head.
     *
     * @param layers the layers, e.g. {@code conv:32:3,pool:2,conv:64:3,pool:2,dense:128,dropout:0.5}
     * @return this
     */
    public Trainer cnn(String layers) {
        return set(t -> t.cnn(layers));
    }

    /**
     * {@return this trainer, with the MLP's hidden activation set}
     * @param name relu (the default, with He initialisation), tanh or sigmoid (Xavier)
     */
    public Trainer activation(String name) {
        return set(t -> t.activation = name);
    }

    /**
     * {@return this trainer, with a network's (MLP or CNN) forward and backward passes in single precision}
     * The parameters, the summed gradient and the optimizer stay in double precision, so the
     * results are the same bits at any node count.
     */
    public Trainer float32() {
        return set(t -> t.precision = "float32");
    }

    /**
     * {@return this trainer, set to plain gradient descent (the paper's rule)}
     * @param lr the learning rate; with the default summed loss it must shrink as the data grows
     */
    public Trainer gd(double lr) {
        return set(t -> t.optimizer("gd", lr));
    }

    /**
     * {@return this trainer, set to gradient descent with heavy-ball momentum}
     * @param lr the learning rate
     * @param mu the share of the previous step kept in the next, in [0, 1); 0.9 is usual
     */
    public Trainer momentum(double lr, double mu) {
        return set(t -> t.momentum(lr, mu));
    }

    /**
     * {@return this trainer, set to Adam (betas 0.9 and 0.999, epsilon 1e-8)}
     * @param lr the learning rate; 1e-3 is usual with {@link #meanLoss}
     */
    public Trainer adam(double lr) {
        return set(t -> t.optimizer("adam", lr));
    }

    /**
     * {@return this trainer, with L2 weight decay (decoupled from the gradient for Adam)}
     * @param decay at least 0; each update also takes {@code lr * decay * w} off every weight w
     */
    public Trainer weightDecay(double decay) {
        return set(t -> t.weightDecay = decay);
    }

    /**
     * {@return this trainer, clipping the combined gradient to a global norm before each update}
     * As PyTorch's {@code clip_grad_norm_}: a gradient longer than {@code norm} is scaled down to
     * it. It acts on the exact sum every rank holds, so every rank clips alike.
     * @param norm the largest Euclidean norm an update takes, positive (0: no clipping)
     */
    public Trainer clipNorm(double norm) {
        return set(t -> t.clipNorm = norm);
    }

    /**
     * {@return this trainer, weighing a classifier's training loss by class} A sample of class c
     * counts {@code weights[c]} times in the loss and its gradient (Keras' {@code class_weight});
     * validation and evaluation stay unweighted.
     * @param weights one a class, in class order, finite and at least 0
     */
    public Trainer classWeights(double... weights) {
        StringBuilder b = new StringBuilder();
        for (double w : weights) {
            b.append(b.isEmpty() ? "" : ",").append(w);
        }
        return set(t -> t.classWeights = b.toString());
    }

    /**
     * {@return this trainer, weighing each training sample} Sample i counts {@code weights[i]}
     * times in the loss and its gradient, in every model (scikit-learn's {@code sample_weight},
     * Keras' {@code sample_weight}); with {@link #meanLoss} the sum is still divided by the
     * number of samples, not by the weights' sum. Each weight goes with its sample through the
     * shards and the batches, so the result is the same bits at any node count. Validation
     * ({@link #validateOn}) and evaluation stay unweighted.
     * @param weights one a sample of the data, finite and at least 0, not all 0 (copied); null: all 1
     * @throws IllegalArgumentException if there are not as many as samples, or one is negative or not finite
     */
    public Trainer sampleWeights(double... weights) {
        return set(t -> t.sampleWeights(weights));
    }

    /**
     * {@return this trainer, weighing each class by {@code n / (K n_c)} from the training labels}
     * As scikit-learn's {@code class_weight="balanced"}: every class weighs as much in total.
     */
    public Trainer balancedClassWeights() {
        return set(t -> t.classWeights = "balanced");
    }

    /**
     * {@return this trainer, smoothing a classifier's training targets} The target is
     * {@code 1 - eps} on the label plus {@code eps / K} on every class, as Keras' and PyTorch's
     * {@code label_smoothing}.
     * @param eps in [0, 1) (0: none)
     */
    public Trainer labelSmoothing(double eps) {
        return set(t -> t.labelSmoothing = eps);
    }

    /** {@return this trainer, with the learning rate decaying to 0 along a cosine over the run} */
    public Trainer cosineSchedule() {
        return set(t -> t.schedule = "cosine");
    }

    /**
     * {@return this trainer, with the learning rate multiplied by a factor at fixed intervals}
     * @param every updates between two multiplications (at least 1)
     * @param factor the multiplier, in (0, 1] to decay
     */
    public Trainer stepSchedule(long every, double factor) {
        return set(t -> t.schedule = "step:" + every + ":" + factor);
    }

    /**
     * {@return this trainer, with the learning rate rising linearly from 0 at first}
     * @param steps updates the warm-up lasts; it must end before the run does
     */
    public Trainer warmup(long steps) {
        return set(t -> t.warmupSteps = steps);
    }

    /**
     * {@return this trainer, set to run a number of full passes over the data}
     * @param n epochs, at least 1 (default 300)
     */
    public Trainer epochs(int n) {
        return set(t -> t.epochs = n);
    }

    /**
     * {@return this trainer, set to mini-batches drawn in an order fixed by the seed}
     * @param n samples per batch (0: full batch, the default); the last short batch of an epoch is dropped
     */
    public Trainer batchSize(int n) {
        return set(t -> t.batchSize = n);
    }

    /**
     * {@return this trainer, with the shard block size set; results are the same bits for one block size}
     * @param n samples per block (0: 32 to 256 blocks, the default)
     */
    public Trainer blockSize(int n) {
        return set(t -> t.blockSize = n);
    }

    /**
     * {@return this trainer, with the seed set}
     * @param s seed of the mini-batch order and of a network's initial weights (default 42)
     */
    public Trainer seed(long s) {
        return set(t -> t.seed = s);
    }

    /** {@return this trainer, minimising the mean of the per-sample losses (the default but for linear regression)} */
    public Trainer meanLoss() {
        return set(t -> t.reduction = LossReduction.MEAN);
    }

    /** {@return this trainer, minimising the sum of the per-sample losses (the paper's, linear regression's default)} */
    public Trainer summedLoss() {
        return set(t -> t.reduction = LossReduction.SUM);
    }

    /**
     * {@return this trainer, set to run on several ranks}
     * @param n ranks, threads of this JVM (1..4096); the result is the same bits at any count
     */
    public Trainer nodes(int n) {
        return set(t -> t.nodes = n);
    }

    /**
     * {@return this trainer, with the way gradients are combined set}
     * @param algorithm master-worker (the paper's, the default), star, tree, recursive-doubling,
     *     ring or rabenseifner; the result is the same bits with any of them
     */
    public Trainer allreduce(String algorithm) {
        return set(t -> t.exchange = algorithm);
    }

    /**
     * {@return this trainer, adding the ranks' gradients up this way}
     * @param name {@code fixed} (the default with an allreduce), {@code fixed:1}, {@code fixed:2},
     *     {@code fixed:half} (half the bytes, for float32 networks on links), {@code blocks} (the only sum of master-worker) or {@code float} (not reproducible)
     */
    public Trainer sum(String name) {
        return set(t -> t.sum = name);
    }

    /**
     * {@return this trainer, moving the ranks' block boundaries every {@code steps} steps to
     * follow their measured speeds, with the same bits (not with {@code allreduce("shared")},
     * which hands out blocks as ranks are ready, nor with {@code sum("float")})}
     * @param steps steps a window, 1..100,000, or 0 for never (the default)
     */
    public Trainer rebalance(int steps) {
        if (steps < 0) {
            throw new IllegalArgumentException("rebalance must be a number of steps in [1, " + RunSpec.MAX_REBALANCE
                + "] or 0 for never, got " + steps + " (rebalanceAuto() for windows of about 0.2 s)");
        }
        return set(t -> t.rebalance = steps);
    }

    /** {@return this trainer, moving the block boundaries after windows of about 0.2 s of steps, as {@code rebalance} does} */
    public Trainer rebalanceAuto() {
        return set(t -> t.rebalance = RunSpec.REBALANCE_AUTO);
    }

    /**
     * {@return this trainer, with the optimizer sharded over the ranks: each updates its own
     * slice of the parameters with its own slice of the optimizer state (needs
     * {@code allreduce("ring")}, {@code "rabenseifner"} or {@code "native"}, whose halves it runs;
     * checkpoints hold the whole state)}
     */
    public Trainer shardOptimizer() {
        return set(t -> t.shard = true);
    }

    /**
     * {@return this trainer, calling back after every epoch}
     * @param l called on rank 0 with the epoch and the history so far, whose arrays are the trainer's own:
     *     copy what you keep
     */
    public Trainer onEpoch(TrainingControl.EpochListener l) {
        return set(t -> t.listener = l);
    }

    /**
     * {@return this trainer, calling back after every epoch with the parameters, and ending the
     * run when the callback says so} E.g. {@code onEpoch((epoch, h, w) -> h.loss()[epoch - 1] < 0.1)}.
     * A run it ends stops on every rank after that epoch, as a run of that many epochs would;
     * with {@link #checkpoints} on, the last checkpoint is of that epoch.
     * @param c called on rank 0 with the epoch, the history so far and the parameters (read-only):
     *     copy what you keep; true ends the run
     */
    public Trainer onEpoch(TrainingControl.EpochCallback c) {
        return set(t -> t.listener = TrainingControl.EpochListener.acting(c));
    }

    /**
     * {@return this trainer, measuring the model on held-out data during training}
     * @param held samples never trained on, with the training data's features and labels
     * @param every epochs between two measurements; results go to the history's validation columns
     */
    public Trainer validateOn(Dataset held, int every) {
        return set(t -> t.validateOn(held, every));
    }

    /**
     * {@return this trainer, stopping early and keeping the best parameters (needs {@link #validateOn})}
     * @param p validations in a row without a lower validation loss before the run stops
     */
    public Trainer earlyStop(int p) {
        return set(t -> t.patience = p);
    }

    /**
     * {@return this trainer, lowering the learning rate when the validation loss stops improving
     * (Keras's {@code ReduceLROnPlateau}; needs {@link #validateOn})} Rank 0 decides from the
     * validation loss and every rank takes the same factor, so the bits hold at any node count.
     * @param patience validations in a row without a lower validation loss before each reduction
     * @param factor   what each reduction multiplies the learning rate by, in (0, 1); 0.1 is Keras's
     */
    public Trainer reduceLearningRateOnPlateau(int patience, double factor) {
        TrainingControl.Plateau p = new TrainingControl.Plateau(patience, factor);
        return set(t -> t.plateau = p);
    }

    /**
     * {@return this trainer, saving its whole state at intervals (the newest 2 are kept)}
     * @param dir directory of the checkpoints, made if missing
     * @param every epochs between two checkpoints; the last epoch is always saved
     */
    public Trainer checkpoints(Path dir, int every) {
        return set(t -> t.checkpoints(dir, every));
    }

    /**
     * {@return this trainer, continuing a run saved by {@link #checkpoints}}
     * @param dir a checkpoint directory (its newest intact file is used) or one checkpoint file;
     *     its settings and data must be this run's, the node count may differ
     */
    public Trainer resumeFrom(Path dir) {
        return set(t -> t.resume = dir);
    }

    /**
     * {@return this trainer, starting from the parameters of a file instead of the model's initialiser}
     * The file is checked against the model when {@link #run} starts, as PyTorch's
     * {@code load_state_dict(strict=True)} would: every tensor's name and shape, F64 or F32,
     * finite values (see {@link org.paratrain.export.InitialParameters}). Every rank starts from
     * the same parameters, so the result is the same bits at any node count. A checkpoint given
     * to {@link #resumeFrom} wins: a resumed run continues where it stopped.
     * @param file a safetensors file ({@link TrainedModel#exportSafetensors}, {@code export --format
     *     safetensors}) or a paratrain model.json (a name ending in {@code .json})
     */
    public Trainer initFrom(Path file) {
        return set(t -> {
            t.initFrom = file;
            t.initial = null;
        });
    }

    /**
     * {@return this trainer, starting from these parameters instead of the model's initialiser}
     * A checkpoint given to {@link #resumeFrom} wins over them.
     * @param params the parameters in paratrain's layout ({@code docs/model-format.md}), as many as the
     *     model has and each finite; copied
     */
    public Trainer initialParameters(double[] params) {
        double[] copy = params.clone();
        return set(t -> {
            t.initial = copy;
            t.initFrom = null;
        });
    }

    /**
     * {@return this trainer, with the deadline for a hung rank set}
     * @param d how long a rank may wait for another before the run ends, naming the silent rank
     */
    public Trainer commTimeout(Duration d) {
        return set(t -> t.commTimeout = d);
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
        return settings.run();
    }

    /**
     * Trains and returns the trained model, to predict with, save or export.
     *
     * @return the model; {@link #run()} gives the history and timings instead
     * @throws IllegalArgumentException naming the setting, if one is out of range
     * @throws org.paratrain.train.DivergenceException if the loss diverged
     * @throws org.paratrain.comm.RankFailedException if a rank failed or hung
     */
    public TrainedModel fit() {
        return TrainedModel.of(this, run());
    }

    /** The training samples, for {@link TrainedModel#of}. */
    Dataset data() {
        return settings.data();
    }

    /**
     * {@return the settings chained so far, as the specs every layer below reads}
     * @throws IllegalArgumentException naming the setting, if one is out of range
     */
    public TrainSpec spec() {
        return settings.spec();
    }

    /** Applies one chained call; every public setter is this and {@code return this}, so it is one line. */
    private Trainer set(Consumer<TrainerSettings> call) {
        call.accept(settings);
        return this;
    }
}
