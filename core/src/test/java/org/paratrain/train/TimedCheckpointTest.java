package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.comm.RankFailedException;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * Checkpoints by time: rank 0 alone decides from its clock, and since every rank holds the
 * same state, a checkpoint so taken resumes, at another node count, to the bits of a run that
 * never stopped (a 1-rank run). An interval longer than the run saves nothing (a failure
 * loses less than the interval); a sharded optimizer, whose state every rank would have to gather at once, is refused.
 */
class TimedCheckpointTest {
    private static final TrainSpec SPEC = ResumeTest.CONFIG.withMethod(OptimizerSpec.Method.ADAM).withBatches(50, 7);

    private static List<TrainingState> saved(TrainSpec spec, int nodes, double seconds, FailureInjection failure) {
        List<TrainingState> saved = new ArrayList<>();
        TrainingControl control = new TrainingControl(null, new TrainingControl.Checkpoints(0, 0, seconds, saved::add),
            null, null);
        if (failure == null) {
            Training.local(ResumeTest.DATA, spec.withNodes(nodes), control, null);
        } else {
            assertThrows(RankFailedException.class, () -> Training.local(ResumeTest.DATA, spec.withNodes(nodes),
                control, failure));
        }
        return saved;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aTimedCheckpointResumesToTheBitsOfOneRank(int nodes) {
        TrainingResult reference = Training.local(ResumeTest.DATA, SPEC);
        // An interval of a nanosecond is past at every epoch's end: a save each epoch, by the clock.
        List<TrainingState> saved = saved(SPEC, nodes, 1e-9, new FailureInjection(nodes - 1, 200, false));
        assertTrue(saved.size() >= 10, "saved by time at each epoch end before the failure: " + saved.size());
        for (int i = 0; i < saved.size(); i++) {
            assertEquals(i + 1, saved.get(i).epoch(), "one save an epoch, in order");
        }
        TrainingResult resumed = Training.local(ResumeTest.DATA, SPEC.withNodes(1),
            TrainingControl.none().resumingFrom(saved.get(saved.size() - 1)), null);
        assertArrayEquals(reference.params(), resumed.params());
        assertArrayEquals(reference.history().loss(), resumed.history().loss());
    }

    @Test
    void anIntervalLongerThanTheRunSavesNothing() {
        assertEquals(List.of(), saved(SPEC, 2, 3600, null));
    }

    @Test
    void aShardedOptimizerIsNotSavedByTime() {
        TrainSpec sharded = SPEC.withExchange(ExchangeSpec.parse("ring", Sum.DEFAULT_FIXED).sharded());
        RankFailedException e = assertThrows(RankFailedException.class, () -> saved(sharded, 2, 1e-9, null));
        assertTrue(String.valueOf(e.getMessage()).contains("cannot gather a sharded optimizer's state"),
            e.getMessage());
    }
}
