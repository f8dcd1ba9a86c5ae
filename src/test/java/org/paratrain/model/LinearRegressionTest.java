package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.data.Dataset;

/** The analytic gradient against central finite differences of the loss. */
class LinearRegressionTest {

    @ParameterizedTest
    @CsvSource({"1,false", "1,true", "4,false", "7,true"})
    void gradientMatchesFiniteDifferences(int d, boolean intercept) {
        Random rnd = new Random(d * 31L + (intercept ? 1 : 0));
        int n = 23;
        double[] x = new double[n * d];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = rnd.nextGaussian() * 3;
        }
        Dataset data = new Dataset(x, y, n, d);
        LinearRegression model = new LinearRegression(d, intercept);
        double[] w = new double[model.parameterCount()];
        for (int j = 0; j < w.length; j++) {
            w[j] = rnd.nextGaussian();
        }
        double[] grad = new double[w.length + 2];
        double loss = model.lossAndGradient(data, 3, 20, w, grad, 2);
        assertEquals(model.loss(data, 3, 20, w), loss, 1e-12 * loss);
        for (int j = 0; j < w.length; j++) {
            double h = 1e-6;
            double[] plus = w.clone();
            double[] minus = w.clone();
            plus[j] += h;
            minus[j] -= h;
            double fd = (model.loss(data, 3, 20, plus) - model.loss(data, 3, 20, minus)) / (2 * h);
            assertEquals(fd, grad[2 + j], 1e-6 * Math.max(1, Math.abs(fd)), "parameter " + j);
        }
    }
}
