package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.data.Dataset;

/** Every model's analytic gradient against central finite differences of its own loss. */
class ModelGradientTest {

    /** name, model, features, classes (0: a regression target). */
    static Stream<Arguments> models() {
        return Stream.of(
            Arguments.of("linear 1", (Supplier<Model>) () -> new LinearRegression(1, false), 1, 0),
            Arguments.of("linear 1 + bias", (Supplier<Model>) () -> new LinearRegression(1, true), 1, 0),
            Arguments.of("linear 4", (Supplier<Model>) () -> new LinearRegression(4, false), 4, 0),
            Arguments.of("linear 7 + bias", (Supplier<Model>) () -> new LinearRegression(7, true), 7, 0),
            Arguments.of("logistic", (Supplier<Model>) () -> new LogisticRegression(5, true), 5, 2),
            Arguments.of("logistic, no bias", (Supplier<Model>) () -> new LogisticRegression(3, false), 3, 2),
            Arguments.of("softmax", (Supplier<Model>) () -> new SoftmaxRegression(4, 3, true), 4, 3),
            Arguments.of("softmax, no bias", (Supplier<Model>) () -> new SoftmaxRegression(2, 5, false), 2, 5),
            Arguments.of("mlp relu 4-6-5-3", (Supplier<Model>) () -> new MultilayerPerceptron(4, new int[] {6, 5}, 3,
                MultilayerPerceptron.Activation.RELU), 4, 3),
            Arguments.of("mlp tanh 2-7-4", (Supplier<Model>) () -> new MultilayerPerceptron(2, new int[] {7}, 4,
                MultilayerPerceptron.Activation.TANH), 2, 4),
            Arguments.of("mlp sigmoid 3-4-2", (Supplier<Model>) () -> new MultilayerPerceptron(3, new int[] {4}, 2,
                MultilayerPerceptron.Activation.SIGMOID), 3, 2),
            Arguments.of("mlp regression 5-3-1", (Supplier<Model>) () -> new MultilayerPerceptron(5, new int[] {3}, 1,
                MultilayerPerceptron.Activation.TANH, MultilayerPerceptron.Head.SQUARED), 5, 0),
            Arguments.of("cnn conv-pool-dense 6x6x1", (Supplier<Model>) () -> new ConvNet(new ConvNet.Shape(6, 6, 1),
                List.of(new ConvNet.Conv(3, 3), new ConvNet.Pool(2), new ConvNet.Dense(5)), 3), 36, 3),
            Arguments.of("cnn conv-conv-pool, 2 channels, ragged pool 7x7x2", (Supplier<Model>) () -> new ConvNet(
                new ConvNet.Shape(7, 7, 2), List.of(new ConvNet.Conv(4, 2), new ConvNet.Conv(3, 3), new ConvNet.Pool(2)),
                4), 98, 4),
            Arguments.of("cnn pool-conv-dense-dense 5x5x3", (Supplier<Model>) () -> new ConvNet(new ConvNet.Shape(5, 5, 3),
                List.of(new ConvNet.Pool(2), new ConvNet.Conv(2, 2), new ConvNet.Dense(4), new ConvNet.Dense(3)), 2),
                75, 2),
            Arguments.of("cnn non-square 4x6x1, pool 3", (Supplier<Model>) () -> new ConvNet(new ConvNet.Shape(4, 6, 1),
                List.of(new ConvNet.Conv(2, 2), new ConvNet.Pool(3)), 3), 24, 3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void gradientMatchesFiniteDifferences(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Random rnd = new Random(name.hashCode());
        int n = 23;
        double[] x = new double[n * features];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = classes == 0 ? 3 * rnd.nextGaussian() : rnd.nextInt(classes);
        }
        Dataset data = new Dataset(x, y, n, features);
        double[] w = new double[model.parameterCount()];
        model.initialize(w, 11);
        for (int j = 0; j < w.length; j++) {
            w[j] += rnd.nextGaussian() * 0.1;     // biases away from 0, and no weight exactly at a ReLU kink
        }
        // An odd range that starts inside the data and an offset into the gradient buffer.
        double[] grad = new double[w.length + 1];
        double loss = model.lossAndGradient(data, 2, 21, w, grad, 1);
        assertEquals(model.loss(data, 2, 21, w), loss, 1e-12 * Math.abs(loss));
        for (int j = 0; j < w.length; j++) {
            double h = 1e-6;
            double[] plus = w.clone();
            double[] minus = w.clone();
            plus[j] += h;
            minus[j] -= h;
            double fd = (model.loss(data, 2, 21, plus) - model.loss(data, 2, 21, minus)) / (2 * h);
            assertEquals(fd, grad[1 + j], 1e-6 * Math.max(1, Math.abs(fd)), name + ": parameter " + j);
        }
    }

    /** Logits far beyond exp's range: the losses stay finite and exact, the gradients bounded. */
    @Test
    void lossesAreStableForHugeLogits() {
        Dataset data = new Dataset(new double[] {1, 1}, new double[] {1, 0}, 2, 1);
        LogisticRegression logistic = new LogisticRegression(1, false);
        double[] w = {-1000};
        double[] g = new double[1];
        double loss = logistic.lossAndGradient(data, 0, 2, w, g, 0);
        assertEquals(1000.0, loss, 1e-9);               // sample 1: -log(sigmoid(-1000)) = 1000; sample 2: ~0
        assertEquals(-1.0, g[0], 1e-12);
        SoftmaxRegression softmax = new SoftmaxRegression(1, 3, false);
        double[] ws = {800, -800, 0};
        double sl = softmax.loss(new Dataset(new double[] {1}, new double[] {1}, 1, 1), 0, 1, ws);
        assertEquals(1600.0, sl, 1e-9);
        assertTrue(Double.isFinite(sl));
    }
}
