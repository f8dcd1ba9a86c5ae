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
}
