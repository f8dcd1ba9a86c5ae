package org.paratrain.export;

import java.util.List;
import onnx.Onnx.TensorProto;
import org.paratrain.data.IdxFormat;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.DataSpec;

/**
 * The pieces every model kind's graph is made of: the input and its scaling, a dense layer
 * over paratrain's parameter layout, the activations, and the two kinds of output.
 */
final class Layers {
    /** The graph's input: raw rows, one feature a column. */
    static final String INPUT = "features";
    /** A regressor's output, {@code [N, 1]}. */
    static final String PREDICTION = "prediction";
    /** A classifier's predicted class index, int64 {@code [N]}. */
    static final String LABEL = "label";
    /** A classifier's class probabilities, {@code [N, K]}. */
    static final String PROBABILITIES = "probabilities";

    private Layers() { }

    /**
     * {@return the raw rows as the model saw them in training}: divided by
     * {@link IdxFormat#PIXEL_SCALE} if the model was trained on IDX images (which reading
     * divides so), then {@code (x - mean) / scale} if it was trained on standardised features,
     * in that order, as {@code train} prepared them.
     */
    static String scaled(OnnxGraph g, String x, ModelFile m) {
        String v = x;
        if (m.dataFormat() == DataSpec.Format.IDX) {
            v = g.node("Div", v, g.scalar("pixel_scale", IdxFormat.PIXEL_SCALE));
        }
        if (m.standardizer() != null) {
            v = g.node("Sub", v, g.constant("mean", m.standardizer().mean(), 0, m.features()));
            v = g.node("Div", v, g.constant("scale", m.standardizer().scale(), 0, m.features()));
        }
        return v;
    }

    /** {@return the words for what {@link #scaled} does, for the model's metadata} */
    static String scaling(ModelFile m) {
        String pixels = m.dataFormat() == DataSpec.Format.IDX ? "x / " + (int) IdxFormat.PIXEL_SCALE
            + " (IDX pixel bytes)" : null;
        String standard = m.standardizer() == null ? null : "(x - mean) / scale (the training data's standardizer)";
        return pixels == null && standard == null ? "none" : pixels == null ? standard
            : standard == null ? pixels : pixels + ", then " + standard;
    }

    /**
     * {@return {@code x W + b}} for a layer stored as paratrain stores a dense layer: the weights
     * an {@code in x out} matrix row by row from {@code at}, then the {@code out} biases.
     */
    static String dense(OnnxGraph g, String x, double[] params, int at, int in, int out) {
        String w = g.constant("weights", params, at, in, out);
        String b = g.constant("biases", params, at + in * out, out);
        return g.node("Gemm", x, w, b);
    }

    /** {@return the hidden activation applied to {@code x}} */
    static String activation(OnnxGraph g, String x, MultilayerPerceptron.Activation a) {
        return g.node(switch (a) {
            case RELU -> "Relu";
            case TANH -> "Tanh";
            case SIGMOID -> "Sigmoid";
        }, x);
    }

    /**
     * The outputs of a softmax classifier from its logits: {@value #LABEL}, the index of the
     * largest logit (the first of equals, as paratrain's predict), and {@value #PROBABILITIES},
     * their softmax.
     */
    static void classifier(OnnxGraph g, String logits, int classes) {
        g.nodeTo(LABEL, "ArgMax", List.of(logits), OnnxGraph.attribute("axis", 1), OnnxGraph.attribute("keepdims", 0));
        g.nodeTo(PROBABILITIES, "Softmax", List.of(logits), OnnxGraph.attribute("axis", 1));
        g.output(LABEL, TensorProto.DataType.INT64, OnnxGraph.BATCH);
        g.output(PROBABILITIES, g.real(), OnnxGraph.BATCH, classes);
    }

    /** The output of a regressor: {@value #PREDICTION}, {@code [N, 1]}. */
    static void regressor(OnnxGraph g, String value) {
        g.nodeTo(PREDICTION, "Identity", List.of(value));
        g.output(PREDICTION, g.real(), OnnxGraph.BATCH, 1);
    }
}
