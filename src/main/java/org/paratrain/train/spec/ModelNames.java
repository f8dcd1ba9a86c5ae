package org.paratrain.train.spec;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.model.MultilayerPerceptron.Activation;
import org.paratrain.model.MultilayerPerceptron.Head;

/**
 * Models by the names that files and the command line use ({@code mlp}, {@code 256,128},
 * {@code relu}, {@code float32}), read into {@link ModelSpec}s: a bad name is a
 * {@link SpecException} naming its setting.
 */
public final class ModelNames {
    private ModelNames() { }

    /**
     * {@return the spec of a model of this {@code kind}, as named in files and on the command line}
     * @param kind {@code linear}, {@code logistic}, {@code softmax}, {@code mlp} or {@code mlp-regression}
     * @param intercept whether a linear model learns a bias term (networks always do)
     * @param classes classes of softmax or mlp, 0 to count them from the labels
     * @param hidden hidden widths of a network
     * @param activation hidden activation of a network
     */
    public static ModelSpec of(String kind, boolean intercept, int classes, List<Integer> hidden, Activation activation) {
        return switch (kind) {
            case "linear" -> new ModelSpec.Linear(intercept);
            case "logistic" -> new ModelSpec.Logistic(intercept);
            case "softmax" -> new ModelSpec.Softmax(classes, intercept);
            case "mlp" -> new ModelSpec.Mlp(hidden, activation, Head.SOFTMAX, classes);
            case "mlp-regression" -> new ModelSpec.Mlp(hidden, activation, Head.SQUARED, 0);
            default -> throw new SpecException("model", "must be linear, logistic, softmax, mlp or mlp-regression, "
                + "got '" + kind + "'");
        };
    }

    /**
     * {@return the precision named {@code s}}
     * @param s {@code float32} or {@code float64}
     * @throws SpecException for any other
     */
    public static MultilayerPerceptron.Precision precision(String s) {
        return switch (s) {
            case "float32" -> MultilayerPerceptron.Precision.FLOAT32;
            case "float64" -> MultilayerPerceptron.Precision.FLOAT64;
            default -> throw new SpecException("precision", "must be float32 or float64, got '" + s + "'");
        };
    }

    /**
     * Hidden widths written as the command line writes them.
     *
     * @param s widths separated by commas ({@code 256,128}), or empty for none
     * @return the widths
     * @throws SpecException if one is not a positive whole number
     */
    public static List<Integer> widths(String s) {
        if (s == null || s.isBlank()) {
            return List.of();
        }
        List<Integer> w = new ArrayList<>();
        for (String part : s.split(",")) {
            try {
                w.add(Integer.parseInt(part.strip()));
            } catch (NumberFormatException e) {
                throw new SpecException("layers", "must be positive widths separated by commas, e.g. 256,128, "
                    + "got '" + s + "'");
            }
        }
        return w;
    }

    /**
     * A hidden-layer activation by name.
     *
     * @param s {@code relu}, {@code tanh} or {@code sigmoid}
     * @return the activation
     * @throws SpecException for any other name
     */
    public static Activation activation(String s) {
        return switch (s) {
            case "relu" -> Activation.RELU;
            case "tanh" -> Activation.TANH;
            case "sigmoid" -> Activation.SIGMOID;
            default -> throw new SpecException("activation", "must be relu, tanh or sigmoid, got '" + s + "'");
        };
    }
}
