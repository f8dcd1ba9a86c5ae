package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.data.TrainTestSplit;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.LossSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * Sample weights ({@link Dataset#withWeights}) in every model: whole-number weights against
 * the same samples written that many times (loss and gradient, and whole training runs), the
 * gradient against finite differences, weights of 1 against no weights (to the bit where the
 * model keeps its kernels, to rounding for linear regression), the weights following their
 * samples through splits, and training with the same bits at 1, 2, 3 and 5 ranks with
 * sample and class weights, dropout, batch normalisation and clipping together.
 */
class SampleWeightTest {
    private static final ConvNet.Shape IMAGE = new ConvNet.Shape(5, 5, 1);

    /** Every model kind on {@code IMAGE.size()} inputs: regressions first, then classifiers (3 classes, 2 for logistic). */
    private static List<Model> models() {
        int f = IMAGE.size();
        return List.of(new LinearRegression(f, true), new LinearRegression(1, false), new LinearRegression(1, true),
            new MultilayerPerceptron(f, new int[] {6}, 1, MultilayerPerceptron.Activation.TANH,
                MultilayerPerceptron.Head.SQUARED),
            new LogisticRegression(f, true), new SoftmaxRegression(f, 3, true),
            new MultilayerPerceptron(f, new int[] {7}, 3, MultilayerPerceptron.Activation.TANH),
            new MultilayerPerceptron(f, new int[] {7}, 3, MultilayerPerceptron.Activation.TANH,
                MultilayerPerceptron.Head.SOFTMAX, MultilayerPerceptron.Precision.FLOAT32),
            new ConvNet(IMAGE, List.of(new ConvNet.Conv(2, 3), new ConvNet.Dense(5)), 3),
            new ConvNet(IMAGE, List.of(new ConvNet.Conv(2, 3), new ConvNet.Dense(5)), 3,
                MultilayerPerceptron.Precision.FLOAT32));
    }

    private static boolean float32(Model m) {
        return m instanceof MultilayerPerceptron p && p.precision() == MultilayerPerceptron.Precision.FLOAT32
            || m instanceof ConvNet c && c.precision() == MultilayerPerceptron.Precision.FLOAT32;
    }

    /** Whether {@code m} is a linear regression of one feature (the paper's). */
    private static boolean oneFeature(Model m) {
        return m instanceof LinearRegression && m.parameterCount() <= 2;
    }

    /** Samples that suit {@code m}: labels 0..K-1 for a classifier, real targets otherwise; one column for 1 feature. */
    private static Dataset data(Model m, int n, long seed) {
        int classes = m instanceof Classifier c ? c.classes() : 2;
        Dataset d = ConvNetTest.noise(IMAGE, n, classes, seed);
        SplittableRandom r = new SplittableRandom(seed + 7);
        if (!(m instanceof Classifier)) {
            double[] y = new double[n];
            for (int i = 0; i < n; i++) {
                y[i] = d.x()[i * d.features()] - 0.5 * d.x()[i * d.features() + 1] + 0.3 * r.nextGaussian();
            }
            d = new Dataset(d.x(), y, n, d.features());
        }
        if (oneFeature(m)) {
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = d.x()[i * d.features()];
            }
            d = new Dataset(x, d.y(), n, 1);
        }
        return d;
    }

    private static double[] start(Model m, long seed) {
        double[] w = new double[m.parameterCount()];
        m.initialize(w, seed);
        SplittableRandom r = new SplittableRandom(seed + 1);
        for (int j = 0; j < w.length; j++) {
            w[j] += 0.2 * r.nextGaussian();
        }
        return w;
    }

    /** Weights 0 to 3, every one of them present. */
    private static double[] counts(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] c = new double[n];
        for (int i = 0; i < n; i++) {
            c[i] = i < 4 ? i : r.nextInt(4);
        }
        return c;
    }

    /** Each sample of {@code d} written {@code counts[i]} times, in order. */
    private static Dataset duplicated(Dataset d, double[] counts) {
        int n = (int) Arrays.stream(counts).sum();
        int f = d.features();
        double[] x = new double[n * f];
        double[] y = new double[n];
        int at = 0;
        for (int i = 0; i < d.samples(); i++) {
            for (int k = 0; k < counts[i]; k++) {
                System.arraycopy(d.x(), i * f, x, at * f, f);
                y[at++] = d.y()[i];
            }
        }
        return new Dataset(x, y, n, f);
    }

    /** A sample weighing 0, 1, 2 or 3 is the same loss and gradient as that sample written 0, 1, 2 or 3 times. */
    @Test
    void wholeNumberWeightsAreDuplicatedSamples() {
        for (Model m : models()) {
            Dataset d = data(m, 40, 3);
            double[] counts = counts(40, 4);
            Dataset copies = duplicated(d, counts);
            double[] w = start(m, 5);
            double[] plain = new double[w.length];
            double expected = m.lossAndGradient(copies, 0, copies.samples(), w, plain, 0);
            double[] weighted = new double[w.length];
            Dataset dw = d.withWeights(counts);
            double loss = m.lossAndGradient(dw, 0, d.samples(), w, weighted, 0);
            double tolerance = float32(m) ? 1e-5 : 1e-11;
            String what = m.name() + (oneFeature(m) ? " of one feature" : "");
            assertEquals(expected, loss, tolerance * Math.abs(expected), what);
            assertEquals(loss, m.loss(dw, 0, d.samples(), w), tolerance * Math.abs(expected), what + ": loss alone");
            for (int j = 0; j < w.length; j++) {
                assertEquals(plain[j], weighted[j], tolerance * Math.max(1, Math.abs(plain[j])), what + " " + j);
            }
        }
    }

    /** Fractional weights: the gradient is the derivative of the weighted loss, by central differences (float64). */
    @Test
    void gradientMatchesFiniteDifferences() {
        for (Model m : models()) {
            if (float32(m)) {
                continue;      // float32's rounding is above a difference quotient's resolution
            }
            Dataset d = data(m, 23, 6);
            double[] sw = new double[23];
            SplittableRandom r = new SplittableRandom(8);
            for (int i = 0; i < sw.length; i++) {
                sw[i] = 3 * r.nextDouble();
            }
            d = d.withWeights(sw);
            double[] w = start(m, 7);
            double[] grad = new double[w.length + 3];
            m.lossAndGradient(d, 2, 21, w, grad, 3);
            for (int j = 0; j < w.length; j++) {
                double h = 1e-6;
                double[] plus = w.clone();
                double[] minus = w.clone();
                plus[j] += h;
                minus[j] -= h;
                double fd = (m.loss(d, 2, 21, plus) - m.loss(d, 2, 21, minus)) / (2 * h);
                assertEquals(fd, grad[3 + j], 1e-6 * Math.max(1, Math.abs(fd)), m.name() + ": parameter " + j);
            }
        }
    }

    /**
     * Weights of 1: the classifiers and networks keep their arithmetic, so the bits of no
     * weights; linear regression sums weighted samples one by one, so agrees to rounding.
     */
    @Test
    void unitWeightsAreNoWeights() {
        for (Model m : models()) {
            Dataset d = data(m, 37, 9);
            double[] w = start(m, 10);
            double[] g1 = new double[w.length];
            double l1 = m.lossAndGradient(d, 0, 37, w, g1, 0);
            double[] ones = new double[37];
            Arrays.fill(ones, 1.0);
            double[] g2 = new double[w.length];
            double l2 = m.lossAndGradient(d.withWeights(ones), 0, 37, w, g2, 0);
            double tolerance = m instanceof LinearRegression ? 1e-13 : 0.0;
            assertEquals(l1, l2, tolerance * Math.abs(l1), m.name());
            for (int j = 0; j < w.length; j++) {
                assertEquals(g1[j], g2[j], tolerance * Math.max(1, Math.abs(g1[j])), m.name() + " " + j);
            }
        }
    }

    /** Negative, infinite, NaN and all-zero weights are refused, naming the sample; the count must match. */
    @Test
    void badWeightsAreRefused() {
        Dataset d = new Dataset(new double[] {1, 2, 3}, new double[] {1, 2, 3}, 3, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> d.withWeights(new double[] {1, -0.5, 1}));
        assertTrue(e.getMessage().contains("sample 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> d.withWeights(new double[] {1, Double.NaN, 1}));
        assertThrows(IllegalArgumentException.class, () -> d.withWeights(new double[] {Double.POSITIVE_INFINITY, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> d.withWeights(new double[] {0, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> d.withWeights(new double[] {1, 1}));
        assertFalse(d.weighted());
        assertEquals(1.0, d.weight(2), 0.0);
        assertEquals(0.0, d.withWeights(new double[] {1, 0, 2}).weight(1), 0.0);
    }

    /** A train/test split and a row range carry each sample's own weight along. */
    @Test
    void weightsFollowTheirSamples() {
        int n = 50;
        double[] x = new double[n];
        double[] sw = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i;
            sw[i] = 100 + i;
        }
        Dataset d = new Dataset(x, new double[n], n, 1).withWeights(sw);
        TrainTestSplit split = TrainTestSplit.of(d, 0.3, 5);
        for (Dataset part : List.of(split.train(), split.test(), d.rows(7, 19))) {
            assertTrue(part.weighted());
            for (int i = 0; i < part.samples(); i++) {
                assertEquals(100 + part.x()[i], part.weight(i), 0.0);
            }
        }
    }

    /**
     * Whole training runs: full-batch gradient descent on whole-number weights ends where it
     * ends on the duplicated samples (the sums agree to rounding, so the parameters to 1e-9),
     * for linear regression (the paper's one feature, and many) and logistic regression.
     */
    @Test
    void trainingOnWeightsIsTrainingOnCopies() {
        for (String kind : List.of("linear", "linear1", "logistic")) {
            Model probe = kind.equals("logistic") ? new LogisticRegression(IMAGE.size(), true)
                : new LinearRegression(kind.equals("linear1") ? 1 : IMAGE.size(), true);
            Dataset d = data(probe, 60, 11);
            double[] counts = counts(60, 12);
            ModelSpec model = ModelNames.named(kind.equals("linear1") ? "linear" : kind, true, 2, "", "relu", "");
            TrainSpec spec = TrainSpec.paper().withModel(model).withEpochs(60).withLearningRate(0.002);
            for (int ranks : new int[] {1, 3}) {
                TrainingResult weighted = Training.local(d.withWeights(counts), spec.withNodes(ranks));
                TrainingResult copies = Training.local(duplicated(d, counts), spec.withNodes(ranks));
                assertArrayEquals(copies.params(), weighted.params(), 1e-9, kind + ", " + ranks + " ranks");
                assertEquals(copies.finalLoss(), weighted.finalLoss(), 1e-9 * copies.finalLoss(), kind);
            }
        }
    }

    /** Three classes of bars, unbalanced (most of class 0), each sample with a weight in [0, 2). */
    private static Dataset weightedBars() {
        Dataset all = ConvNetTest.bars(600, 13);
        SplittableRandom r = new SplittableRandom(14);
        double[] sw = new double[all.samples()];
        for (int i = 0; i < sw.length; i++) {
            sw[i] = all.y()[i] == 0 ? 2 * r.nextDouble() : 0.5 + r.nextDouble();
        }
        return all.withWeights(sw);
    }

    /**
     * Sample weights, balanced class weights, label smoothing, dropout, batch normalisation and
     * clipping together train to the same bits at 1, 2, 3 and 5 ranks, full batch and
     * mini-batch, with the ring and master-worker exchanges; and the weights change training.
     */
    @Test
    void trainingKeepsTheBitsAtAnyNodeCount() {
        Dataset train = weightedBars();
        for (String kind : List.of("cnn", "mlp", "logistic")) {
            ModelSpec model = switch (kind) {
                case "cnn" -> new ModelSpec.Cnn(ModelNames.cnnLayers("conv:3:3,batchnorm,pool:2,dense:6,batchnorm,"
                    + "dropout:0.3"), null, 3).withPrecision(MultilayerPerceptron.Precision.FLOAT32);
                case "mlp" -> ModelNames.named("mlp", true, 3, "16,dropout:0.25", "relu", "");
                default -> ModelNames.named("logistic", true, 2, "", "relu", "");
            };
            Dataset data = kind.equals("logistic") ? binary(train) : train;
            for (int batch : new int[] {0, 40}) {
                TrainSpec spec = TrainSpec.paper().withModel(model).withEpochs(batch == 0 ? 10 : 2).withLearningRate(0.01)
                    .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(batch, 5);
                spec = spec.withOptimizer(spec.optimizer().withClipNorm(0.5)).withLoss(LossSpec.parse("balanced", 0.1));
                TrainingResult one = Training.local(data, spec);
                TrainingResult plain = Training.local(data.withWeights(null), spec);
                String what = kind + (batch == 0 ? " full batch" : " batches of " + batch);
                assertFalse(Arrays.equals(one.params(), plain.params()), what + ": the sample weights change training");
                for (int ranks : new int[] {2, 3, 5}) {
                    TrainingResult r = Training.local(data, spec.withNodes(ranks));
                    assertArrayEquals(one.params(), r.params(), what + ", " + ranks + " ranks");
                    assertEquals(one.finalLoss(), r.finalLoss(), 0.0, what + ", " + ranks + " ranks");
                }
                for (ExchangeSpec e : List.of(ExchangeSpec.parse("master-worker"), ExchangeSpec.parse("ring"))) {
                    TrainingResult r = Training.local(data, spec.withNodes(3).withExchange(e));
                    assertArrayEquals(one.params(), r.params(), what + ", " + e.label());
                }
            }
        }
    }

    /** The bars as two classes: horizontal against the rest, weights kept. */
    private static Dataset binary(Dataset d) {
        double[] y = new double[d.samples()];
        for (int i = 0; i < y.length; i++) {
            y[i] = d.y()[i] == 0 ? 1 : 0;
        }
        return new Dataset(d.x(), y, d.samples(), d.features(), d.weights());
    }
}
