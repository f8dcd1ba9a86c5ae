package org.paratrain.train.spec;

import java.util.List;
import org.paratrain.data.Dataset;
import org.paratrain.model.ConvNet;
import org.paratrain.model.Model;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.model.MultilayerPerceptron.Activation;
import org.paratrain.model.MultilayerPerceptron.Head;

/**
 * The checks and counts behind {@link ModelSpec} and its records, kept here so that the
 * interface reads as the list of models and what each one is. Every check throws a
 * {@link SpecException} naming its setting, in the order the records make them: with several
 * bad values, the error is the same one whichever way the spec was made.
 */
final class ModelSpecs {
    private ModelSpecs() { }

    /** Refuses a classifier's class count of 1 or less than 0 (0 counts them from the labels). */
    static void checkClasses(int classes) {
        SpecException.check(classes == 0 || classes >= 2, "classes",
            "must be at least 2 (or 0 to count them), got " + classes);
    }

    /** {@return an unmodifiable copy of an MLP's widths, once its other components are checked too} */
    static List<Integer> checkMlp(List<Integer> hidden, Activation activation, Head head, int classes,
                                  MultilayerPerceptron.Precision precision) {
        SpecException.check(precision != null, "precision", "must be float32 or float64");
        List<Integer> widths = List.copyOf(hidden);
        for (int w : widths) {
            SpecException.check(w >= 1, "layers", "must be positive widths separated by commas, e.g. 256,128, "
                + "got " + widths);
        }
        SpecException.check(activation != null, "activation", "must be relu, tanh or sigmoid");
        SpecException.check(head != null, "head", "must be softmax or squared");
        checkClasses(classes);
        SpecException.check(head == Head.SOFTMAX || classes == 0, "classes",
            "do not apply to a squared-error head, got " + classes);
        return widths;
    }

    /** {@return an unmodifiable copy of an MLP's dropout rates, one a hidden layer (zeros for null)} */
    static List<Double> checkDropout(List<Integer> hidden, List<Double> dropout) {
        if (dropout == null) {
            return java.util.Collections.nCopies(hidden.size(), 0.0);
        }
        List<Double> rates = List.copyOf(dropout);
        SpecException.check(rates.size() == hidden.size(), "layers", "need one dropout rate a hidden layer ("
            + hidden.size() + "), got " + rates.size());
        for (double r : rates) {
            SpecException.check(r >= 0.0 && r < 1.0, "layers", "need dropout rates from 0 to below 1, got " + r);
        }
        return rates;
    }

    /** {@return an unmodifiable copy of a CNN's layers, once its other components are checked too} */
    static List<ConvNet.Layer> checkCnn(List<ConvNet.Layer> layers, int classes,
                                        MultilayerPerceptron.Precision precision) {
        SpecException.check(precision != null, "precision", "must be float32 or float64");
        List<ConvNet.Layer> copy = List.copyOf(layers);
        SpecException.check(!copy.isEmpty(), "layers", "must name the network's layers, e.g. "
            + ModelNames.CNN_EXAMPLE);
        checkClasses(classes);
        return copy;
    }

    /** {@return the classes of {@code spec} for {@code data}}: see {@link ModelSpec#classes(Dataset)}. */
    static int labels(ModelSpec spec, Dataset data) {
        if (!spec.classifier()) {
            return 0;
        }
        int k = spec.classes();
        double max = 0;
        for (int i = 0; i < data.samples(); i++) {
            double v = data.y()[i];
            if (v != Math.rint(v) || v < 0 || (k > 0 && v >= k)) {
                throw new IllegalArgumentException("label " + v + " of sample " + (i + 1) + " is not a class "
                    + (k > 0 ? "0.." + (k - 1) : "number (0, 1, 2, ...)") + " (model " + spec.kind() + ")");
            }
            max = Math.max(max, v);
        }
        return k > 0 ? k : Math.max(2, (int) max + 1);
    }

    /** {@return the parameters of {@code spec}}: see {@link ModelSpec#parameterCount}. */
    static long parameterCount(ModelSpec spec, int features, int classes) {
        long bias = spec.intercept() ? 1 : 0;
        return switch (spec) {
            case ModelSpec.Softmax s -> (long) classes * (features + bias);
            case ModelSpec.Mlp m -> {
                long p = 0;
                long in = features;
                for (int out : m.hidden()) {
                    p += in * out + out;
                    in = out;
                }
                long out = m.classifier() ? classes : 1;
                yield p + in * out + out;
            }
            case ModelSpec.Cnn c -> c.newModel(features, classes).parameterCount();
            case ModelSpec.Linear l -> features + bias;
            case ModelSpec.Logistic l -> features + bias;
        };
    }

    /** {@return a CNN's image shape for the data}: see {@link ModelSpec.Cnn#shape}. */
    static ConvNet.Shape imageShape(ConvNet.Shape image, int features) {
        if (image != null) {
            SpecException.check(image.size() == features, "image-shape", "is " + image + " = " + image.size()
                + " values a sample, but the data has " + features + " features");
            return image;
        }
        int side = (int) Math.round(Math.sqrt(features));
        SpecException.check(side * side == features, "image-shape", "is needed: " + features + " features are "
            + "not a square image of one channel; give HEIGHTxWIDTHxCHANNELS");
        return new ConvNet.Shape(side, side, 1);
    }

    /**
     * {@return the CNN {@code cnn} describes}: where ConvNet refuses these layers for these images
     * (a kernel larger than what reaches it, too many parameters), the error is a {@code layers}
     * error that names the images' shape, which the user may not have given.
     */
    static Model convNet(ModelSpec.Cnn cnn, int features, int classes) {
        try {
            return new ConvNet(cnn.shape(features), cnn.layers(), classes, cnn.precision());
        } catch (IllegalArgumentException e) {
            throw e instanceof SpecException ? e : new SpecException("layers", e.getMessage()
                .replaceFirst("^--layers: ", "") + " (images " + cnn.shape(features) + ")");
        }
    }
}
