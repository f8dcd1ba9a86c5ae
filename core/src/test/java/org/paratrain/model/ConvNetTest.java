package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
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
 * The convolutional network against a direct implementation of its definition (loops over
 * pixels, kernels and channels, no im2col, no matrix products), batched prediction against
 * one sample at a time, and training: it learns a task a linear model cannot, with the same
 * bits at any node count. {@link ModelGradientTest} checks its gradients.
 */
class ConvNetTest {
    private static final ConvNet.Shape IMAGE = new ConvNet.Shape(9, 8, 2);
    private static final List<ConvNet.Layer> LAYERS = List.of(new ConvNet.Conv(3, 3), new ConvNet.Pool(2),
        new ConvNet.Conv(4, 2), new ConvNet.Dense(5));

    static Dataset noise(ConvNet.Shape shape, int n, int classes, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * shape.size()];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = r.nextInt(classes);
        }
        return new Dataset(x, y, n, shape.size());
    }

    /** The logits of one sample by the definition: value (y, x, c) at {@code (y * w + x) * c + channel}. */
    private static double[] direct(ConvNet.Shape image, List<ConvNet.Layer> layers, int classes, double[] w,
                                   double[] sample) {
        double[] a = sample.clone();
        int h = image.height();
        int wd = image.width();
        int ch = image.channels();
        int p = 0;
        List<ConvNet.Layer> all = new java.util.ArrayList<>(layers);
        all.add(new ConvNet.Dense(classes));
        for (int l = 0; l < all.size(); l++) {
            ConvNet.Layer layer = all.get(l);
            boolean head = l == all.size() - 1;
            if (layer instanceof ConvNet.Conv c) {
                int k = c.kernel();
                int oh = h - k + 1;
                int ow = wd - k + 1;
                int bias = p + k * k * ch * c.filters();
                double[] out = new double[oh * ow * c.filters()];
                for (int y = 0; y < oh; y++) {
                    for (int x = 0; x < ow; x++) {
                        for (int f = 0; f < c.filters(); f++) {
                            double s = w[bias + f];
                            for (int ky = 0; ky < k; ky++) {
                                for (int kx = 0; kx < k; kx++) {
                                    for (int q = 0; q < ch; q++) {
                                        int row = (ky * k + kx) * ch + q;
                                        s += a[((y + ky) * wd + x + kx) * ch + q] * w[p + row * c.filters() + f];
                                    }
                                }
                            }
                            out[(y * ow + x) * c.filters() + f] = Math.max(0, s);
                        }
                    }
                }
                p = bias + c.filters();
                a = out;
                h = oh;
                wd = ow;
                ch = c.filters();
            } else if (layer instanceof ConvNet.Pool pool) {
                int s = pool.size();
                double[] out = new double[(h / s) * (wd / s) * ch];
                for (int y = 0; y < h / s; y++) {
                    for (int x = 0; x < wd / s; x++) {
                        for (int q = 0; q < ch; q++) {
                            double m = Double.NEGATIVE_INFINITY;
                            for (int dy = 0; dy < s; dy++) {
                                for (int dx = 0; dx < s; dx++) {
                                    m = Math.max(m, a[((y * s + dy) * wd + x * s + dx) * ch + q]);
                                }
                            }
                            out[(y * (wd / s) + x) * ch + q] = m;
                        }
                    }
                }
                a = out;
                h /= s;
                wd /= s;
            } else {
                int units = ((ConvNet.Dense) layer).width();
                int in = a.length;
                double[] out = new double[units];
                for (int o = 0; o < units; o++) {
                    double s = w[p + in * units + o];
                    for (int j = 0; j < in; j++) {
                        s += a[j] * w[p + j * units + o];
                    }
                    out[o] = head ? s : Math.max(0, s);
                }
                p += in * units + units;
                a = out;
                h = 1;
                wd = 1;
                ch = units;
            }
        }
        assertEquals(w.length, p, "the layout covers every parameter");
        return a;
    }

    @Test
    void lossAndProbabilitiesAreThoseOfTheDirectDefinition() {
        int classes = 3;
        ConvNet net = new ConvNet(IMAGE, LAYERS, classes);
        Dataset d = noise(IMAGE, 11, classes, 5);
        double[] w = new double[net.parameterCount()];
        net.initialize(w, 9);
        SplittableRandom r = new SplittableRandom(2);
        for (int j = 0; j < w.length; j++) {
            w[j] += 0.05 * r.nextGaussian();
        }
        double expected = 0;
        double[] probs = new double[classes];
        for (int i = 0; i < d.samples(); i++) {
            double[] sample = java.util.Arrays.copyOfRange(d.x(), i * IMAGE.size(), (i + 1) * IMAGE.size());
            double[] z = direct(IMAGE, LAYERS, classes, w, sample);
            double max = Math.max(z[0], Math.max(z[1], z[2]));
            double lse = max + Math.log(Math.exp(z[0] - max) + Math.exp(z[1] - max) + Math.exp(z[2] - max));
            net.probabilities(d, i, w, probs);
            for (int c = 0; c < classes; c++) {
                assertEquals(Math.exp(z[c] - lse), probs[c], 1e-12, "sample " + i + " class " + c);
            }
            if (i >= 1 && i < 10) {
                expected += lse - z[(int) d.y()[i]];
            }
        }
        assertEquals(expected, net.loss(d, 1, 10, w), 1e-10 * Math.abs(expected));
    }

    @Test
    void batchedPredictionIsThatOfOneSampleAtATime() {
        ConvNet net = new ConvNet(IMAGE, LAYERS, 4);
        Dataset d = noise(IMAGE, 600, 4, 8);     // more than one chunk of 256
        double[] w = new double[net.parameterCount()];
        net.initialize(w, 3);
        int[] classes = new int[590];
        double[] probs = new double[590 * 4];
        net.predict(d, 7, 590, w, classes, probs);
        double[] one = new double[4];
        int right = 0;
        for (int i = 0; i < 590; i++) {
            assertEquals(net.predict(d, 7 + i, w), classes[i], "sample " + (7 + i));
            net.probabilities(d, 7 + i, w, one);
            assertArrayEquals(one, java.util.Arrays.copyOfRange(probs, i * 4, i * 4 + 4), 1e-14);
        }
        for (int i = 0; i < 600; i++) {
            right += net.predict(d, i, w) == (int) d.y()[i] ? 1 : 0;
        }
        assertEquals(right / 600.0, net.accuracy(d, w), 0.0);
    }

    /**
     * 8x8 images with a bar: label 0 horizontal, 1 vertical, 2 diagonal, at random places and
     * brightness, over noise. No linear model of the pixels separates them well; a small CNN does.
     */
    static Dataset bars(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * 64];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            int label = r.nextInt(3);
            y[i] = label;
            int at = r.nextInt(4) + 2;
            double v = 0.5 + r.nextDouble();
            for (int j = 0; j < 64; j++) {
                x[i * 64 + j] = 0.3 * r.nextGaussian();
            }
            for (int t = 1; t < 7; t++) {
                int pixel = switch (label) {
                    case 0 -> at * 8 + t;
                    case 1 -> t * 8 + at;
                    default -> t * 8 + t;
                };
                x[i * 64 + pixel] += v;
            }
        }
        return new Dataset(x, y, n, 64);
    }

    @Test
    void learnsBarsWithTheSameBitsAtAnyNodeCount() {
        Dataset train = bars(600, 1);
        Dataset test = bars(300, 2);
        ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:3,pool:2,dense:8"), null, 3);
        TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(12).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(50, 5)
            .withExchange(ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1));
        TrainingResult one = Training.local(train, spec);
        ConvNet net = (ConvNet) cnn.newModel(64, 3);
        double accuracy = net.accuracy(test, one.params());
        assertTrue(accuracy > 0.95, "test accuracy " + accuracy);
        for (int p : new int[] {2, 3}) {
            TrainingResult r = Training.local(train, spec.withNodes(p));
            assertArrayEquals(one.params(), r.params(), p + " ranks");
            assertEquals(one.finalLoss(), r.finalLoss(), 0.0, p + " ranks");
        }
    }

    /** The training accuracy a local run reports, counted on two threads, is the network's own over all samples. */
    @Test
    void theReportedTrainingAccuracyIsTheNetworksOwn() {
        Dataset train = bars(2500, 7);
        ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:3,pool:2,dense:8"), null, 3);
        TrainingResult r = Training.local(train, TrainSpec.paper().withModel(cnn).withEpochs(1).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(100, 25)
            .withNodes(2));
        double own = ((ConvNet) cnn.newModel(64, 3)).accuracy(train, r.params());
        assertTrue(own > 0.4 && own < 1, "accuracy after one epoch " + own);
        assertEquals(own, r.trainAccuracy(), 0.0);
    }

    /**
     * The float32 pass told layer by layer ({@link GradientReady}) gives the bits of the pass told
     * nothing, whenever the exchange stops waiting: from the start (nothing told), after the top
     * layer, or never (every layer told, each once, top first), and however many of the block's
     * last chunks it stages. Past the point the pass goes chunk by chunk; the ranges never told
     * are final at the end all the same.
     */
    @Test
    void theLayerByLayerPassGivesTheBitsOfThePlainOneWheneverTheExchangeStopsWaiting() {
        ConvNet net = new ConvNet(IMAGE, LAYERS, 4, MultilayerPerceptron.Precision.FLOAT32);
        Dataset d = noise(IMAGE, 200, 4, 22);
        double[] w = new double[net.parameterCount()];
        net.initialize(w, 5);
        int p = w.length;
        int size = 70;          // 3 blocks, the last of 60 samples: 4 chunks, the last short
        double[] plainLoss = new double[3];
        double[] plain = new double[3 * p];
        net.blocks(d, 0, 200, size, w, plainLoss, 0, 1, plain, 0, p);
        int[] layout = net.backwardRanges();
        for (int[] run : new int[][] {{0, 4}, {1, 4}, {layout.length / 2, 4}, {layout.length / 2, 1},
            {1, 2}, {layout.length / 2, 3}}) {
            int tells = run[0];
            int chunks = run[1];
            List<int[]> told = new ArrayList<>();
            GradientReady ready = new GradientReady() {
                @Override
                public void ready(int from, int to) {
                    told.add(new int[] {from, to});
                }

                @Override
                public boolean waiting() {
                    return told.size() < tells;
                }

                @Override
                public int stagedChunks(int m) {
                    assertEquals(4, m, "the last block of 60 samples: chunks of 16");
                    return chunks;
                }
            };
            double[] loss = new double[3];
            double[] grad = new double[3 * p];
            net.blocks(d, 0, 200, size, w, loss, 0, 1, grad, 0, p, ready);
            assertArrayEquals(plainLoss, loss, 0.0, "losses, " + tells + " told, " + chunks + " staged");
            assertArrayEquals(plain, grad, 0.0, "gradients, " + tells + " told, " + chunks + " staged");
            assertEquals(tells, told.size(), "told until the exchange stopped waiting");
            for (int i = 0; i < told.size(); i++) {
                // backwardRanges: each layer's [from, to), the output layer's first.
                assertArrayEquals(new int[] {layout[2 * i], layout[2 * i + 1]}, told.get(i), "range " + i);
            }
        }
    }

    /** float32 passes within float rounding of float64's, element by element, over several chunks. */
    @Test
    void float32LossAndGradientAgreeWithFloat64ToFloatRounding() {
        ConvNet f64 = new ConvNet(IMAGE, LAYERS, 4);
        ConvNet f32 = new ConvNet(IMAGE, LAYERS, 4, MultilayerPerceptron.Precision.FLOAT32);
        Dataset d = noise(IMAGE, 700, 4, 21);
        double[] w = new double[f64.parameterCount()];
        f64.initialize(w, 4);
        double[] g64 = new double[w.length];
        double[] g32 = new double[w.length + 2];
        double l64 = f64.lossAndGradient(d, 3, 690, w, g64, 0);
        double l32 = f32.lossAndGradient(d, 3, 690, w, g32, 2);
        assertEquals(l64, l32, 1e-5 * Math.abs(l64));
        assertEquals(l32, f32.loss(d, 3, 690, w), 1e-9 * Math.abs(l32), "loss() follows the precision");
        double scale = 0;
        for (double g : g64) {
            scale = Math.max(scale, Math.abs(g));
        }
        for (int j = 0; j < w.length; j++) {
            assertEquals(g64[j], g32[2 + j], 1e-4 * scale, "gradient " + j);
        }
    }

    @Test
    void float32TrainingLearnsBarsWithTheSameBitsAtAnyNodeCount() {
        Dataset train = bars(600, 1);
        ModelSpec cnn = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:3,pool:2,dense:8"), null, 3)
            .withPrecision(MultilayerPerceptron.Precision.FLOAT32);
        TrainSpec spec = TrainSpec.paper().withModel(cnn).withEpochs(12).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(50, 5)
            .withExchange(ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1));
        TrainingResult one = Training.local(train, spec);
        TrainingResult f64 = Training.local(train, spec.withModel(new ModelSpec.Cnn(cnn instanceof ModelSpec.Cnn c
            ? c.layers() : List.of(), null, 3)));
        double accuracy = ((ConvNet) cnn.newModel(64, 3)).accuracy(bars(300, 2), one.params());
        assertTrue(accuracy > 0.95, "test accuracy " + accuracy);
        assertEquals(f64.finalLoss(), one.finalLoss(), 0.02 * f64.finalLoss() + 1e-3, "float32 ends where float64 does");
        TrainingResult two = Training.local(train, spec.withNodes(2));
        assertArrayEquals(one.params(), two.params());
        assertEquals(one.finalLoss(), two.finalLoss(), 0.0);
    }

    @Test
    void shapesThatDoNotFitAreRefusedNamingTheLayer() {
        ModelSpec big = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:5,pool:2,conv:4:5"), null, 3);
        SpecException e = assertThrows(SpecException.class, () -> big.newModel(64, 3));
        assertEquals("layers conv:4:5 needs an input of at least 5x5, got 2x2x4 (images 8x8x1)",
            e.getMessage());
        assertThrows(SpecException.class, () -> new ModelSpec.Cnn(ModelNames.cnnLayers("dense:4,pool:2"), null, 3)
            .newModel(64, 3));
        SpecException square = assertThrows(SpecException.class,
            () -> new ModelSpec.Cnn(ModelNames.cnnLayers("dense:4"), null, 3).newModel(60, 3));
        assertEquals("image-shape", square.setting());
        assertEquals(new ConvNet.Shape(6, 10, 1), new ModelSpec.Cnn(ModelNames.cnnLayers("dense:4"),
            ModelNames.shape("6x10x1"), 3).shape(60));
        for (String bad : new String[] {"conv:4", "conv:0:3", "pool:1", "dense:x", "relu", "conv:4:3,,dense:2", ""}) {
            assertThrows(SpecException.class, () -> ModelNames.cnnLayers(bad), bad);
        }
    }
}
