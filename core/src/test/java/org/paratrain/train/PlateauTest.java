package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.RankFailedException;
import org.paratrain.model.LinearRegression;
import org.paratrain.train.spec.TrainSpec;

/**
 * A learning rate that reacts to a plateau of the validation loss: on a scripted sequence of
 * validation losses the rates are the closed form (halved after every two validations without
 * a new best); on real validation, the same bits at 1, 2 and 3 ranks, and a run stopped after a
 * reduction and resumed at another node count ends as the one that never stopped.
 */
class PlateauTest {
    private static final TrainSpec CONFIG = EarlyStoppingTest.CONFIG.withEpochs(400);

    @Test
    void theRatesAreTheClosedFormOfTheScriptedLosses() {
        double[] losses = {5, 4, 4.5, 4.6, 3, 3.5, 3.6, 3.7, 3.8, 3.9};
        int[] at = {0};
        TrainingControl c = TrainingControl.none().withValidation(new TrainingControl.Validation(1, 0,
            p -> new double[] {losses[at[0]++], Double.NaN}, new TrainingControl.Plateau(2, 0.5)));
        TrainingResult r = Training.local(EarlyStoppingTest.TRAIN, CONFIG.withEpochs(10), c, null);
        // Bests at validations 1, 2 and 5; two without one after 2 (at 4), after 5 (at 7) and after 7 (at 9).
        double lr = 0.05;
        double[] want = {lr, lr, lr, lr, lr / 2, lr / 2, lr / 2, lr / 4, lr / 4, lr / 8};
        assertArrayEquals(want, r.history().lr(), 0.0);
        assertThrows(IllegalArgumentException.class, () -> new TrainingControl.Plateau(0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new TrainingControl.Plateau(2, 1.0));
    }

    private static TrainingControl validating(TrainingControl base) {
        LinearRegression m = new LinearRegression(40, false);
        return base.withValidation(new TrainingControl.Validation(1, 0,
            p -> new double[] {m.loss(EarlyStoppingTest.TEST, 0, EarlyStoppingTest.TEST.samples(), p)
                / EarlyStoppingTest.TEST.samples(), Double.NaN}, new TrainingControl.Plateau(5, 0.3)));
    }

    @Test
    void theBitsHoldAtAnyNodeCountAndAfterAResume() {
        TrainingResult one = Training.local(EarlyStoppingTest.TRAIN, CONFIG, validating(TrainingControl.none()), null);
        double[] lr = one.history().lr();
        assertTrue(lr[lr.length - 1] < lr[0] * 0.3 * 0.3, "the validation loss plateaued more than twice: "
            + lr[lr.length - 1]);
        for (int nodes : new int[] {2, 3}) {
            TrainingResult r = Training.local(EarlyStoppingTest.TRAIN, CONFIG.withNodes(nodes),
                validating(TrainingControl.none()), null);
            assertArrayEquals(one.params(), r.params(), nodes + " ranks");
            assertArrayEquals(lr, r.history().lr(), 0.0);
        }
        // Fail after the rate has been lowered; resume on another node count from the last checkpoint.
        int firstCut = 0;
        while (lr[firstCut] == lr[0]) {
            firstCut++;
        }
        List<TrainingState> saved = new ArrayList<>();
        TrainingControl withSaves = validating(new TrainingControl(null,
            new TrainingControl.Checkpoints(10, 0, saved::add), null, null));
        int failAt = firstCut + 25;
        assertThrows(RankFailedException.class, () -> Training.local(EarlyStoppingTest.TRAIN, CONFIG.withNodes(3),
            withSaves, new FailureInjection(2, failAt, false)));
        TrainingState last = saved.getLast();
        assertTrue(last.epoch() > firstCut, "the checkpoint should follow a reduction: " + last + " vs " + firstCut);
        TrainingResult resumed = Training.local(EarlyStoppingTest.TRAIN, CONFIG.withNodes(2),
            validating(TrainingControl.none()).resumingFrom(last), null);
        assertArrayEquals(one.params(), resumed.params());
        assertArrayEquals(lr, resumed.history().lr(), 0.0);
    }
}
