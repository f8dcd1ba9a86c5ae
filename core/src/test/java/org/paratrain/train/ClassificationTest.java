package org.paratrain.train;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.model.MultilayerPerceptron;
import java.util.List;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;

/** The classifiers and the linear model on scikit-learn's real data sets (fixtures made by its script). */
class ClassificationTest {

    static Dataset load(String name) throws IOException {
        try (InputStream in = ClassificationTest.class.getResourceAsStream("/fixtures/" + name + ".json")) {
            JsonNode j = new ObjectMapper().readTree(in);
            int n = j.get("samples").asInt();
            int d = j.get("features").asInt();
            double[] x = new double[n * d];
            double[] y = new double[n];
            for (int i = 0; i < x.length; i++) {
                x[i] = j.get("X").get(i).asDouble();
            }
            for (int i = 0; i < n; i++) {
                y[i] = j.get("y").get(i).asDouble();
            }
            return standardised(new Dataset(x, y, n, d));
        }
    }

    /** Each feature to mean 0 and standard deviation 1 (the test reference fits on all the data). */
    static Dataset standardised(Dataset d) {
        double[] x = d.x().clone();
        int f = d.features();
        for (int j = 0; j < f; j++) {
            double mean = 0;
            for (int i = 0; i < d.samples(); i++) {
                mean += x[i * f + j];
            }
            mean /= d.samples();
            double var = 0;
            for (int i = 0; i < d.samples(); i++) {
                var += (x[i * f + j] - mean) * (x[i * f + j] - mean);
            }
            double sd = Math.sqrt(var / d.samples());
            for (int i = 0; i < d.samples(); i++) {
                x[i * f + j] = (x[i * f + j] - mean) / sd;
            }
        }
        return new Dataset(x, d.y(), d.samples(), f);
    }

    @Test
    void logisticRegressionOnBreastCancerReaches98Percent() throws IOException {
        Dataset data = load("breast_cancer");
        TrainSpec cfg = mean(new ModelSpec.Logistic(true), 3000, 0.5);
        TrainingResult one = Training.local(data, cfg);
        assertTrue(one.trainAccuracy() >= 0.98, "accuracy " + one.trainAccuracy());
        TrainingResult four = Training.local(data, cfg.withNodes(4));
        assertArrayEquals(one.params(), four.params(), 0.0, "4 ranks give the bits of 1");
    }

    @Test
    void linearRegressionOnDiabetesReachesTheClosedForm() throws IOException {
        Dataset data = load("diabetes");
        double[] expected = LeastSquares.solve(data, true);
        TrainSpec cfg = mean(new ModelSpec.Linear(true), 20000, 0.05).withNodes(3);
        double[] got = Training.local(data, cfg.withMethod(OptimizerSpec.Method.NESTEROV)).params();
        for (int j = 0; j < expected.length; j++) {
            assertEquals(expected[j], got[j], 1e-6 * Math.abs(expected[j]), "coefficient " + j);
        }
    }

    @Test
    void softmaxSeparatesThreeBlobsAndAdamGivesTheSameBitsAtAnyNodeCount() {
        Random rnd = new Random(3);
        int n = 600;
        double[] x = new double[n * 2];
        double[] y = new double[n];
        double[][] centres = {{0, 4}, {4, -2}, {-4, -2}};
        for (int i = 0; i < n; i++) {
            int k = i % 3;
            y[i] = k;
            x[2 * i] = centres[k][0] + rnd.nextGaussian();
            x[2 * i + 1] = centres[k][1] + rnd.nextGaussian();
        }
        Dataset data = new Dataset(x, y, n, 2);
        TrainSpec cfg = mean(new ModelSpec.Softmax(0, true), 300, 0.05).withMethod(OptimizerSpec.Method.ADAM);
        TrainingResult one = Training.local(data, cfg);
        assertTrue(one.trainAccuracy() > 0.97, "accuracy " + one.trainAccuracy());
        for (int p : new int[] {2, 5}) {
            assertArrayEquals(one.params(), Training.local(data, cfg.withNodes(p).withExchange(ExchangeSpec.parse("ring")))
                .params(), 0.0);
        }
    }

    /** Mini-batch SGD: p ranks see the same global batches as 1, so the bits agree. */
    @Test
    void miniBatchesGiveTheSameBitsAtAnyNodeCount() throws IOException {
        Dataset data = load("breast_cancer");
        TrainSpec cfg = mean(new ModelSpec.Logistic(true), 30, 0.1).withMethod(OptimizerSpec.Method.MOMENTUM)
            .withBatches(64, 9);
        TrainingResult one = Training.local(data, cfg);
        assertTrue(one.trainAccuracy() >= 0.97, "accuracy " + one.trainAccuracy());
        for (int p : new int[] {2, 3, 7}) {
            for (String ex : new String[] {"master-worker", "rabenseifner"}) {
                TrainingResult r = Training.local(data, cfg.withNodes(p).withExchange(ExchangeSpec.parse(ex)));
                assertArrayEquals(one.params(), r.params(), 0.0, p + " ranks, " + ex);
                assertArrayEquals(one.history().loss(), r.history().loss(), 0.0);
            }
        }
        TrainingResult other = Training.local(data, cfg.withBatches(64, 10));
        assertTrue(other.params()[0] != one.params()[0], "another seed visits the samples in another order");
        assertThrows(IllegalArgumentException.class, () -> Training.local(data, cfg.withBatches(10_000, 1)));
    }

    /** A small MLP learns what a linear model cannot (XOR of the signs), with the same bits at 1 and 3 ranks. */
    @Test
    void mlpLearnsXorWithTheSameBitsAtAnyNodeCount() {
        Dataset data = Xor.data(512);
        TrainSpec cfg = mean(new ModelSpec.Mlp(List.of(16, 16), MultilayerPerceptron.Activation.TANH,
            MultilayerPerceptron.Head.SOFTMAX, 2), 60, 0.02).withMethod(OptimizerSpec.Method.ADAM).withBatches(32, 4);
        TrainingResult one = Training.local(data, cfg);
        assertTrue(one.trainAccuracy() > 0.95, "accuracy " + one.trainAccuracy());
        TrainingResult three = Training.local(data, cfg.withNodes(3)
            .withExchange(ExchangeSpec.parse("recursive-doubling")));
        assertArrayEquals(one.params(), three.params(), 0.0);
    }

    @Test
    void labelsMustSuitTheModel() {
        Dataset bad = new Dataset(new double[] {1, 2}, new double[] {0, 2}, 2, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Training.local(bad, TrainSpec.paper().withModel(new ModelSpec.Logistic(false))));
        assertTrue(e.getMessage().contains("sample 2") && e.getMessage().contains("model logistic"), e.getMessage());
        SpecException model = assertThrows(SpecException.class,
            () -> ModelNames.of("tree", false, 0, List.of(), MultilayerPerceptron.Activation.RELU));
        assertEquals("model", model.setting());
        assertEquals("optimizer", assertThrows(SpecException.class, () -> OptimizerSpec.Method.parse("lbfgs")).setting());
    }

    /** The paper's spec with this model, mean loss, epochs and learning rate. */
    static TrainSpec mean(ModelSpec model, int epochs, double lr) {
        return TrainSpec.paper().withModel(model).withEpochs(epochs).withLearningRate(lr)
            .withLossReduction(LossReduction.MEAN);
    }
}
