package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * A network long enough for the fixed-point sum to go by halves ({@link SumExchange#BY_HALVES}:
 * the words reduce-scattered, each rank converting its own chunk): trained with the ring and
 * rabenseifner at 2 and 3 ranks, both fixed-point formats, it gives the bits of one rank and of
 * the tree, whose sum goes whole.
 */
class ByHalvesTrainingTest {

    /** 64 noisy inputs, 3 classes told apart by the mean of one block of 16 inputs. */
    static Dataset data(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * 64];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            int label = r.nextInt(3);
            y[i] = label;
            for (int j = 0; j < 64; j++) {
                x[i * 64 + j] = 0.3 * r.nextGaussian() + (j / 16 == label ? 0.6 : 0.0);
            }
        }
        return new Dataset(x, y, n, 64);
    }

    @Test
    void aLongGradientByHalvesKeepsTheBitsOfOneRankAndOfTheWholeSum() {
        Dataset train = data(240, 5);
        ModelSpec mlp = ModelNames.named("mlp", true, 3, "512,64", "relu", "");
        int params = mlp.newModel(64, 3).parameterCount();
        assertTrue(params + 1 >= SumExchange.BY_HALVES, params + " parameters: long enough to go by halves");
        for (ExchangeSpec.Sum sum : new ExchangeSpec.Sum[] {ExchangeSpec.Sum.FIXED_1, ExchangeSpec.Sum.FIXED_2}) {
            TrainSpec spec = TrainSpec.paper().withModel(mlp).withEpochs(3).withLearningRate(0.01)
                .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(40, 2)
                .withExchange(ExchangeSpec.parse("tree", sum));
            TrainingResult one = Training.local(train, spec);
            TrainingResult whole = Training.local(train, spec.withNodes(3));
            assertArrayEquals(one.params(), whole.params(), sum + ": the tree at 3 ranks");
            for (String algorithm : new String[] {"ring", "rabenseifner"}) {
                for (int ranks : new int[] {1, 2, 3}) {
                    TrainingResult r = Training.local(train, spec.withNodes(ranks)
                        .withExchange(ExchangeSpec.parse(algorithm, sum)));
                    String what = sum + " " + algorithm + ", " + ranks + " ranks";
                    assertArrayEquals(one.params(), r.params(), what);
                    assertEquals(one.finalLoss(), r.finalLoss(), 0.0, what);
                    assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, what);
                }
            }
        }
    }
}
