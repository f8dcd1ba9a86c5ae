package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.data.Dataset;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/** The local sweep's warm-up: a count of rounds, or rounds until a least time has passed. */
class SweepTest {
    private static final Dataset DATA = PaperSetup.data();

    @Test
    void aWarmupCountIsRunAsGivenAndEveryRunIsReported() {
        SweepSpec spec = new SweepSpec(new int[] {1, 2}, 2, 3, PaperSetup.config().withEpochs(5));
        List<Integer> progress = new ArrayList<>();
        List<Sweep.Point> points = Sweep.run(DATA, spec, progress::add);
        assertEquals(List.of(1, 2), points.stream().map(Sweep.Point::nodes).toList());
        for (Sweep.Point p : points) {
            assertEquals(3, p.warmup());
            assertEquals(2, p.runs().size());
        }
        assertEquals(spec.totalRuns(), progress.size());
        assertEquals(spec.totalRuns(), progress.get(progress.size() - 1));
    }

    @Test
    void aWarmupTimeAddsRoundsUntilItHasPassedAndTheTimedRunsAreTheTraining() {
        SweepSpec spec = new SweepSpec(new int[] {1, 2}, 2, 1, 0.3, PaperSetup.config().withEpochs(5));
        List<Integer> progress = new ArrayList<>();
        long start = System.nanoTime();
        List<Sweep.Point> points = Sweep.run(DATA, spec, progress::add);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(seconds >= 0.3, "the sweep took " + seconds + " s");
        int rounds = points.get(0).warmup();
        assertTrue(rounds > 1, "one round of 5 epochs lasts far less than 0.3 s, yet " + rounds + " round(s) ran");
        assertEquals(rounds, points.get(1).warmup());
        // The progress bar counts the runs it announced, no more.
        assertEquals(spec.totalRuns(), progress.size());
        for (Sweep.Point p : points) {
            TrainingResult single = Training.local(DATA, spec.base().withNodes(p.nodes()));
            for (TrainingResult r : p.runs()) {
                assertEquals(Double.doubleToRawLongBits(single.finalLoss()), Double.doubleToRawLongBits(r.finalLoss()));
            }
        }
    }

    @Test
    void aWarmupTimeOutsideZeroToSixtySecondsIsRefused() {
        var config = PaperSetup.config();
        assertThrows(IllegalArgumentException.class, () -> new SweepSpec(new int[] {1}, 1, 0, -1.0, config));
        assertThrows(IllegalArgumentException.class, () -> new SweepSpec(new int[] {1}, 1, 0, Double.NaN, config));
        assertThrows(IllegalArgumentException.class, () -> new SweepSpec(new int[] {1}, 1, 0, 61.0, config));
    }
}
