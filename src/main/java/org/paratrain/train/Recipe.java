package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.model.LinearRegression;
import org.paratrain.model.LogisticRegression;
import org.paratrain.model.Model;
import org.paratrain.model.SoftmaxRegression;
import org.paratrain.optim.Adam;
import org.paratrain.optim.GradientDescent;
import org.paratrain.optim.LearningRateSchedule;
import org.paratrain.optim.Optimizer;

/**
 * What to train and how to update it: the model and the optimiser, validated on construction
 * with messages that name the option.
 *
 * @param model       {@code linear}, {@code logistic} (labels 0/1), {@code softmax} or {@code mlp} (labels
 *                    0..K-1), or {@code mlp-regression} (an MLP with one output and squared error)
 * @param classes     K for softmax (0: one more than the largest label); ignored otherwise
 * @param optimizer   {@code gd}, {@code momentum}, {@code nesterov} or {@code adam}
 * @param momentum    mu for momentum and Nesterov, in [0, 1)
 * @param weightDecay L2 (gd, momentum) or decoupled (adam) decay, at least 0
 * @param schedule    {@code constant}, {@code step:EVERY:FACTOR} or {@code cosine}
 * @param warmupSteps linear warm-up steps before the schedule, at least 0
 * @param batchSize   samples per step (0: the whole data set, full-batch gradient descent)
 * @param seed        seed of the mini-batch order and of the network's initial weights
 * @param layers      hidden-layer widths of an MLP, e.g. {@code 256,128}
 * @param activation  hidden activation of an MLP: relu, tanh or sigmoid
 */
public record Recipe(String model, int classes, String optimizer, double momentum, double weightDecay,
                     String schedule, long warmupSteps, int batchSize, long seed, String layers, String activation) {

    /** A full-batch recipe. */
    public Recipe(String model, int classes, String optimizer, double momentum, double weightDecay, String schedule,
                  long warmupSteps) {
        this(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, 0, 42, "", "relu");
    }

    /** A recipe without a network. */
    public Recipe(String model, int classes, String optimizer, double momentum, double weightDecay, String schedule,
                  long warmupSteps, int batchSize, long seed) {
        this(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize, seed, "", "relu");
    }

    /** Validates every field. */
    public Recipe {
        if (!java.util.List.of("linear", "logistic", "softmax", "mlp", "mlp-regression").contains(model)) {
            throw new IllegalArgumentException("--model must be linear, logistic, softmax, mlp or mlp-regression, got '"
                + model + "'");
        }
        hiddenWidths(layers);
        activation(activation);
        if (classes < 0 || classes == 1) {
            throw new IllegalArgumentException("--classes must be at least 2 (or 0 to count them), got " + classes);
        }
        if (!java.util.List.of("gd", "momentum", "nesterov", "adam").contains(optimizer)) {
            throw new IllegalArgumentException("--optimizer must be gd, momentum, nesterov or adam, got '" + optimizer
                + "'");
        }
        if (!(momentum >= 0 && momentum < 1)) {
            throw new IllegalArgumentException("--momentum must be in [0, 1), got " + momentum);
        }
        if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
            throw new IllegalArgumentException("--weight-decay must be a finite number >= 0, got " + weightDecay);
        }
        if (!schedule.equals("constant") && !schedule.equals("cosine") && !schedule.matches("step:\\d+:[0-9.eE-]+")) {
            throw new IllegalArgumentException("--schedule must be constant, cosine or step:EVERY:FACTOR, got '"
                + schedule + "'");
        }
        if (batchSize < 0) {
            throw new IllegalArgumentException("--batch-size must be at least 1 (or 0 for full batch), got "
                + batchSize);
        }
        if (warmupSteps < 0) {
            throw new IllegalArgumentException("--warmup-steps must be at least 0, got " + warmupSteps);
        }
    }

    /** The paper's: linear regression and plain gradient descent. */
    public static Recipe paper() {
        return new Recipe("linear", 0, "gd", 0.9, 0.0, "constant", 0);
    }

    /** This recipe with another model. */
    public Recipe withModel(String m, int k) {
        return new Recipe(m, k, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize, seed, layers,
            activation);
    }

    /** This recipe with another optimiser. */
    public Recipe withOptimizer(String o) {
        return new Recipe(model, classes, o, momentum, weightDecay, schedule, warmupSteps, batchSize, seed, layers,
            activation);
    }

    /** This recipe with mini-batches of {@code b} samples (0: full batch) in an order drawn from {@code s}. */
    public Recipe withBatches(int b, long s) {
        return new Recipe(model, classes, optimizer, momentum, weightDecay, schedule, warmupSteps, b, s, layers,
            activation);
    }

    /** This recipe as an MLP with hidden {@code layers} ("256,128") and {@code act}. */
    public Recipe withNetwork(String hidden, String act) {
        return new Recipe("mlp", classes, optimizer, momentum, weightDecay, schedule, warmupSteps, batchSize, seed,
            hidden, act);
    }

    private static int[] hiddenWidths(String s) {
        if (s == null || s.isBlank()) {
            return new int[0];
        }
        try {
            int[] w = java.util.Arrays.stream(s.split(",")).mapToInt(t -> Integer.parseInt(t.strip())).toArray();
            for (int v : w) {
                if (v < 1) {
                    throw new NumberFormatException();
                }
            }
            return w;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--layers must be positive widths separated by commas, e.g. 256,128, "
                + "got '" + s + "'");
        }
    }

    private static org.paratrain.model.MultilayerPerceptron.Activation activation(String s) {
        return switch (s == null ? "" : s) {
            case "relu" -> org.paratrain.model.MultilayerPerceptron.Activation.RELU;
            case "tanh" -> org.paratrain.model.MultilayerPerceptron.Activation.TANH;
            case "sigmoid" -> org.paratrain.model.MultilayerPerceptron.Activation.SIGMOID;
            default -> throw new IllegalArgumentException("--activation must be relu, tanh or sigmoid, got '" + s + "'");
        };
    }

    /** Checks the batch size and that the labels suit the model; returns the number of classes (0 for regression). */
    public int check(Dataset data) {
        if (batchSize > data.samples()) {
            throw new IllegalArgumentException("--batch-size " + batchSize + " is more than the " + data.samples()
                + " training samples");
        }
        if (model.equals("linear") || model.equals("mlp-regression")) {
            return 0;
        }
        int k = model.equals("logistic") ? 2 : classes;     // softmax and mlp: given or counted
        double max = 0;
        for (int i = 0; i < data.samples(); i++) {
            double v = data.y()[i];
            if (v != Math.rint(v) || v < 0 || (k > 0 && v >= k)) {
                throw new IllegalArgumentException("label " + v + " of sample " + (i + 1) + " is not a class "
                    + (k > 0 ? "0.." + (k - 1) : "number (0, 1, 2, ...)") + " (--model " + model + ")");
            }
            max = Math.max(max, v);
        }
        return k > 0 ? k : Math.max(2, (int) max + 1);
    }

    /** A new model for one rank (models may keep scratch space). */
    public Model newModel(int features, boolean intercept, int k) {
        return switch (model) {
            case "logistic" -> new LogisticRegression(features, intercept);
            case "softmax" -> new SoftmaxRegression(features, k, intercept);
            case "mlp" -> new org.paratrain.model.MultilayerPerceptron(features, hiddenWidths(layers), k,
                activation(activation));
            case "mlp-regression" -> new org.paratrain.model.MultilayerPerceptron(features, hiddenWidths(layers), 1,
                activation(activation), org.paratrain.model.MultilayerPerceptron.Head.SQUARED);
            default -> new LinearRegression(features, intercept);
        };
    }

    /** A new optimiser for one rank, at {@code learningRate}, with steps counted from 0. */
    public Optimizer newOptimizer(double learningRate, int totalSteps) {
        LearningRateSchedule s = switch (schedule) {
            case "constant" -> LearningRateSchedule.constant(learningRate);
            case "cosine" -> LearningRateSchedule.cosine(learningRate, totalSteps);
            default -> {
                String[] parts = schedule.split(":");
                yield LearningRateSchedule.step(learningRate, Long.parseLong(parts[1]), Double.parseDouble(parts[2]));
            }
        };
        if (warmupSteps > 0) {
            s = LearningRateSchedule.warmup(warmupSteps, s);
        }
        return switch (optimizer) {
            case "adam" -> new Adam(s, 0.9, 0.999, 1e-8, weightDecay);
            case "momentum" -> new GradientDescent(s, momentum, false, weightDecay);
            case "nesterov" -> new GradientDescent(s, momentum, true, weightDecay);
            default -> new GradientDescent(s, 0.0, false, weightDecay);
        };
    }
}
