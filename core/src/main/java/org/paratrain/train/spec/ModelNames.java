package org.paratrain.train.spec;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.model.ConvNet;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.model.MultilayerPerceptron.Activation;
import org.paratrain.model.MultilayerPerceptron.Head;

/**
 * Models by the names that files and the command line use ({@code mlp}, {@code 256,128},
 * {@code relu}, {@code float32}), read into {@link ModelSpec}s: a bad name is a
 * {@link SpecException} naming its setting.
 */
public final class ModelNames {
    /** A network {@code --layers} can name for {@code --model cnn}. */
    static final String CNN_EXAMPLE = "conv:32:3,pool:2,conv:64:3,pool:2,dense:128";

    private ModelNames() { }

    /**
     * {@return the spec of a model as named in files and on the command line, networks included}
     * @param kind       {@code linear}, {@code logistic}, {@code softmax}, {@code mlp},
     *                   {@code mlp-regression} or {@code cnn}
     * @param intercept  whether a linear model learns a bias term (networks always do)
     * @param classes    classes of softmax, mlp or cnn, 0 to count them from the labels
     * @param layers     an MLP's hidden widths ({@code 256,128}) or a CNN's layers
     *                   ({@code conv:32:3,pool:2,dense:128})
     * @param activation an MLP's hidden activation
     * @param image      a CNN's image shape ({@code 28x28x1}), or empty for square single-channel images
     * @throws SpecException naming the first setting that is not valid
     */
    public static ModelSpec named(String kind, boolean intercept, int classes, String layers, String activation,
                                  String image) {
        if (kind.equals("cnn")) {
            return new ModelSpec.Cnn(cnnLayers(layers), image == null || image.isBlank() ? null : shape(image), classes);
        }
        SpecException.check(image == null || image.isBlank(), "image-shape", "is for --model cnn, got model " + kind);
        MlpLayers l = mlpLayers(layers);
        ModelSpec spec = of(kind, intercept, classes, l.widths(), activation(activation));
        return spec instanceof ModelSpec.Mlp m ? m.withDropout(l.dropout()) : spec;
    }

    /**
     * An MLP's hidden layers: the widths, and the dropout rate after each (0 for none).
     *
     * @param widths  the hidden widths, input side first
     * @param dropout one rate a width
     */
    public record MlpLayers(List<Integer> widths, List<Double> dropout) { }

    /**
     * An MLP's hidden layers as the command line writes them: widths, each optionally followed
     * by {@code dropout:RATE} ({@code 256,dropout:0.5,128}).
     *
     * @param s the layers separated by commas, or empty for none
     * @return the widths and rates
     * @throws SpecException if a part is neither a positive whole number nor a dropout after a width
     */
    public static MlpLayers mlpLayers(String s) {
        List<Integer> w = new ArrayList<>();
        List<Double> d = new ArrayList<>();
        for (String part : s == null || s.isBlank() ? new String[0] : s.split(",", -1)) {
            String p = part.strip();
            if (p.startsWith("dropout:")) {
                SpecException.check(!w.isEmpty() && d.get(d.size() - 1) == 0.0, "layers", "of an mlp take "
                    + "dropout:RATE after a hidden width, at most one each, e.g. 256,dropout:0.5,128; got '" + s + "'");
                d.set(d.size() - 1, rate(p.substring("dropout:".length()), p));
                continue;
            }
            // A dense network with batch normalisation is a cnn of dense layers: say so rather than "not a width".
            SpecException.check(!p.equals("batchnorm"), "layers", "of an mlp take no batchnorm; a dense network "
                + "with batch normalisation is --model cnn --layers dense:256,batchnorm,... with --image-shape 1x1xD "
                + "for D features");
            try {
                w.add(Integer.parseInt(p));
                d.add(0.0);
            } catch (NumberFormatException e) {
                throw new SpecException("layers", "must be positive widths separated by commas, e.g. 256,128 "
                    + "(each may be followed by dropout:RATE), got '" + s + "'");
            }
        }
        return new MlpLayers(w, d);
    }

    /**
     * A CNN's layers written as the command line writes them.
     *
     * @param s {@code conv:FILTERS:KERNEL}, {@code pool:SIZE}, {@code dense:WIDTH},
     *          {@code dropout:RATE} and {@code batchnorm}, separated by commas
     * @return the layers, input side first
     * @throws SpecException naming the first part that is not a layer
     */
    public static List<ConvNet.Layer> cnnLayers(String s) {
        List<ConvNet.Layer> layers = new ArrayList<>();
        for (String part : s == null || s.isBlank() ? new String[0] : s.split(",", -1)) {
            String[] f = part.strip().split(":", -1);
            ConvNet.Layer layer = switch (f[0]) {
                case "conv" -> f.length == 3 ? new ConvNet.Conv(positive(f[1], 1, part), positive(f[2], 1, part)) : null;
                case "pool" -> f.length == 2 ? new ConvNet.Pool(positive(f[1], 2, part)) : null;
                case "dense" -> f.length == 2 ? new ConvNet.Dense(positive(f[1], 1, part)) : null;
                case "dropout" -> f.length == 2 ? new ConvNet.Dropout(rate(f[1], part)) : null;
                case "batchnorm" -> f.length == 1 ? new ConvNet.BatchNorm() : null;
                default -> null;
            };
            if (layer == null) {
                throw new SpecException("layers", "of a cnn must be conv:FILTERS:KERNEL, pool:SIZE, dense:WIDTH, "
                    + "dropout:RATE or batchnorm separated by commas, e.g. " + CNN_EXAMPLE + "; got '" + part.strip() + "'");
            }
            layers.add(layer);
        }
        SpecException.check(!layers.isEmpty(), "layers", "must name a cnn's layers, e.g. " + CNN_EXAMPLE);
        return layers;
    }

    /** {@return a dropout rate in [0, 1)} */
    private static double rate(String v, String part) {
        try {
            double r = Double.parseDouble(v);
            if (r >= 0.0 && r < 1.0) {
                return r;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new SpecException("layers", "need a dropout rate from 0 to below 1 (the fraction dropped), got '"
            + part.strip() + "'");
    }

    private static int positive(String v, int min, String part) {
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= 65_536) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new SpecException("layers", "of a cnn need sizes from " + min + " to 65536, got '" + part.strip() + "'");
    }

    /**
     * An image shape as the command line writes it.
     *
     * @param s {@code HEIGHTxWIDTHxCHANNELS}, e.g. {@code 28x28x1}
     * @return the shape
     * @throws SpecException if it is not three positive sizes
     */
    public static ConvNet.Shape shape(String s) {
        String[] f = s.strip().split("x", -1);
        try {
            if (f.length == 3) {
                ConvNet.Shape shape = new ConvNet.Shape(Integer.parseInt(f[0]), Integer.parseInt(f[1]),
                    Integer.parseInt(f[2]));
                if (shape.height() >= 1 && shape.width() >= 1 && shape.channels() >= 1
                    && (long) shape.height() * shape.width() * shape.channels() <= Integer.MAX_VALUE) {
                    return shape;
                }
            }
        } catch (IllegalArgumentException e) {
            // not numbers, or sizes no image has: refused below
        }
        throw new SpecException("image-shape", "must be HEIGHTxWIDTHxCHANNELS, e.g. 28x28x1, got '" + s + "'");
    }

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
            default -> throw new SpecException("model", "must be linear, logistic, softmax, mlp, mlp-regression or cnn, "
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
