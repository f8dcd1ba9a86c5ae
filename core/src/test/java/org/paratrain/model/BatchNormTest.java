package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Batch normalisation in the convolutional network: the gradient of the batch's loss by finite
 * differences (through the batch's mean and variance), a step's blocks giving the gradient of
 * the whole batch, the running statistics against a closed form, inference by them, and training
 * with the same bits at 1, 2, 3 and 5 ranks, full batch and mini-batch, float64 and float32,
 * with dropout and clipping, every exchange that computes its own blocks.
 */
class BatchNormTest {
    private static final ConvNet.Shape IMAGE = new ConvNet.Shape(6, 6, 2);
    private static final List<ConvNet.Layer> LAYERS = List.of(new ConvNet.Conv(3, 3), new ConvNet.BatchNorm(),
        new ConvNet.Pool(2), new ConvNet.Dense(5), new ConvNet.BatchNorm());

    private static double[] jittered(ConvNet net, long seed) {
        double[] w = new double[net.parameterCount()];
        net.initialize(w, seed);
        SplittableRandom r = new SplittableRandom(seed + 1);
        for (int j = 0; j < w.length; j++) {
            w[j] += 0.2 * r.nextGaussian();       // gamma and beta away from 1 and 0, no weight at a ReLU kink
        }
        return w;
    }

    /** The gradient training computes is the derivative of the batch's training loss, statistics and all. */
    @Test
    void gradientMatchesFiniteDifferences() {
        ConvNet net = new ConvNet(IMAGE, LAYERS, 3);
        Dataset d = ConvNetTest.noise(IMAGE, 23, 3, 4);
        double[] w = jittered(net, 5);
        double[] grad = new double[w.length + 3];
        double loss = net.lossAndGradient(d, 2, 21, w, grad, 3);
        assertNotEquals(net.loss(d, 2, 21, w), loss, "training normalises by the batch; loss() by the running statistics");
        double[] scratch = new double[w.length];
        int checked = 0;
        for (int j = 0; j < w.length; j++) {
            double h = 1e-6;
            double[] plus = w.clone();
            double[] minus = w.clone();
            plus[j] += h;
            minus[j] -= h;
            double fd = (net.lossAndGradient(d, 2, 21, plus, scratch, 0)
                - net.lossAndGradient(d, 2, 21, minus, scratch, 0)) / (2 * h);
            assertEquals(fd, grad[3 + j], 2e-6 * Math.max(1, Math.abs(fd)), "parameter " + j);
            checked += grad[3 + j] != 0.0 ? 1 : 0;
        }
        assertTrue(checked > w.length / 2, "most of the gradient is not 0: " + checked + " of " + w.length);
    }

    /** A step cut into blocks gives, summed over its blocks, the gradient of the whole batch. */
    @Test
    void aStepsBlocksSumToTheWholeBatchsGradient() {
        for (MultilayerPerceptron.Precision p : MultilayerPerceptron.Precision.values()) {
            ConvNet net = new ConvNet(IMAGE, LAYERS, 3, p);
            Dataset d = ConvNetTest.noise(IMAGE, 50, 3, 7);
            double[] w = jittered(net, 8);
            int params = w.length;
            double[] whole = new double[params];
            double loss = net.lossAndGradient(d, 3, 47, w, whole, 0);
            // Blocks of 10 (the last of 4), chunks of 16 cut from each block's start: 5 blocks.
            double[] rows = new double[5 * params];
            double[] losses = new double[5];
            net.blocks(d, 3, 47, 10, w, losses, 0, 1, rows, 0, params);
            double[] sum = new double[params];
            BatchStatistics.inOrder(rows, 5, params, sum);
            double tolerance = p == MultilayerPerceptron.Precision.FLOAT64 ? 1e-11 : 2e-4;
            for (int j = 0; j < params; j++) {
                assertEquals(whole[j], sum[j], tolerance * Math.max(1, Math.abs(whole[j])), p + ": parameter " + j);
            }
            assertEquals(loss, losses[0] + losses[1] + losses[2] + losses[3] + losses[4], tolerance * Math.abs(loss));
        }
    }

    /**
     * {@code dense:3,batchnorm} on rows whose pre-activations the test computes itself: the running
     * statistics after a step are {@code 0.9 start + 0.1 batch} (the variance unbiased), and
     * inference by running statistics equal to the batch's biased ones is training's normalisation.
     */
    @Test
    void runningStatisticsFollowTheClosedFormAndInferenceUsesThem() {
        ConvNet.Shape flat = new ConvNet.Shape(1, 1, 4);
        ConvNet net = new ConvNet(flat, List.of(new ConvNet.Dense(3), new ConvNet.BatchNorm()), 2);
        int n = 9;
        Dataset d = ConvNetTest.noise(flat, n, 2, 3);
        double[] w = jittered(net, 2);
        int bn = 4 * 3 + 3;         // after the dense layer's weights and biases
        double[] start = w.clone();
        net.blocks(d, 0, n, 4, w, new double[3], 0, 1, new double[3 * w.length], 0, w.length);
        net.afterStep(w);
        for (int o = 0; o < 3; o++) {
            double[] z = new double[n];
            double mean = 0;
            for (int i = 0; i < n; i++) {
                z[i] = w[4 * 3 + o];
                for (int k = 0; k < 4; k++) {
                    z[i] += d.x()[i * 4 + k] * w[k * 3 + o];
                }
                mean += z[i] / n;
            }
            double ss = 0;
            for (int i = 0; i < n; i++) {
                ss += (z[i] - mean) * (z[i] - mean);
            }
            assertEquals(0.9 * start[bn + 6 + o] + 0.1 * mean, w[bn + 6 + o], 1e-14, "running mean " + o);
            assertEquals(0.9 * start[bn + 9 + o] + 0.1 * ss / (n - 1), w[bn + 9 + o], 1e-14, "running variance " + o);
            // Running statistics set to the batch's own (biased variance): inference normalises as training did.
            w[bn + 6 + o] = mean;
            w[bn + 9 + o] = ss / n;
        }
        double training = net.lossAndGradient(d, 0, n, w, new double[w.length], 0);
        assertEquals(training, net.loss(d, 0, n, w), 1e-12 * Math.abs(training));
        // The slots are written only by afterStep: the gradient of the running statistics is 0.
        double[] g = new double[w.length];
        net.lossAndGradient(d, 0, n, w, g, 0);
        for (int j = bn + 6; j < bn + 12; j++) {
            assertEquals(0.0, g[j], 0.0);
        }
    }

    @Test
    void batchnormMustFollowAConvOrDenseLayer() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ConvNet(IMAGE,
            List.of(new ConvNet.Conv(3, 3), new ConvNet.Pool(2), new ConvNet.BatchNorm()), 3));
        assertEquals("--layers: batchnorm must follow a conv or dense layer (it normalises that layer's outputs "
            + "before its ReLU)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ConvNet(IMAGE, List.of(new ConvNet.BatchNorm()), 3));
        SpecException s = assertThrows(SpecException.class, () -> ModelNames.cnnLayers("conv:3:3,batchnorm:2"));
        assertTrue(s.getMessage().contains("batchnorm"), s.getMessage());
        assertEquals("conv:3:3,batchnorm,pool:2", String.join(",",
            ModelNames.cnnLayers("conv:3:3,batchnorm,pool:2").stream().map(ConvNet.Layer::label).toList()));
    }

    /** The bars of {@link ConvNetTest}, learnt through batchnorm and dropout with the same bits at any node count. */
    @Test
    void trainingKeepsTheBitsAtAnyNodeCountFullBatchAndMiniBatch() {
        Dataset train = ConvNetTest.bars(600, 1);
        for (MultilayerPerceptron.Precision p : MultilayerPerceptron.Precision.values()) {
            ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers(
                "conv:4:3,batchnorm,pool:2,dense:8,batchnorm,dropout:0.25"), null, 3).withPrecision(p);
            for (int batch : new int[] {0, 50}) {
                TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(batch == 0 ? 30 : 6).withLearningRate(0.01)
                    .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(batch, 5);
                spec = spec.withOptimizer(spec.optimizer().withClipNorm(1.0));
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
                for (ExchangeSpec e : List.of(ExchangeSpec.parse("master-worker"), ExchangeSpec.parse("rabenseifner"))) {
                    TrainingResult r = Training.local(train, spec.withNodes(3).withExchange(e));
                    assertArrayEquals(one.params(), r.params(), what + ", " + e.label());
                }
                // A sharded optimizer does not clip (it never holds the whole gradient): against its own 1 rank.
                TrainSpec unclipped = spec.withOptimizer(spec.optimizer().withClipNorm(0.0));
                assertArrayEquals(Training.local(train, unclipped).params(), Training.local(train,
                    unclipped.withNodes(3).withExchange(ExchangeSpec.parse("ring").sharded())).params(), what + ", sharded");
            }
        }
    }

    /** More ranks than a step's blocks: the ranks without a block still take part in every sum. */
    @Test
    void ranksWithoutABlockStillSumTheStatistics() {
        Dataset train = ConvNetTest.bars(200, 3);
        ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:3:3,batchnorm,pool:2,dense:6"), null, 3);
        TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(2).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(40, 20);
        TrainingResult one = Training.local(train, spec);
        assertArrayEquals(one.params(), Training.local(train, spec.withNodes(5)).params(), "2 blocks a step, 5 ranks");
    }

    @Test
    void theSharedExchangeIsRefused() {
        Dataset train = ConvNetTest.bars(100, 3);
        ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:3:3,batchnorm,dense:6"), null, 3);
        TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(1).withNodes(2).withExchange(ExchangeSpec.SHARED);
        RuntimeException e = assertThrows(RuntimeException.class, () -> Training.local(train, spec));
        assertTrue(String.valueOf(e.getMessage()).contains("the shared exchange hands blocks out"), e.getMessage());
    }
}
