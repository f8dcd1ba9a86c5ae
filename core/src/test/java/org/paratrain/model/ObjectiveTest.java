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
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.LossSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * Class weights and label smoothing ({@link Objective}) in every classifier: the loss against
 * its definition computed here from the model's own probabilities, the gradient against finite
 * differences, whole-number weights against duplicated rows, weights of 1 and no smoothing
 * against the plain loss to the bit, balanced weights against scikit-learn's formula, and
 * training with the same bits at 1, 2, 3 and 5 ranks together with dropout and clipping.
 */
class ObjectiveTest {
    private static final ConvNet.Shape IMAGE = new ConvNet.Shape(5, 5, 1);

    /** Every classifier kind, on {@code features} inputs and 3 classes (2 for logistic). */
    private static List<Classifier> classifiers(int features) {
        return List.of(new LogisticRegression(features, true), new SoftmaxRegression(features, 3, true),
            new MultilayerPerceptron(features, new int[] {7}, 3, MultilayerPerceptron.Activation.TANH),
            new MultilayerPerceptron(features, new int[] {7}, 3, MultilayerPerceptron.Activation.TANH,
                MultilayerPerceptron.Head.SOFTMAX, MultilayerPerceptron.Precision.FLOAT32),
            new ConvNet(IMAGE, List.of(new ConvNet.Conv(2, 3), new ConvNet.Dense(5)), 3),
            new ConvNet(IMAGE, List.of(new ConvNet.Conv(2, 3), new ConvNet.Dense(5)), 3,
                MultilayerPerceptron.Precision.FLOAT32));
    }

    private static Dataset data(int n, int classes, long seed) {
        Dataset d = ConvNetTest.noise(IMAGE, n, classes, seed);
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

    private static Objective objective(Classifier c) {
        return c.classes() == 2 ? new Objective(new double[] {0.5, 2.5}, 0.2)
            : new Objective(new double[] {0.5, 2.0, 1.25}, 0.1);
    }

    /** The loss is {@code sum_i w[y_i] (-sum_c t_c log p_c)}, with p the model's own probabilities. */
    @Test
    void theLossIsTheWeightedCrossEntropyOfTheSmoothedTarget() {
        for (Classifier c : classifiers(IMAGE.size())) {
            Dataset d = data(30, c.classes(), 3);
            double[] w = start(c, 4);
            Objective o = objective(c);
            double[] weights = o.classWeights();
            int k = c.classes();
            double expected = 0;
            double[] p = new double[k];
            for (int i = 0; i < d.samples(); i++) {
                c.probabilities(d, i, w, p);
                int y = (int) d.y()[i];
                double ce = 0;
                for (int cl = 0; cl < k; cl++) {
                    double t = (cl == y ? 1 - o.smoothing() : 0) + o.smoothing() / k;
                    ce -= t * Math.log(p[cl]);
                }
                expected += weights[y] * ce;
            }
            c.objective(o);
            double tolerance = c instanceof MultilayerPerceptron m && m.precision() == MultilayerPerceptron.Precision
                .FLOAT32 || c instanceof ConvNet n && n.precision() == MultilayerPerceptron.Precision.FLOAT32
                ? 1e-4 : 1e-10;
            assertEquals(expected, c.loss(d, 0, d.samples(), w), tolerance * Math.abs(expected), c.name());
            assertEquals(expected, c.lossAndGradient(d, 0, d.samples(), w, new double[w.length], 0),
                tolerance * Math.abs(expected), c.name());
        }
    }

    /** The gradient is the derivative of that loss: central differences, parameter by parameter (float64). */
    @Test
    void gradientMatchesFiniteDifferences() {
        for (Classifier c : classifiers(IMAGE.size())) {
            if (c instanceof MultilayerPerceptron m && m.precision() == MultilayerPerceptron.Precision.FLOAT32
                || c instanceof ConvNet n && n.precision() == MultilayerPerceptron.Precision.FLOAT32) {
                continue;      // float32's rounding is above a difference quotient's resolution
            }
            Dataset d = data(23, c.classes(), 5);
            double[] w = start(c, 6);
            c.objective(objective(c));
            double[] grad = new double[w.length + 3];
            c.lossAndGradient(d, 2, 21, w, grad, 3);
            for (int j = 0; j < w.length; j++) {
                double h = 1e-6;
                double[] plus = w.clone();
                double[] minus = w.clone();
                plus[j] += h;
                minus[j] -= h;
                double fd = (c.loss(d, 2, 21, plus) - c.loss(d, 2, 21, minus)) / (2 * h);
                assertEquals(fd, grad[3 + j], 1e-6 * Math.max(1, Math.abs(fd)), c.name() + ": parameter " + j);
            }
        }
    }

    /** A class weighing 2 or 3 is the same loss and gradient as its samples written twice or three times. */
    @Test
    void wholeNumberWeightsAreDuplicatedRows() {
        for (Classifier c : classifiers(IMAGE.size())) {
            int k = c.classes();
            Dataset d = data(20, k, 7);
            double[] counts = k == 2 ? new double[] {3, 1} : new double[] {2, 1, 3};
            int n = 0;
            for (double y : d.y()) {
                n += (int) counts[(int) y];
            }
            double[] x = new double[n * d.features()];
            double[] y = new double[n];
            int at = 0;
            for (int i = 0; i < d.samples(); i++) {
                for (int r = 0; r < counts[(int) d.y()[i]]; r++) {
                    System.arraycopy(d.x(), i * d.features(), x, at * d.features(), d.features());
                    y[at++] = d.y()[i];
                }
            }
            Dataset copies = new Dataset(x, y, n, d.features());
            double[] w = start(c, 8);
            double[] plain = new double[w.length];
            double expected = c.lossAndGradient(copies, 0, n, w, plain, 0);
            c.objective(new Objective(counts, 0.0));
            double[] weighted = new double[w.length];
            double loss = c.lossAndGradient(d, 0, d.samples(), w, weighted, 0);
            double tolerance = c instanceof LogisticRegression || c instanceof SoftmaxRegression
                || c instanceof MultilayerPerceptron m && m.precision() == MultilayerPerceptron.Precision.FLOAT64
                || c instanceof ConvNet v && v.precision() == MultilayerPerceptron.Precision.FLOAT64 ? 1e-11 : 1e-5;
            assertEquals(expected, loss, tolerance * expected, c.name());
            for (int j = 0; j < w.length; j++) {
                assertEquals(plain[j], weighted[j], tolerance * Math.max(1, Math.abs(plain[j])), c.name() + " " + j);
            }
        }
    }

    /** Weights of 1 and no smoothing reduce to the plain loss and gradient, bit for bit. */
    @Test
    void unitWeightsAreThePlainLossToTheBit() {
        for (Classifier c : classifiers(IMAGE.size())) {
            Dataset d = data(19, c.classes(), 9);
            double[] w = start(c, 10);
            double[] g1 = new double[w.length];
            double l1 = c.lossAndGradient(d, 0, 19, w, g1, 0);
            double[] ones = new double[c.classes()];
            Arrays.fill(ones, 1.0);
            c.objective(new Objective(ones, 0.0));
            double[] g2 = new double[w.length];
            assertEquals(l1, c.lossAndGradient(d, 0, 19, w, g2, 0), 0.0, c.name());
            assertArrayEquals(g1, g2, 0.0, c.name());
        }
    }

    /** Balanced weights are scikit-learn's {@code n / (K bincount(y))}; a class without samples is refused. */
    @Test
    void balancedWeightsAreScikitLearns() {
        LossSpec balanced = LossSpec.parse("balanced", 0.0);
        double[] w = balanced.objective(3, new long[] {10, 30, 60}).classWeights();
        assertArrayEquals(new double[] {100.0 / 30, 100.0 / 90, 100.0 / 180}, w, 1e-15);
        SpecException e = assertThrows(SpecException.class, () -> balanced.objective(3, new long[] {10, 0, 5}));
        assertTrue(e.getMessage().contains("class 1"), e.getMessage());
        assertThrows(SpecException.class, () -> LossSpec.parse("1,-2", 0));
        assertThrows(SpecException.class, () -> LossSpec.parse("1,x", 0));
        assertThrows(SpecException.class, () -> LossSpec.parse("0,0", 0));
        assertThrows(SpecException.class, () -> LossSpec.parse("", 1.0));
        assertThrows(SpecException.class, () -> new LossSpec(List.of(1.0, 2.0), false, 0).objective(3, null));
        assertThrows(SpecException.class, () -> TrainSpec.paper().withLoss(LossSpec.parse("1,2", 0)));
    }

    /** Three unbalanced classes, most of them class 0: the bars of {@link ConvNetTest} thinned. */
    private static Dataset unbalanced() {
        Dataset all = ConvNetTest.bars(900, 11);
        int n = 0;
        double[] x = new double[all.x().length];
        double[] y = new double[all.samples()];
        for (int i = 0; i < all.samples(); i++) {
            if (all.y()[i] == 0 || i % 4 == 0) {
                System.arraycopy(all.x(), i * 64, x, n * 64, 64);
                y[n++] = all.y()[i];
            }
        }
        return new Dataset(Arrays.copyOf(x, n * 64), Arrays.copyOf(y, n), n, 64);
    }

    /**
     * Balanced weights, label smoothing, dropout and clipping together train to the same bits at
     * 1, 2, 3 and 5 ranks, full batch and mini-batch, every exchange scheme; and they change
     * training (the weights are not ignored). The spec survives its JSON record.
     */
    @Test
    void trainingKeepsTheBitsAtAnyNodeCount() {
        Dataset train = unbalanced();
        for (String kind : List.of("mlp", "cnn", "softmax")) {
            ModelSpec model = switch (kind) {
                case "mlp" -> ModelNames.named("mlp", true, 3, "16,dropout:0.25", "relu", "");
                case "cnn" -> new ModelSpec.Cnn(ModelNames.cnnLayers("conv:3:3,pool:2,dense:6,dropout:0.3"), null, 3)
                    .withPrecision(MultilayerPerceptron.Precision.FLOAT32);
                default -> ModelNames.named("softmax", true, 3, "", "relu", "");
            };
            for (int batch : new int[] {0, 40}) {
                TrainSpec spec = TrainSpec.paper().withModel(model).withEpochs(batch == 0 ? 12 : 3).withLearningRate(0.01)
                    .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(batch, 5);
                spec = spec.withOptimizer(spec.optimizer().withClipNorm(0.5)).withLoss(LossSpec.parse("balanced", 0.1));
                assertEquals(spec, SpecCodec.decode(SpecCodec.encode(spec)));
                TrainingResult one = Training.local(train, spec);
                TrainingResult plain = Training.local(train, spec.withLoss(LossSpec.PLAIN));
                String what = kind + (batch == 0 ? " full batch" : " batches of " + batch);
                assertFalse(Arrays.equals(one.params(), plain.params()), what + ": the weights change training");
                for (int ranks : new int[] {2, 3, 5}) {
                    TrainingResult r = Training.local(train, spec.withNodes(ranks));
                    assertArrayEquals(one.params(), r.params(), what + ", " + ranks + " ranks");
                    assertEquals(one.finalLoss(), r.finalLoss(), 0.0, what + ", " + ranks + " ranks");
                }
                for (ExchangeSpec e : List.of(ExchangeSpec.parse("master-worker"), ExchangeSpec.SHARED,
                    ExchangeSpec.parse("ring"))) {
                    TrainingResult r = Training.local(train, spec.withNodes(3).withExchange(e));
                    assertArrayEquals(one.params(), r.params(), what + ", " + e.label());
                }
            }
        }
    }
}
