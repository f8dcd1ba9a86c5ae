package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * Dropout in the convolutional network: masks that depend on the seed, the step and the row
 * alone (the same whichever rows a rank draws, and whichever order); the fraction dropped and
 * the scale of the kept; gradients by finite differences through the same masks; the identity
 * in inference; and training with the same bits at 1, 2, 3 and 5 ranks, full batch and
 * mini-batch, float64 and float32, every exchange scheme.
 */
class DropoutTest {
    private static final ConvNet.Shape IMAGE = new ConvNet.Shape(6, 6, 2);
    private static final List<ConvNet.Layer> LAYERS = List.of(new ConvNet.Dropout(0.2), new ConvNet.Conv(3, 3),
        new ConvNet.Dropout(0.5), new ConvNet.Pool(2), new ConvNet.Dense(6), new ConvNet.Dropout(0.3));

    private static Dataset noise(int n, int classes, long seed) {
        return ConvNetTest.noise(IMAGE, n, classes, seed);
    }

    @Test
    void aRowsMasksDependOnTheSeedTheStepAndTheRowAlone() {
        DropoutMasks m = new DropoutMasks(0.5, 3);
        int units = 40;
        double[] all = new double[100 * units];
        for (int row = 0; row < 100; row++) {
            m.factors(9, 4, row, units, all, row * units);
        }
        // Drawn backwards, from a fresh instance, one row at a time: the same factors.
        DropoutMasks again = new DropoutMasks(0.5, 3);
        double[] one = new double[units];
        for (int row = 99; row >= 0; row--) {
            again.factors(9, 4, row, units, one, 0);
            assertArrayEquals(java.util.Arrays.copyOfRange(all, row * units, (row + 1) * units), one, "row " + row);
        }
        // Another step, seed, row or layer draws other masks.
        double[] row7 = java.util.Arrays.copyOfRange(all, 7 * units, 8 * units);
        for (double[] other : List.of(factors(m, 9, 5, 7, units), factors(m, 10, 4, 7, units),
            factors(m, 9, 4, 8, units), factors(new DropoutMasks(0.5, 4), 9, 4, 7, units))) {
            assertFalse(java.util.Arrays.equals(row7, other));
        }
        float[] f = new float[units];
        m.factors(9, 4, 7, units, f, 0);
        for (int u = 0; u < units; u++) {
            assertEquals((float) row7[u], f[u], 0f, "float masks are the double ones");
        }
    }

    private static double[] factors(DropoutMasks m, long seed, long step, long row, int units) {
        double[] out = new double[units];
        m.factors(seed, step, row, units, out, 0);
        return out;
    }

    /** Over 10^6 draws the dropped fraction is the rate within 5 standard deviations; the kept are 1/(1-rate). */
    @Test
    void theFractionDroppedIsTheRateAndTheKeptAreScaled() {
        for (double rate : new double[] {0.0, 0.1, 0.5, 0.9}) {
            DropoutMasks m = new DropoutMasks(rate, 0);
            int rows = 1000;
            int units = 1000;
            double[] f = new double[units];
            long dropped = 0;
            for (int row = 0; row < rows; row++) {
                m.factors(1, 2, row, units, f, 0);
                for (double v : f) {
                    if (v == 0.0) {
                        dropped++;
                    } else {
                        assertEquals(1.0 / (1.0 - rate), v, 0.0);
                    }
                }
            }
            double n = (double) rows * units;
            double sd = Math.sqrt(n * rate * (1 - rate));
            assertEquals(rate * n, dropped, 5 * sd + 1e-9, "rate " + rate);
        }
        assertThrows(IllegalArgumentException.class, () -> new DropoutMasks(1.0, 0));
        assertThrows(IllegalArgumentException.class, () -> new DropoutMasks(-0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> new DropoutMasks(Double.NaN, 0));
    }

    /** The gradient training computes is the derivative of the loss training computes, through the same masks. */
    @Test
    void gradientMatchesFiniteDifferencesThroughTheMasks() {
        ConvNet net = new ConvNet(IMAGE, LAYERS, 3);
        Dataset d = noise(21, 3, 4);
        double[] w = new double[net.parameterCount()];
        net.initialize(w, 5);
        SplittableRandom r = new SplittableRandom(6);
        for (int j = 0; j < w.length; j++) {
            w[j] += 0.1 * r.nextGaussian();       // no weight at a ReLU kink
        }
        net.trainingStep(77, 3, 1000);
        double[] grad = new double[w.length + 2];
        double loss = net.lossAndGradient(d, 1, 20, w, grad, 2);
        assertNotEquals(net.loss(d, 1, 20, w), loss, "training drops units; loss() is inference's");
        assertFiniteDifferences(net, d, 1, 20, w, grad, 2, "cnn");
    }

    /**
     * Central differences of the training loss (the same masks: the model's step is set) against
     * {@code grad[offset + j]}, parameter by parameter.
     */
    private static void assertFiniteDifferences(Model net, Dataset d, int from, int to, double[] w, double[] grad,
                                                int offset, String what) {
        double[] scratch = new double[w.length];
        for (int j = 0; j < w.length; j++) {
            double h = 1e-6;
            double[] plus = w.clone();
            double[] minus = w.clone();
            plus[j] += h;
            minus[j] -= h;
            double fd = (net.lossAndGradient(d, from, to, plus, scratch, 0)
                - net.lossAndGradient(d, from, to, minus, scratch, 0)) / (2 * h);
            assertEquals(fd, grad[offset + j], 1e-6 * Math.max(1, Math.abs(fd)), what + ": parameter " + j);
        }
    }

    /** Inference ignores dropout: the loss and the probabilities are those of the network without it. */
    @Test
    void inferenceIsTheNetworkWithoutDropout() {
        List<ConvNet.Layer> plain = LAYERS.stream().filter(l -> !(l instanceof ConvNet.Dropout)).toList();
        for (MultilayerPerceptron.Precision p : MultilayerPerceptron.Precision.values()) {
            ConvNet with = new ConvNet(IMAGE, LAYERS, 3, p);
            ConvNet without = new ConvNet(IMAGE, plain, 3, p);
            assertEquals(without.parameterCount(), with.parameterCount(), "dropout has no parameters");
            Dataset d = noise(40, 3, 8);
            double[] w = new double[with.parameterCount()];
            with.initialize(w, 2);
            with.trainingStep(1, 2, 0);
            assertEquals(without.loss(d, 0, 40, w), with.loss(d, 0, 40, w), 0.0, p.toString());
            double[] a = new double[3];
            double[] b = new double[3];
            for (int i = 0; i < 40; i++) {
                with.probabilities(d, i, w, a);
                without.probabilities(d, i, w, b);
                assertArrayEquals(b, a, 0.0);
            }
        }
        // A rate of 0 multiplies by exactly 1: training too is the network without the layer.
        ConvNet zero = new ConvNet(IMAGE, List.of(new ConvNet.Conv(3, 3), new ConvNet.Dropout(0.0),
            new ConvNet.Dense(4)), 3);
        ConvNet none = new ConvNet(IMAGE, List.of(new ConvNet.Conv(3, 3), new ConvNet.Dense(4)), 3);
        Dataset d = noise(30, 3, 9);
        double[] w = new double[none.parameterCount()];
        none.initialize(w, 3);
        double[] g1 = new double[w.length];
        double[] g2 = new double[w.length];
        zero.trainingStep(5, 6, 7);
        assertEquals(none.lossAndGradient(d, 0, 30, w, g1, 0), zero.lossAndGradient(d, 0, 30, w, g2, 0), 0.0);
        assertArrayEquals(g1, g2, 0.0);
    }

    /** The bars of {@link ConvNetTest}, learnt through dropout with the same bits at any node count and exchange. */
    @Test
    void trainingKeepsTheBitsAtAnyNodeCountFullBatchAndMiniBatch() {
        Dataset train = ConvNetTest.bars(600, 1);
        for (MultilayerPerceptron.Precision p : MultilayerPerceptron.Precision.values()) {
            ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:3,dropout:0.25,pool:2,dense:8,dropout:0.5"),
                null, 3).withPrecision(p);
            for (int batch : new int[] {0, 50}) {
                TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(batch == 0 ? 40 : 8).withLearningRate(0.01)
                    .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(batch, 5);
                TrainingResult one = Training.local(train, spec);
                String what = p + (batch == 0 ? " full batch" : " batches of " + batch);
                double accuracy = ((ConvNet) cnn.newModel(64, 3)).accuracy(ConvNetTest.bars(300, 2), one.params());
                assertTrue(accuracy > 0.9, what + ": test accuracy " + accuracy);
                for (int ranks : new int[] {2, 3, 5}) {
                    TrainingResult r = Training.local(train, spec.withNodes(ranks));
                    assertArrayEquals(one.params(), r.params(), what + ", " + ranks + " ranks");
                    assertEquals(one.finalLoss(), r.finalLoss(), 0.0, what + ", " + ranks + " ranks");
                    assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, what + ", " + ranks + " ranks");
                }
                for (ExchangeSpec e : List.of(ExchangeSpec.parse("master-worker"), ExchangeSpec.SHARED,
                    ExchangeSpec.parse("ring").sharded())) {
                    TrainingResult r = Training.local(train, spec.withNodes(3).withExchange(e));
                    assertArrayEquals(one.params(), r.params(), what + ", " + e.label());
                }
            }
        }
    }

    /** Dropout changes training (the masks are drawn), and the step moves them: not one mask for every step. */
    @Test
    void dropoutActsInTrainingAndChangesFromStepToStep() {
        ConvNet net = new ConvNet(IMAGE, LAYERS, 3);
        Dataset d = noise(20, 3, 11);
        double[] w = new double[net.parameterCount()];
        net.initialize(w, 1);
        double[] g = new double[w.length];
        net.trainingStep(1, 0, 0);
        double step0 = net.lossAndGradient(d, 0, 20, w, g, 0);
        net.trainingStep(1, 1, 0);
        double step1 = net.lossAndGradient(d, 0, 20, w, g, 0);
        net.trainingStep(1, 0, 0);
        assertEquals(step0, net.lossAndGradient(d, 0, 20, w, g, 0), 0.0, "step 0 again: its masks again");
        assertNotEquals(step0, step1);
        // A rank that holds rows from 10 on (its shard) draws what the whole data's rows 10.. draw.
        double[] gAll = new double[w.length];
        double[] gShard = new double[w.length];
        net.trainingStep(1, 4, 0);
        double whole = net.lossAndGradient(d, 10, 20, w, gAll, 0);
        Dataset shard = new Dataset(java.util.Arrays.copyOfRange(d.x(), 10 * IMAGE.size(), 20 * IMAGE.size()),
            java.util.Arrays.copyOfRange(d.y(), 10, 20), 10, IMAGE.size());
        net.trainingStep(1, 4, 10);
        assertEquals(whole, net.lossAndGradient(shard, 0, 10, w, gShard, 0), 0.0);
        assertArrayEquals(gAll, gShard, 0.0);
    }

    /** The MLP: finite differences through its masks, inference without them, two rates read back. */
    @Test
    void mlpGradientMatchesFiniteDifferencesAndInferenceDoesNotDrop() {
        for (MultilayerPerceptron.Activation act : MultilayerPerceptron.Activation.values()) {
            MultilayerPerceptron net = new MultilayerPerceptron(5, new int[] {7, 6}, 3, act,
                MultilayerPerceptron.Head.SOFTMAX, MultilayerPerceptron.Precision.FLOAT64, new double[] {0.4, 0.3});
            MultilayerPerceptron plain = new MultilayerPerceptron(5, new int[] {7, 6}, 3, act);
            SplittableRandom r = new SplittableRandom(act.ordinal());
            int n = 19;
            double[] x = new double[n * 5];
            double[] y = new double[n];
            for (int i = 0; i < x.length; i++) {
                x[i] = r.nextGaussian();
            }
            for (int i = 0; i < n; i++) {
                y[i] = r.nextInt(3);
            }
            Dataset d = new Dataset(x, y, n, 5);
            double[] w = new double[net.parameterCount()];
            net.initialize(w, 3);
            for (int j = 0; j < w.length; j++) {
                w[j] += 0.1 * r.nextGaussian();
            }
            assertEquals(plain.loss(d, 0, n, w), net.loss(d, 0, n, w), 0.0, act + ": inference does not drop");
            net.trainingStep(4, 9, 50);
            double[] grad = new double[w.length];
            double loss = net.lossAndGradient(d, 0, n, w, grad, 0);
            assertNotEquals(plain.loss(d, 0, n, w), loss, act + ": training drops");
            assertFiniteDifferences(net, d, 0, n, w, grad, 0, act.toString());
        }
    }

    /** An MLP with dropout trains to the same bits at 1, 2, 3 and 5 ranks, full batch and mini-batch, both precisions. */
    @Test
    void mlpTrainingKeepsTheBitsAtAnyNodeCount() {
        Dataset train = ConvNetTest.bars(500, 3);
        for (MultilayerPerceptron.Precision p : MultilayerPerceptron.Precision.values()) {
            ModelSpec mlp = ModelNames.named("mlp", true, 3, "32,dropout:0.3,16,dropout:0.2", "relu", "")
                .withPrecision(p);
            assertEquals("32,dropout:0.3,16,dropout:0.2", ((ModelSpec.Mlp) mlp).layers());
            for (int batch : new int[] {0, 25}) {
                TrainSpec spec = TrainSpec.paper().withModel(mlp).withEpochs(batch == 0 ? 30 : 4).withLearningRate(0.01)
                    .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(batch, 2);
                TrainingResult one = Training.local(train, spec);
                TrainingResult none = Training.local(train, spec.withModel(ModelNames.named("mlp", true, 3, "32,16",
                    "relu", "").withPrecision(p)));
                assertFalse(java.util.Arrays.equals(one.params(), none.params()), "dropout changes training");
                for (int ranks : new int[] {2, 3, 5}) {
                    TrainingResult r = Training.local(train, spec.withNodes(ranks));
                    assertArrayEquals(one.params(), r.params(), p + " batch " + batch + ", " + ranks + " ranks");
                }
            }
        }
    }

    @Test
    void badRatesAreRefusedNamingTheLayer() {
        for (String bad : List.of("dropout:0.5,16", "16,dropout:0.5,dropout:0.2", "16,dropout:1", "16,dropout:x")) {
            SpecException e = assertThrows(SpecException.class, () -> ModelNames.mlpLayers(bad));
            assertTrue(e.getMessage().contains("layers"), e.getMessage());
        }
        assertEquals(List.of(0.0, 0.5, 0.0), ModelNames.mlpLayers("8,4,dropout:0.5,2").dropout());
        for (String bad : List.of("dropout:1", "dropout:-0.1", "dropout:x", "dropout:0.5:2", "dropout")) {
            SpecException e = assertThrows(SpecException.class, () -> ModelNames.cnnLayers("conv:4:3," + bad));
            assertTrue(e.getMessage().contains("layers") && e.getMessage().contains(bad), e.getMessage());
        }
        assertEquals("conv:4:3,dropout:0.25,dense:8", String.join(",", ModelNames.cnnLayers(
            "conv:4:3,dropout:0.25,dense:8").stream().map(ConvNet.Layer::label).toList()), "labels read back");
    }
}
