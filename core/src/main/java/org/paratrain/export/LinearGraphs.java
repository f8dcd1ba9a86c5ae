package org.paratrain.export;

import java.util.List;
import org.paratrain.experiment.ModelFile;

/**
 * The graphs of the linear models, each one {@code Gemm} over the parameters as paratrain
 * lays them out ({@code [w_0 .. w_(d-1), b?]}; softmax: W class by class, then the biases).
 * A model without an intercept gets zero biases, which change no value.
 */
final class LinearGraphs {
    private LinearGraphs() { }

    /** Linear regression: {@code prediction = x w + b}. */
    static void linear(OnnxGraph g, String x, ModelFile m) {
        int d = m.features();
        String w = g.constant("weights", m.params(), 0, d, 1);
        String b = g.scalar("bias", m.spec().intercept() ? m.params()[d] : 0.0);
        Layers.regressor(g, g.node("Gemm", x, w, b));
    }

    /**
     * Logistic regression, as softmax regression over the logits {@code [0, z]} with
     * {@code z = x w + b} (a first class of zero weights): their softmax is
     * {@code [1 - sigmoid(z), sigmoid(z)]}, each from one exponential of a non-positive number,
     * so that a small probability keeps its digits. ONNX Runtime's {@code Sigmoid} does not
     * keep them: on probabilities near 1e-7 it differed from paratrain's by 6e-12 (relative) in
     * double and 4e-3 in float (OnnxLayoutTest), where this graph differs by 2e-16 and 1e-6.
     * The first largest logit is class 1 exactly where z > 0, as paratrain decides.
     */
    static void logistic(OnnxGraph g, String x, ModelFile m) {
        int d = m.features();
        double[] w = new double[2 * d + 2];
        for (int j = 0; j < d; j++) {
            w[2 * j + 1] = m.params()[j];
        }
        w[2 * d + 1] = m.spec().intercept() ? m.params()[d] : 0.0;
        String logits = g.node("Gemm", x, g.constant("weights", w, 0, d, 2), g.constant("biases", w, 2 * d, 2));
        Layers.classifier(g, logits, 2);
    }

    /** Softmax regression: logits {@code x W^T + b} with W as stored, K rows of d weights. */
    static void softmax(OnnxGraph g, String x, ModelFile m) {
        int d = m.features();
        int k = m.classes();
        String w = g.constant("weights", m.params(), 0, k, d);
        String b = m.spec().intercept() ? g.constant("biases", m.params(), k * d, k)
            : g.constant("biases", new double[k], 0, k);
        String logits = g.node("Gemm", List.of(x, w, b), OnnxGraph.attribute("transB", 1));
        Layers.classifier(g, logits, k);
    }
}
