package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.paratrain.data.Dataset;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * Training a network in float32 against the same network in float64 (whose gradient the
 * finite-difference test checks): the loss and every gradient element agree to float32's
 * rounding, training ends where float64 ends up to that rounding, and the bits do not depend
 * on the node count.
 */
class Float32NetworkTest {
    private static Dataset data(int n, int features, int classes, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * features];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = classes == 0 ? x[i * features] * 2 - x[i * features + 1] : r.nextInt(classes);
        }
        return new Dataset(x, y, n, features);
    }

    /** One block's loss and gradient: float32 within a few float roundings of float64, element by element. */
    @ParameterizedTest
    @EnumSource(MultilayerPerceptron.Head.class)
    void aBlocksLossAndGradientAgreeWithFloat64ToFloatRounding(MultilayerPerceptron.Head head) {
        int outputs = head == MultilayerPerceptron.Head.SOFTMAX ? 4 : 1;
        Dataset d = data(64, 7, head == MultilayerPerceptron.Head.SOFTMAX ? 4 : 0, 3);
        for (MultilayerPerceptron.Activation act : MultilayerPerceptron.Activation.values()) {
            MultilayerPerceptron f64 = new MultilayerPerceptron(7, new int[] {9, 5}, outputs, act, head);
            MultilayerPerceptron f32 = new MultilayerPerceptron(7, new int[] {9, 5}, outputs, act, head,
                MultilayerPerceptron.Precision.FLOAT32);
            double[] w = new double[f64.parameterCount()];
            f64.initialize(w, 5);
            double[] g64 = new double[w.length];
            double[] g32 = new double[w.length];
            double l64 = f64.lossAndGradient(d, 3, 61, w, g64, 0);
            double l32 = f32.lossAndGradient(d, 3, 61, w, g32, 0);
            assertEquals(l64, l32, 1e-5 * Math.abs(l64), act + " loss");
            assertEquals(l32, f32.loss(d, 3, 61, w), 0.0, act + ": loss() follows the precision");
            double scale = 0;
            for (double g : g64) {
                scale = Math.max(scale, Math.abs(g));
            }
            for (int j = 0; j < w.length; j++) {
                assertEquals(g64[j], g32[j], 1e-5 * scale, act + " gradient " + j);
            }
        }
    }

    /** Adam on a mini-batch network: float32 ends where float64 does, and the same bits at 1, 2, 3 and 5 ranks. */
    @ParameterizedTest
    @EnumSource(value = ExchangeSpec.Sum.class, names = {"FIXED_1", "FIXED_2", "FIXED_HALF"})
    void trainingInFloat32KeepsTheBitsAtAnyNodeCount(ExchangeSpec.Sum sum) {
        Dataset d = data(480, 6, 3, 11);
        TrainSpec f64 = TrainSpec.paper().withModel(new ModelSpec.Mlp(List.of(12), MultilayerPerceptron.Activation.RELU,
                MultilayerPerceptron.Head.SOFTMAX, 3)).withEpochs(8).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(60, 4)
            .withExchange(ExchangeSpec.parse("ring", sum));
        TrainSpec f32 = f64.withModel(f64.model().withPrecision(MultilayerPerceptron.Precision.FLOAT32));
        TrainingResult one = Training.local(d, f32);
        for (int p : new int[] {2, 3, 5}) {
            TrainingResult r = Training.local(d, f32.withNodes(p));
            assertArrayEquals(one.params(), r.params(), 0.0, p + " ranks");
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, p + " ranks");
        }
        TrainingResult doubles = Training.local(d, f64);
        for (int j = 0; j < one.params().length; j++) {
            assertEquals(doubles.params()[j], one.params()[j], 1e-3 * Math.max(1, Math.abs(doubles.params()[j])),
                "parameter " + j);
        }
        assertTrue(Math.abs(doubles.finalLoss() - one.finalLoss()) < 1e-4 * doubles.finalLoss());
    }
}
