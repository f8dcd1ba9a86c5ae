package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The steps whose guessed fixed-point grid did not hold are counted, and the count is a
 * property of the values: the same at any node count and allreduce, and with the gradient sent
 * in buckets; never the first step (nothing to guess from); none for the sharded optimizer,
 * which agrees every step's grid, nor for the float sum, which has none.
 */
class GuessMissesTest {
    static final Dataset DATA = images();

    private static Dataset images() {
        SplittableRandom r = new SplittableRandom(11);
        int n = 240;
        int d = 36;
        double[] x = new double[n * d];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            y[i] = r.nextInt(4);
            for (int j = 0; j < d; j++) {
                x[i * d + j] = r.nextGaussian() * 0.5 + ((j % 6) == y[i] ? 1.0 : 0.0);
            }
        }
        return new Dataset(x, y, n, d);
    }

    private static TrainSpec spec(Sum sum, String algorithm) {
        ModelSpec m = new ModelSpec.Mlp(List.of(24, 12), MultilayerPerceptron.Activation.RELU,
            MultilayerPerceptron.Head.SOFTMAX, 4);
        return TrainSpec.paper().withModel(m).withEpochs(6).withLearningRate(0.05).withLossReduction(LossReduction.MEAN)
            .withMethod(OptimizerSpec.Method.ADAM).withBatches(60, 3).withExchange(ExchangeSpec.parse(algorithm, sum));
    }

    @Test
    void theMissesAreTheValuesAndNotTheWayTheyAreSummed() {
        int steps = 6 * 4;
        TrainingResult one = Training.local(DATA, spec(Sum.FIXED_1, "star"));
        assertTrue(one.guessMisses() > 0 && one.guessMisses() < steps, one.guessMisses() + " of " + steps
            + " steps: never the first (nothing to guess from), and some as the gradient's magnitudes move");
        for (int p : new int[] {2, 3}) {
            for (String algorithm : new String[] {"ring", "recursive-doubling"}) {
                TrainSpec s = spec(Sum.FIXED_1, algorithm).withNodes(p);
                assertEquals(one.guessMisses(), Training.local(DATA, s).guessMisses(), algorithm + " p=" + p);
                assertEquals(one.guessMisses(), Training.local(DATA, s.withRun(s.run().withBucketSize(100)))
                    .guessMisses(), algorithm + " p=" + p + " in buckets");
            }
            TrainSpec sharded = TrainSpec.paper().withModel(spec(Sum.FIXED_1, "ring").model()).withEpochs(6)
                .withLearningRate(0.05).withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM)
                .withBatches(60, 3).withExchange(ExchangeSpec.parse("ring", Sum.FIXED_1).sharded()).withNodes(p);
            assertEquals(0, Training.local(DATA, sharded).guessMisses(), "sharded p=" + p + " agrees every step's grid");
        }
        assertEquals(0, Training.local(DATA, spec(Sum.FLOAT, "ring").withNodes(2)).guessMisses());
    }

    /**
     * A run's untimed first steps ({@link TrainingControl#untimedSteps}) leave its training alone
     * and its figures to the steps after them: the failed guesses are the whole run's less those of
     * a run of the first epochs alone (the same steps, the same grids), the exchange's step-by-step
     * clock counts the rest, and the epochs before are no longer in the compute and exchange seconds.
     */
    @Test
    void untimedStepsAreLeftOutOfTheFiguresAndNotOutOfTheTraining() {
        TrainSpec s = spec(Sum.FIXED_1, "ring").withNodes(2);
        TrainingResult whole = Training.local(DATA, s);
        int total = whole.rankTimes().waitFreeSteps();
        int perEpoch = total / s.epochs();
        assertEquals(s.epochs() * perEpoch, total, "steps of the run");
        for (int epochs : new int[] {1, 2}) {
            int k = epochs * perEpoch;
            TrainingResult first = Training.local(DATA, s.withEpochs(epochs));
            TrainingResult r = Training.local(DATA, s, TrainingControl.none().withUntimedSteps(k));
            org.junit.jupiter.api.Assertions.assertArrayEquals(whole.params(), r.params(), 0.0, "the same training");
            assertEquals(whole.guessMisses() - first.guessMisses(), r.guessMisses(), "misses after " + k + " steps");
            assertEquals(total - k, r.rankTimes().waitFreeSteps(), "steps the exchange's clock counts");
            for (int e = 0; e < epochs; e++) {
                assertEquals(0.0, r.history().compute()[e], 0.0, "epoch " + e + "'s compute is untimed");
                assertEquals(0.0, r.history().comm()[e], 0.0, "epoch " + e + "'s exchange is untimed");
            }
            assertTrue(r.history().compute()[epochs] > 0, "the epoch after is timed");
            assertEquals(r.computeSeconds(), r.rankTimes().compute()[0], 0.0);
        }
        assertTrue(whole.guessMisses() > 0, "the run must fail a guess for the count to mean anything");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> TrainingControl.none().withUntimedSteps(-1));
    }
}
