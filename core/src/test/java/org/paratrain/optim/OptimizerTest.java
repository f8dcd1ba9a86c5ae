package org.paratrain.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Each update rule against steps computed by hand, and schedules against their formulas. */
class OptimizerTest {
    @Test
    void plainGradientDescentIsThePapersRule() {
        double[] w = {1.0, -2.0};
        new GradientDescent(0.1).step(w, new double[] {2.0, -4.0});
        assertEquals(1.0 - 0.1 * 2.0, w[0], 0.0);
        assertEquals(-2.0 + 0.1 * 4.0, w[1], 0.0);
    }

    @Test
    void momentumAndNesterovByHand() {
        double[] w = {0.0};
        GradientDescent heavy = new GradientDescent(LearningRateSchedule.constant(0.1), 0.9, false, 0.0);
        heavy.step(w, new double[] {1.0});      // v = 1        w = -0.1
        heavy.step(w, new double[] {1.0});      // v = 1.9      w = -0.29
        assertEquals(-0.29, w[0], 1e-15);
        double[] u = {0.0};
        GradientDescent nesterov = new GradientDescent(LearningRateSchedule.constant(0.1), 0.9, true, 0.0);
        nesterov.step(u, new double[] {1.0});   // v = 1, step 1 + 0.9 * 1 = 1.9           u = -0.19
        nesterov.step(u, new double[] {1.0});   // v = 1.9, step 1 + 0.9 * 1.9 = 2.71     u = -0.461
        assertEquals(-0.461, u[0], 1e-15);
    }

    @Test
    void weightDecayAddsToTheGradient() {
        double[] w = {2.0};
        new GradientDescent(LearningRateSchedule.constant(0.5), 0.0, false, 0.1).step(w, new double[] {0.0});
        assertEquals(2.0 - 0.5 * 0.1 * 2.0, w[0], 1e-15);
    }

    @Test
    void adamFirstStepIsTheLearningRateTimesTheSign() {
        double[] w = {1.0, 1.0};
        Adam.withDefaults(LearningRateSchedule.constant(0.01)).step(w, new double[] {3.0, -0.002});
        assertEquals(0.99, w[0], 1e-9);
        assertEquals(1.01, w[1], 1e-6);
    }

    @Test
    void adamMinimisesAQuadratic() {
        double[] w = {-5.0};
        Adam adam = Adam.withDefaults(LearningRateSchedule.constant(0.05));
        for (int t = 0; t < 3000; t++) {
            adam.step(w, new double[] {2 * (w[0] - 3)});
        }
        assertEquals(3.0, w[0], 1e-3);
    }

    @Test
    void schedulesFollowTheirFormulas() {
        assertEquals(0.5, LearningRateSchedule.step(1.0, 10, 0.5).rate(15), 0.0);
        assertEquals(0.25, LearningRateSchedule.step(1.0, 10, 0.5).rate(20), 0.0);
        LearningRateSchedule cos = LearningRateSchedule.cosine(2.0, 100);
        assertEquals(2.0, cos.rate(0), 0.0);
        assertEquals(1.0, cos.rate(50), 1e-12);
        assertEquals(0.0, cos.rate(100), 0.0);
        LearningRateSchedule warm = LearningRateSchedule.warmup(4, LearningRateSchedule.constant(1.0));
        assertEquals(0.25, warm.rate(0), 0.0);
        assertEquals(1.0, warm.rate(3), 0.0);
        assertEquals(1.0, warm.rate(10), 0.0);
        assertThrows(IllegalArgumentException.class, () -> new GradientDescent(LearningRateSchedule.constant(1), 1.0,
            false, 0));
        assertThrows(IllegalArgumentException.class, () -> LearningRateSchedule.constant(-1));
    }

    /** An optimiser restored from another's state continues with the same bits, at every step after. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"gd", "momentum", "nesterov", "adam"})
    void restoredStateContinuesBitForBit(String kind) {
        java.util.function.Supplier<Optimizer> make = () -> new org.paratrain.train.spec.OptimizerSpec(
            org.paratrain.train.spec.OptimizerSpec.Method.parse(kind), 0.05, 0.8, 0.01,
            org.paratrain.train.spec.OptimizerSpec.Schedule.parse("step:3:0.5"), 2).newOptimizer(20);
        Optimizer a = make.get();
        double[] wa = {1.0, -2.0, 3.5};
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        double[][] grads = new double[20][];
        for (int t = 0; t < 20; t++) {
            grads[t] = new double[] {rnd.nextGaussian(), rnd.nextGaussian(), rnd.nextGaussian()};
        }
        for (int t = 0; t < 9; t++) {
            a.step(wa, grads[t]);
        }
        Optimizer b = make.get();
        b.restore(a.state());
        double[] wb = wa.clone();
        for (int t = 9; t < 20; t++) {
            a.step(wa, grads[t]);
            b.step(wb, grads[t]);
            assertArrayEquals(wa, wb, 0.0, "step " + t);
        }
        assertEquals(a.state(), b.state());
    }

    @Test
    void stateOfAnotherKindIsRefused() {
        Optimizer adam = Adam.withDefaults(LearningRateSchedule.constant(0.1));
        Optimizer gd = new GradientDescent(0.1);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> gd.restore(adam.state()));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("adam"), e.getMessage());
    }
}
