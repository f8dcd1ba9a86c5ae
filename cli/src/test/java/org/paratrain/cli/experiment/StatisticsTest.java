package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Against values computed by hand. */
class StatisticsTest {
    @Test
    void meanAndSampleVarianceByHand() {
        // mean 5; squared deviations 9, 1, 1, 1, 0, 0, 4, 16 sum to 32; sample variance 32 / 7
        Statistics s = Statistics.of(new double[] {2, 4, 4, 4, 5, 5, 7, 9});
        assertEquals(8, s.count());
        assertEquals(5.0, s.mean(), 1e-15);
        assertEquals(32.0 / 7, s.variance(), 1e-14);
        assertEquals(Math.sqrt(32.0 / 7), s.stddev(), 1e-14);
    }

    @Test
    void oneValueHasZeroVarianceAndIdenticalValuesKeepTheirBits() {
        assertEquals(0.0, Statistics.of(new double[] {3.5}).variance());
        double w = 64.5917241331557;
        Statistics s = Statistics.of(new double[] {w, w, w, w, w});
        assertEquals(Double.doubleToRawLongBits(w), Double.doubleToRawLongBits(s.mean()));
        assertEquals(0.0, s.variance());
    }

    @Test
    void largeOffsetDoesNotDestroyTheVariance() {
        // 1e9 + {4, 7, 13, 16}: variance 30 exactly; the textbook sum-of-squares formula loses it.
        Statistics s = Statistics.of(new double[] {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16});
        assertEquals(30.0, s.variance(), 1e-6);
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(3.0, Statistics.median(new double[] {5, 1, 3}));
        assertEquals(2.5, Statistics.median(new double[] {4, 1, 3, 2}));
        assertThrows(IllegalArgumentException.class, () -> Statistics.of(new double[0]));
    }
}
