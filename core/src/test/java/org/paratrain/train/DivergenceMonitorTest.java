package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DivergenceMonitorTest {
    /** The epoch at which the monitor stops a run with these losses, or 0 if it lets it finish. */
    static int stopsAt(double... losses) {
        DivergenceMonitor m = new DivergenceMonitor(0.1);
        for (int e = 0; e < losses.length; e++) {
            if (m.check(e + 1, losses[e]) != null) {
                return e + 1;
            }
        }
        return 0;
    }

    @Test
    void aLossThatJumpsUpAndOscillatesThereIsCaught() {
        // Adam at lr 1e6 on a small problem: up by orders of magnitude at once, then up and down.
        int at = stopsAt(1e4, 1.7e12, 1.1e11, 3.7e11, 1.0e12, 7.8e11, 2.3e11, 3.2e8, 2.0e11);
        assertTrue(at > 0 && at <= 6, "stopped at " + at);
        String message = new DivergenceMonitor(0.1).check(1, Double.NaN);
        assertNotNull(message);
    }

    @Test
    void aLossStuckAboveItsStartIsCaught() {
        double[] losses = new double[30];
        losses[0] = 100;
        for (int e = 1; e < losses.length; e++) {
            losses[e] = e % 2 == 0 ? 150 : 120;       // never growing 5 in a row, never 10x
        }
        assertTrue(stopsAt(losses) == DivergenceMonitor.STUCK_ABOVE + 1, "stopped at " + stopsAt(losses));
    }

    @Test
    void healthyRunsAreLeftAlone() {
        double[] converging = new double[200];
        for (int e = 0; e < converging.length; e++) {
            converging[e] = 1 + 100 * Math.exp(-e / 10.0) + (e % 2 == 0 ? 1e-9 : 0);   // with last-bit wobble
        }
        assertTrue(stopsAt(converging) == 0);
        // A spike above the start for a few epochs (momentum overshoot, warm-up) is no divergence.
        assertTrue(stopsAt(10, 30, 60, 25, 9, 5, 4, 3, 2, 1) == 0);
        // A perfect start cannot improve: staying at or near 0 is not divergence.
        double[] zero = new double[50];
        for (int e = 1; e < zero.length; e++) {
            zero[e] = e % 3 == 0 ? 1e-30 : 0;
        }
        assertTrue(stopsAt(zero) == 0);
    }

    @Test
    void aRunThatEndsFarAboveItsStartIsCaughtAtTheEnd() {
        assertNotNull(DivergenceMonitor.finalCheck(100, 1e6, 0.1));
        assertNotNull(DivergenceMonitor.finalCheck(100, Double.POSITIVE_INFINITY, 0.1));
        assertNull(DivergenceMonitor.finalCheck(100, 120, 0.1));
        assertNull(DivergenceMonitor.finalCheck(0, 1e-20, 0.1));
    }

    @Test
    void growthIsStillCaught() {
        assertTrue(stopsAt(1, 2, 4, 8, 16, 32, 64) == 6);
        assertNull(new DivergenceMonitor(1).check(1, 5.0));
    }
}
