package org.paratrain.train;

import org.paratrain.train.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.RankFailedException;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.model.LinearRegression;

/**
 * Validation and early stopping: the run stops after PATIENCE validations without
 * improvement and keeps the parameters of the best one, which are exactly those of a run
 * stopped at that epoch by --epochs; at any node count, and after a resume.
 */
class EarlyStoppingTest {
    /** Few noisy samples of many features: the fit goes on improving on them while it gets worse on others. */
    static final Dataset ALL = new MakeRegression(260, 40, 5, 0.0, 60.0, true).generate(new NumpyRandomState(9))
        .data();
    static final Dataset TRAIN = rows(0, 60);
    static final Dataset TEST = rows(60, 260);
    static final TrainSpec CONFIG = TrainSpec.paper().withLossReduction(LossReduction.MEAN).withLearningRate(0.05)
        .withEpochs(3000).withBlockSize(8);

    static Dataset rows(int from, int to) {
        int f = ALL.features();
        return new Dataset(java.util.Arrays.copyOfRange(ALL.x(), from * f, to * f),
            java.util.Arrays.copyOfRange(ALL.y(), from, to), to - from, f);
    }

    static TrainingControl validating(int patience) {
        LinearRegression m = new LinearRegression(40, false);
        return TrainingControl.none().withValidation(new TrainingControl.Validation(1, patience,
            p -> new double[] {m.loss(TEST, 0, TEST.samples(), p) / TEST.samples(), Double.NaN}));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void stopsAfterThePatienceAndKeepsTheBestParameters(int nodes) {
        TrainingResult r = Training.local(TRAIN, CONFIG.withNodes(nodes), validating(4), null);
        double[] val = r.history().valLoss();
        int stopped = r.epochs();
        assertTrue(stopped < CONFIG.epochs(), "did not stop early");
        int best = 0;
        for (int e = 1; e < stopped; e++) {
            best = val[e] < val[best] ? e : best;
        }
        assertEquals(stopped - 1 - 4, best, "stopped 4 validations after the best");
        TrainingResult cut = Training.local(TRAIN, CONFIG.withEpochs(best + 1));
        assertArrayEquals(cut.params(), r.params());
        assertEquals(cut.finalLoss(), r.finalLoss(), 0.0);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aResumedRunStopsWhereAnUninterruptedOneDoes(int resumeNodes) {
        TrainingResult reference = Training.local(TRAIN, CONFIG, validating(6), null);
        List<TrainingState> saved = new ArrayList<>();
        TrainingControl c = validating(6);
        TrainingControl failing = new TrainingControl(null, new TrainingControl.Checkpoints(1, 0, saved::add), null,
            null, c.validation());
        int failAt = reference.epochs() - 2;       // after the best epoch: the checkpoint holds best parameters
        assertThrows(RankFailedException.class, () -> Training.local(TRAIN, CONFIG.withNodes(2), failing,
            new FailureInjection(1, failAt, false)));
        TrainingState last = saved.get(saved.size() - 1);
        assertTrue(last.best().length > 0);
        TrainingResult resumed = Training.local(TRAIN, CONFIG.withNodes(resumeNodes),
            validating(6).resumingFrom(last), null);
        assertEquals(reference.epochs(), resumed.epochs());
        assertArrayEquals(reference.params(), resumed.params());
        assertArrayEquals(reference.history().valLoss(), resumed.history().valLoss());
    }
}
