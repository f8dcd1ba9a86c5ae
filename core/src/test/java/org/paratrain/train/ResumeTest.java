package org.paratrain.train;

import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.comm.RankFailedException;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;

/**
 * A run stopped by a failure and resumed from a checkpoint, at another node count, ends
 * with the bits of one run that never stopped: parameters, final loss and every epoch's loss.
 * The reference is an uninterrupted 1-rank run.
 */
class ResumeTest {
    static final Dataset DATA = new MakeRegression(600, 4, 4, 1.0, 5.0, true).generate(new NumpyRandomState(3)).data();
    static final TrainSpec CONFIG = TrainSpec.paper().withEpochs(30).withLearningRate(1e-3)
        .withModel(new ModelSpec.Linear(true));

    /** Checkpoints of a run that fails at {@code failAt} (epoch, or step of a mini-batch run) on {@code nodes} ranks. */
    static List<TrainingState> checkpointsOfAFailedRun(TrainSpec spec, int nodes, int failAt, int everyEpochs,
                                                        long everySteps) {
        List<TrainingState> saved = new ArrayList<>();
        TrainingControl control = new TrainingControl(null,
            new TrainingControl.Checkpoints(everyEpochs, everySteps, saved::add), null, null);
        assertThrows(RankFailedException.class, () -> Training.local(DATA, spec.withNodes(nodes), control,
            new FailureInjection(nodes - 1, failAt, false)));
        assertTrue(!saved.isEmpty(), "no checkpoint before the failure");
        return saved;
    }

    @ParameterizedTest(name = "{0}, saved at {1} ranks, resumed at {2}")
    @CsvSource({
        "full-batch gd,       2, 1", "full-batch gd,       3, 2", "full-batch gd, 1, 3",
        "mini-batch adam,     2, 3", "mini-batch adam,     3, 1",
        "mini-batch momentum, 2, 2", "mini-batch momentum, 1, 3"})
    void resumedRunEndsWithTheBitsOfAnUninterruptedOne(String kind, int savedAt, int resumedAt) {
        boolean mini = kind.startsWith("mini");
        TrainSpec spec = CONFIG.withMethod(OptimizerSpec.Method.parse(kind.split(" ")[1])).withBatches(mini ? 50 : 0, 7);
        TrainingResult reference = Training.local(DATA, spec);
        // Mini-batch runs (12 steps an epoch) fail at step 104 and save every 5 steps: the last
        // checkpoint is in the middle of an epoch. Full-batch runs fail at epoch 17, saving every 4.
        List<TrainingState> saved = checkpointsOfAFailedRun(spec, savedAt, mini ? 104 : 17, mini ? 1 : 4,
            mini ? 5 : 0);
        TrainingState last = saved.get(saved.size() - 1);
        if (mini) {
            assertTrue(last.step() > 0, "the last checkpoint should be inside an epoch: " + last);
        }
        TrainingResult resumed = Training.local(DATA, spec.withNodes(resumedAt),
            TrainingControl.none().resumingFrom(last), null);
        assertArrayEquals(reference.params(), resumed.params());
        assertEquals(Double.doubleToRawLongBits(reference.finalLoss()), Double.doubleToRawLongBits(resumed.finalLoss()));
        assertArrayEquals(reference.history().loss(), resumed.history().loss());
    }

    /**
     * Dropout's masks follow the step counted from the run's start: a network with dropout,
     * stopped mid-epoch on 3 ranks and resumed on 2, ends with the bits of a run that never
     * stopped.
     */
    @org.junit.jupiter.api.Test
    void aResumedRunWithDropoutDropsWhatTheUninterruptedOneDropped() {
        TrainSpec spec = CONFIG.withModel(org.paratrain.train.spec.ModelNames.named("mlp-regression", true, 0,
            "16,dropout:0.3,8,dropout:0.2", "tanh", "")).withMethod(OptimizerSpec.Method.ADAM).withBatches(50, 7);
        TrainingResult reference = Training.local(DATA, spec);
        List<TrainingState> saved = checkpointsOfAFailedRun(spec, 3, 104, 1, 5);
        TrainingState last = saved.get(saved.size() - 1);
        assertTrue(last.step() > 0, "the last checkpoint should be inside an epoch: " + last);
        TrainingResult resumed = Training.local(DATA, spec.withNodes(2), TrainingControl.none().resumingFrom(last), null);
        assertArrayEquals(reference.params(), resumed.params());
        assertArrayEquals(reference.history().loss(), resumed.history().loss());
    }

    @ParameterizedTest
    @CsvSource({"2, 1", "3, 2"})
    void everyCheckpointIsAStateTheUninterruptedRunPassedThrough(int savedAt, int resumedAt) {
        TrainSpec spec = CONFIG.withMethod(OptimizerSpec.Method.ADAM).withBatches(40, 1);
        List<TrainingState> saved = checkpointsOfAFailedRun(spec, savedAt, 200, 2, 0);
        // Resuming from any of them, not only the newest, gives the same end.
        TrainingResult a = Training.local(DATA, spec.withNodes(resumedAt),
            TrainingControl.none().resumingFrom(saved.get(0)), null);
        TrainingResult b = Training.local(DATA, spec.withNodes(resumedAt),
            TrainingControl.none().resumingFrom(saved.get(saved.size() - 1)), null);
        assertArrayEquals(a.params(), b.params());
        assertArrayEquals(a.history().loss(), b.history().loss());
    }
}
