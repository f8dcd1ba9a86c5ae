package org.paratrain.export;

import java.util.ArrayList;
import java.util.List;
import onnx.Onnx.TensorProto;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.ConvNet;
import org.paratrain.train.spec.ModelSpec;

/**
 * The graph of a convolutional network. The rows hold images height x width x channels
 * (channels last, as paratrain reads them); the graph reshapes them and works in NCHW, the
 * layout of ONNX's {@code Conv} and {@code MaxPool}, and turns back to channels last before
 * the first dense layer, so that the dense weights apply as stored.
 *
 * <p>A convolution (stride 1, no padding, then ReLU) is, in a float graph, ONNX's {@code Conv}
 * with paratrain's {@code (k x k x c) x filters} matrix laid out as {@code [filters, c, k, k]}.
 * ONNX Runtime has no double kernel for {@code Conv}, so a double graph computes the same
 * convolution as paratrain does, from its patches: the {@code k x k} shifted windows of the
 * input ({@code Slice}), stacked in paratrain's patch order ({@code Concat}: row
 * {@code (dy k + dx) c + channel}), times the filter matrix ({@code MatMul}), in doubles
 * throughout. Pooling is {@code MaxPool} (stride = size, a ragged edge dropped, as paratrain
 * does) in either type.
 */
final class ConvGraph {
    private ConvGraph() { }

    static void cnn(OnnxGraph g, String x, ModelFile m, ModelSpec.Cnn spec) {
        ConvNet.Shape shape = spec.shape(m.features());
        String v = x;
        boolean image = false;              // whether v is an NCHW image, else [N, values] rows
        int at = 0;
        List<ConvNet.Layer> layers = spec.layers();
        for (int l = 0; l < layers.size(); l++) {
            ConvNet.Layer layer = layers.get(l);
            // A layer followed by batchnorm has its ReLU after the normalisation.
            boolean normalised = l + 1 < layers.size() && layers.get(l + 1) instanceof ConvNet.BatchNorm;
            if (layer instanceof ConvNet.Dropout) {
                continue;           // the identity in inference
            }
            if (layer instanceof ConvNet.BatchNorm) {
                v = g.node("Relu", batchNorm(g, v, m.params(), at, shape.channels()));
                at += 4 * shape.channels();
                continue;
            }
            if (layer instanceof ConvNet.Dense d) {
                v = image ? flatten(g, v) : v;
                image = false;
                String z = Layers.dense(g, v, m.params(), at, shape.size(), d.width());
                v = normalised ? z : g.node("Relu", z);
                at += (shape.size() + 1) * d.width();
                shape = new ConvNet.Shape(1, 1, d.width());
                continue;
            }
            if (!image) {
                v = g.node("Transpose", List.of(g.node("Reshape", v, g.longs("image_shape", 0, shape.height(),
                    shape.width(), shape.channels()))), OnnxGraph.attributes("perm", 0, 3, 1, 2));
                image = true;
            }
            if (layer instanceof ConvNet.Conv c) {
                ConvNet.Shape out = new ConvNet.Shape(shape.height() - c.kernel() + 1, shape.width() - c.kernel() + 1,
                    c.filters());
                String z = g.real() == TensorProto.DataType.FLOAT ? conv(g, v, m.params(), at, c, shape)
                    : patches(g, v, m.params(), at, c, shape, out);
                v = normalised ? z : g.node("Relu", z);
                at += (c.kernel() * c.kernel() * shape.channels() + 1) * c.filters();
                shape = out;
            } else if (layer instanceof ConvNet.Pool p) {
                v = g.node("MaxPool", List.of(v), OnnxGraph.attributes("kernel_shape", p.size(), p.size()),
                    OnnxGraph.attributes("strides", p.size(), p.size()));
                shape = new ConvNet.Shape(shape.height() / p.size(), shape.width() / p.size(), shape.channels());
            }
        }
        v = image ? flatten(g, v) : v;
        String logits = Layers.dense(g, v, m.params(), at, shape.size(), m.classes());
        at += (shape.size() + 1) * m.classes();
        if (at != m.params().length) {
            throw new IllegalStateException("the CNN's layers place " + at + " parameters, the model file holds "
                + m.params().length);
        }
        Layers.classifier(g, logits, m.classes());
    }

    /**
     * ONNX's {@code BatchNormalization} in inference (running mean and variance) over the C
     * channels of an NCHW image or of {@code [N, C]} rows: gamma, beta, mean and variance as
     * paratrain stores them from {@code at}, and paratrain's epsilon.
     */
    private static String batchNorm(OnnxGraph g, String v, double[] params, int at, int c) {
        return g.node("BatchNormalization", List.of(v, g.constant("bn_scale", params, at, c),
            g.constant("bn_bias", params, at + c, c), g.constant("bn_mean", params, at + 2 * c, c),
            g.constant("bn_var", params, at + 3 * c, c)), OnnxGraph.attribute("epsilon",
            (float) ConvNet.BatchNorm.EPSILON));
    }

    /** NCHW back to channels last, then one row a sample: the order of paratrain's dense weights. */
    private static String flatten(OnnxGraph g, String v) {
        return g.node("Flatten", List.of(g.node("Transpose", List.of(v), OnnxGraph.attributes("perm", 0, 2, 3, 1))),
            OnnxGraph.attribute("axis", 1));
    }

    /** ONNX's Conv, with the filter matrix (rows {@code (dy k + dx) c + channel}) as {@code [F, C, k, k]}. */
    private static String conv(OnnxGraph g, String v, double[] params, int at, ConvNet.Conv c, ConvNet.Shape in) {
        int k = c.kernel();
        int ch = in.channels();
        int f = c.filters();
        double[] w = new double[f * ch * k * k];
        for (int filter = 0; filter < f; filter++) {
            for (int channel = 0; channel < ch; channel++) {
                for (int dy = 0; dy < k; dy++) {
                    for (int dx = 0; dx < k; dx++) {
                        w[((filter * ch + channel) * k + dy) * k + dx] = params[at + ((dy * k + dx) * ch + channel) * f
                            + filter];
                    }
                }
            }
        }
        String weights = g.constant("filters", w, 0, f, ch, k, k);
        String biases = g.constant("biases", params, at + k * k * ch * f, f);
        return g.node("Conv", List.of(v, weights, biases), OnnxGraph.attributes("kernel_shape", k, k));
    }

    /**
     * The convolution from its patches: {@code [N, k k C, H' W']} stacked from the shifted
     * windows, times the transposed filter matrix {@code [F, k k C]}, plus the biases.
     */
    private static String patches(OnnxGraph g, String v, double[] params, int at, ConvNet.Conv c, ConvNet.Shape in,
                                  ConvNet.Shape out) {
        int k = c.kernel();
        int rows = k * k * in.channels();
        int f = c.filters();
        String axes = g.longs("spatial_axes", 2, 3);
        List<String> windows = new ArrayList<>();
        for (int dy = 0; dy < k; dy++) {
            for (int dx = 0; dx < k; dx++) {
                windows.add(g.node("Slice", v, g.longs("starts", dy, dx), g.longs("ends", dy + out.height(),
                    dx + out.width()), axes));
            }
        }
        String stacked = g.node("Concat", windows, OnnxGraph.attribute("axis", 1));
        String cols = g.node("Reshape", stacked, g.longs("patch_shape", 0, rows, (long) out.height() * out.width()));
        double[] wt = new double[f * rows];
        for (int r = 0; r < rows; r++) {
            for (int filter = 0; filter < f; filter++) {
                wt[filter * rows + r] = params[at + r * f + filter];
            }
        }
        String product = g.node("MatMul", g.constant("filters", wt, 0, f, rows), cols);
        String biased = g.node("Add", product, g.constant("biases", params, at + rows * f, f, 1));
        return g.node("Reshape", biased, g.longs("output_shape", 0, f, out.height(), out.width()));
    }
}
