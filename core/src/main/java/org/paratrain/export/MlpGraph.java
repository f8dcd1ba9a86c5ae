package org.paratrain.export;

import org.paratrain.experiment.ModelFile;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ModelSpec;

/**
 * The graph of a multilayer perceptron: for each layer {@code Gemm} over its {@code in x out}
 * weights and its biases, as paratrain stores them layer by layer, then the hidden
 * activation; the last layer's outputs are the logits of a softmax head or the value of a
 * squared-error head.
 */
final class MlpGraph {
    private MlpGraph() { }

    static void mlp(OnnxGraph g, String x, ModelFile m, ModelSpec.Mlp spec) {
        boolean classifier = spec.head() == MultilayerPerceptron.Head.SOFTMAX;
        int outputs = classifier ? m.classes() : 1;
        int[] widths = new int[spec.hidden().size() + 2];
        widths[0] = m.features();
        for (int l = 0; l < spec.hidden().size(); l++) {
            widths[l + 1] = spec.hidden().get(l);
        }
        widths[widths.length - 1] = outputs;
        String v = x;
        int at = 0;
        for (int l = 1; l < widths.length; l++) {
            v = Layers.dense(g, v, m.params(), at, widths[l - 1], widths[l]);
            at += widths[l - 1] * widths[l] + widths[l];
            if (l < widths.length - 1) {
                v = Layers.activation(g, v, spec.activation());
            }
        }
        if (at != m.params().length) {
            throw new IllegalStateException("the MLP's layers place " + at + " parameters, the model file holds "
                + m.params().length);
        }
        if (classifier) {
            Layers.classifier(g, v, outputs);
        } else {
            Layers.regressor(g, v);
        }
    }
}
