package org.paratrain.cli;

import org.paratrain.train.spec.LossSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import picocli.CommandLine.Option;

/**
 * What {@code train} trains and how it updates it: the model's options and the optimizer's,
 * each group mapped here, once, to its spec.
 */
final class ModelOptions {
    @Option(names = "--lr", description = "Learning rate (default: 1e-4 for the paper's linear regression, 1e-3 for "
        + "classifiers and networks, Adam's usual rate).")
    Double lr;

    @Option(names = "--intercept", negatable = true, description = "Also learn a bias term (default: off for the "
        + "paper's linear regression, on for logistic and softmax regression, as scikit-learn's).")
    Boolean intercept;

    @Option(names = "--model", defaultValue = "linear",
        description = "linear (default), logistic (labels 0/1), softmax, mlp or cnn (labels 0..K-1), or "
            + "mlp-regression (an MLP with a squared-error head).")
    String model;

    @Option(names = "--classes", defaultValue = "0",
        description = "Classes for softmax, mlp and cnn (0: counted from the labels).")
    int classes;

    @Option(names = "--layers", defaultValue = "", description = "Hidden-layer widths of --model mlp, e.g. 256,128 "
        + "(default 100, one hidden layer, as scikit-learn's MLPClassifier); "
        + "the layers of --model cnn, e.g. conv:32:3,pool:2,conv:64:3,pool:2,dense:128 (dropout:0.5 drops half "
        + "the values before it in training, the same units at any node count; batchnorm after a conv or dense "
        + "layer normalises it by the whole batch over every rank, the same bits at any node count).")
    String layers;

    @Option(names = "--image-shape", defaultValue = "", paramLabel = "HxWxC", description = "The images' shape for "
        + "--model cnn, e.g. 28x28x1 (default: an IDX file's own shape; otherwise square images of one channel).")
    String imageShape;

    @Option(names = "--activation", defaultValue = "relu", description = "Hidden activation of --model mlp: relu "
        + "(He initialisation), tanh or sigmoid (Xavier).")
    String activation;

    @Option(names = "--precision", defaultValue = "float64", description = "Arithmetic of a network's (mlp, cnn) forward and "
        + "backward passes: float64 (default) or float32 (single-precision matrix products; the parameters, the "
        + "summed gradient and the optimizer stay in float64, so the same bits at any node count).")
    String precision;

    @Option(names = "--optimizer", description = "gd, momentum, nesterov or adam (default: gd for the paper's linear "
        + "regression, adam for classifiers and networks).")
    String optimizer;

    @Option(names = "--momentum", defaultValue = "0.9", description = "Momentum for momentum and nesterov (default ${DEFAULT-VALUE}).")
    double momentum;

    @Option(names = "--weight-decay", defaultValue = "0", description = "L2 weight decay (decoupled for adam).")
    double weightDecay;

    @Option(names = "--clip-norm", defaultValue = "0", paramLabel = "NORM", description = "Clip the combined "
        + "gradient to this global (Euclidean) norm before each update, as PyTorch's clip_grad_norm_ does; after "
        + "the exact sum, so the same on every rank (default 0: no clipping).")
    double clipNorm;

    @Option(names = "--class-weight", paramLabel = "balanced|W0,W1,...", description = "A classifier's weight a "
        + "class in training (a sample of class c counts W_c times), in class order, or balanced: n / (K n_c) from "
        + "the training labels, as scikit-learn's class_weight=\"balanced\" (default: every class 1).")
    String classWeight;

    @Option(names = "--label-smoothing", defaultValue = "0", paramLabel = "EPS", description = "A classifier's "
        + "training target: 1 - EPS on the label plus EPS / K on every class, as Keras' and PyTorch's "
        + "label_smoothing (default 0).")
    double labelSmoothing;

    @Option(names = "--schedule", defaultValue = "constant",
        description = "Learning rate schedule: constant (default), cosine or step:EVERY:FACTOR.")
    String schedule;

    @Option(names = "--warmup-steps", defaultValue = "0", description = "Linear learning-rate warm-up, in steps.")
    long warmupSteps;

    /**
     * Whether {@code --model} names the paper's linear regression, which keeps the paper's
     * defaults (gradient descent at 1e-4 on the summed loss, no bias, no scaling); every other
     * model gets what trains it without tuning (Adam at 1e-3 on the mean loss, a bias, scaling).
     */
    boolean paperDefaults() {
        return model.equals("linear");
    }

    /** {@return the model these options describe; a bad value is an error naming its option} */
    ModelSpec model() {
        boolean bias = intercept != null ? intercept : !paperDefaults();
        return ModelNames.named(model, bias, classes, org.paratrain.train.spec.Defaults.hiddenLayers(model, layers),
            activation, imageShape).withPrecision(ModelNames.precision(precision));
    }

    /** {@return the training loss's class weights and label smoothing; a bad value is an error naming its option} */
    LossSpec loss() {
        return LossSpec.parse(classWeight, labelSmoothing);
    }

    /** {@return the optimizer these options describe, owning the learning rate and its schedule} */
    OptimizerSpec optimizer() {
        String method = optimizer != null ? optimizer : paperDefaults() ? "gd" : "adam";
        double rate = lr != null ? lr : paperDefaults() ? 1e-4 : 1e-3;
        return new OptimizerSpec(OptimizerSpec.Method.parse(method), rate, momentum, weightDecay,
            OptimizerSpec.Schedule.parse(schedule), warmupSteps, clipNorm);
    }
}
