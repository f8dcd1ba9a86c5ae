package org.paratrain.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * Clipping by global norm: the update of a gradient (3, 4) clipped to norm 1 is (0.6, 0.8) by
 * gradient descent at rate 1, a gradient within the bound passes unchanged, the caller's
 * gradient is left alone; and training with it keeps the same bits at any node count, is
 * recorded and read back, and is refused with a sharded optimizer, which holds no whole gradient.
 */
class GlobalNormClippingTest {
    @Test
    void aLongGradientIsScaledToTheNormAndAShortOnePasses() {
        GlobalNormClipping c = new GlobalNormClipping(new GradientDescent(1.0), 1.0);
        double[] w = {0, 0};
        double[] g = {3, 4};
        c.step(w, g);
        assertArrayEquals(new double[] {-0.6, -0.8}, w, 1e-15);
        assertArrayEquals(new double[] {3, 4}, g, 0.0, "the caller's gradient is not changed");
        assertEquals(5.0, c.lastNorm(), 0.0);
        double[] small = {0.3, -0.4};
        c.step(w, small);
        assertArrayEquals(new double[] {-0.9, -0.4}, w, 1e-15, "a gradient of norm 0.5 passes as it is");
        assertThrows(IllegalStateException.class, () -> c.step(w, g, 0, 1), "a shard has no global norm");
        assertThrows(IllegalArgumentException.class, () -> new GlobalNormClipping(new GradientDescent(1.0), 0));
        assertEquals("gd", c.name(), "checkpoints name the rule it wraps");
    }

    @Test
    void trainingClipsWithTheSameBitsAtAnyNodeCountAndTheRecordSaysSo() {
        Dataset data = new MakeRegression(400, 5, 5, 1.0, 0.0, true).generate(new NumpyRandomState(4)).data();
        TrainSpec spec = TrainSpec.paper().withModel(ModelNames.named("mlp-regression", true, 0, "16,dropout:0.2",
            "tanh", "")).withMethod(OptimizerSpec.Method.ADAM).withLearningRate(0.05).withEpochs(15)
            .withLossReduction(LossReduction.MEAN).withBatches(40, 3);
        TrainSpec clipped = spec.withOptimizer(spec.optimizer().withClipNorm(2.0));
        TrainingResult one = Training.local(data, clipped);
        TrainingResult free = Training.local(data, spec);
        assertFalse(java.util.Arrays.equals(one.params(), free.params()), "a norm of 2 clips these gradients");
        for (int ranks : new int[] {2, 3, 5}) {
            for (ExchangeSpec e : List.of(ExchangeSpec.parse("ring"), ExchangeSpec.parse("master-worker"),
                ExchangeSpec.SHARED)) {
                TrainingResult r = Training.local(data, clipped.withNodes(ranks).withExchange(e));
                assertArrayEquals(one.params(), r.params(), ranks + " ranks, " + e.label());
            }
        }
        TrainSpec back = SpecCodec.decode(SpecCodec.encode(clipped));
        assertEquals(2.0, back.optimizer().clipNorm(), 0.0);
        assertEquals(clipped.optimizer(), back.optimizer());
        assertEquals(0.0, SpecCodec.decode(SpecCodec.encode(spec)).optimizer().clipNorm(), 0.0, "none recorded: none");
        SpecException e = assertThrows(SpecException.class,
            () -> clipped.withExchange(ExchangeSpec.parse("ring").sharded()));
        assertTrue(e.getMessage().contains("clip norm"), e.getMessage());
        assertThrows(SpecException.class, () -> spec.optimizer().withClipNorm(-1));
    }
}
