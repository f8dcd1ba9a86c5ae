package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.data.Dataset;

/** The MLP's batched accuracy counts exactly what predicting one sample at a time counts. */
class BatchedAccuracyTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 255, 256, 257, 1000})
    void batchedAccuracyEqualsOneSampleAtATime(int samples) {
        SplittableRandom r = new SplittableRandom(samples);
        double[] x = new double[samples * 6];
        double[] y = new double[samples];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        for (int i = 0; i < samples; i++) {
            y[i] = r.nextInt(4);
        }
        Dataset d = new Dataset(x, y, samples, 6);
        MultilayerPerceptron m = new MultilayerPerceptron(6, new int[] {9}, 4, MultilayerPerceptron.Activation.TANH);
        double[] p = new double[m.parameterCount()];
        m.initialize(p, 3);
        int right = 0;
        for (int i = 0; i < samples; i++) {
            right += m.predict(d, i, p) == (int) y[i] ? 1 : 0;
        }
        assertEquals((double) right / samples, m.accuracy(d, p), 0.0);
    }

    /**
     * Batched predictions (classes and probabilities, as evaluate and predict use them) against
     * one sample at a time: the same classes, and probabilities within a few rounding errors.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 255, 256, 257, 1000})
    void batchedPredictionsEqualOneSampleAtATime(int samples) {
        SplittableRandom r = new SplittableRandom(samples + 7);
        double[] x = new double[samples * 5];
        double[] y = new double[samples];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        Dataset d = new Dataset(x, y, samples, 5);
        MultilayerPerceptron mlp = new MultilayerPerceptron(5, new int[] {7, 6}, 3, MultilayerPerceptron.Activation.RELU);
        double[] w = new double[mlp.parameterCount()];
        mlp.initialize(w, 11);
        SoftmaxRegression soft = new SoftmaxRegression(5, 3, true);
        double[] v = new double[soft.parameterCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        check(mlp, w, d);
        check(soft, v, d);
    }

    private static void check(Classifier c, double[] params, Dataset d) {
        int n = d.samples();
        int k = c.classes();
        int[] classes = new int[n];
        double[] p = new double[n * k];
        c.predict(d, 0, n, params, classes, p);
        double[] one = new double[k];
        for (int i = 0; i < n; i++) {
            assertEquals(c.predict(d, i, params), classes[i], "sample " + i);
            c.probabilities(d, i, params, one);
            for (int j = 0; j < k; j++) {
                assertEquals(one[j], p[i * k + j], 1e-14, "sample " + i + ", class " + j);
            }
        }
    }
}
