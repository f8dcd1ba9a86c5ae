package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.optim.Optimizer;
import org.paratrain.optim.OptimizerState;

/**
 * {@link ExchangeClock}: the exchange without waits is, step by step, the least over the ranks,
 * which the least of the totals is not when the rank that arrives last changes; the update, timed
 * apart, is taken out of it; the median step is one of those least figures; and ranks that did not
 * count the same steps get no figure.
 */
class ExchangeClockTest {

    /** Two ranks taking turns to wait: rank 0 waits 5 ms in odd steps, rank 1 in even ones. */
    @Test
    void theLeastIsTakenStepByStep() {
        List<double[]> r = LocalCluster.run(2, comm -> {
            ExchangeClock clock = new ExchangeClock();
            for (int s = 0; s < 10; s++) {
                boolean waits = s % 2 == comm.rank();
                clock.endStep(waits ? 0.005 + 0.001 * s : 0.001 * (s + 1));
            }
            return clock.leastOverRanks(comm);
        });
        // Step s: the least is the rank that did not wait, 0.001 (s + 1), or 0.005 + 0.001 s if less.
        double expected = 0;
        for (int s = 0; s < 10; s++) {
            expected += Math.min(0.005 + 0.001 * s, 0.001 * (s + 1));
        }
        // The median step: each step's least is the rank that did not wait, 1 to 10 ms; the middle two, 5 and 6.
        for (double[] x : r) {
            assertEquals(expected, x[0], 1e-15);
            assertEquals(10, x[1]);
            assertEquals(0.0055, x[2], 1e-15, "the median step");
        }
        // The least of the totals holds the waits of half the steps.
        double[] totals = new double[2];
        for (int s = 0; s < 10; s++) {
            totals[s % 2] += 0.005 + 0.001 * s;
            totals[1 - s % 2] += 0.001 * (s + 1);
        }
        assertTrue(expected < 0.75 * Math.min(totals[0], totals[1]), expected + " against " + totals[0] + ", "
            + totals[1]);
    }

    @Test
    void onlyTheLastWindowOfStepsCountsAndTheUpdateIsTakenOut() {
        List<double[]> r = LocalCluster.run(3, comm -> {
            ExchangeClock clock = new ExchangeClock();
            Optimizer slow = clock.timed(new Sleeper(comm.rank() == 2 ? 3 : 0));
            int steps = ExchangeClock.WINDOW + 7;
            for (int s = 0; s < steps; s++) {
                // Rank 2's update sleeps 3 ms in the last step, and its exchange is that update and 1 us more;
                // every rank's last exchange holds its update (on a busy machine even a sleep of 0 can take 1 ms).
                double exchange = 1e-3 * (1 + comm.rank());
                if (s == steps - 1) {
                    long t = System.nanoTime();
                    slow.step(new double[1], new double[1]);
                    exchange = (System.nanoTime() - t) * 1e-9 + (comm.rank() == 2 ? 1e-6 : exchange);
                }
                clock.endStep(exchange);
            }
            double[] x = clock.leastOverRanks(comm);
            return new double[] {x[0], x[1], clock.updateSeconds()};
        });
        for (double[] x : r) {
            assertEquals(ExchangeClock.WINDOW, x[1]);
        }
        // Every step's least is rank 0's 1 ms, but the last: rank 2's, 1 us once its update is out.
        double last = r.get(0)[0] - (ExchangeClock.WINDOW - 1) * 1e-3;
        assertTrue(last > 0 && last < 1e-3, "the last step's least: " + last);
        assertTrue(r.get(2)[2] >= 0.003, "rank 2's update: " + r.get(2)[2]);
        assertTrue(r.get(0)[2] < 0.003, "rank 0's update does not sleep: " + r.get(0)[2]);
    }

    @Test
    void ranksThatCountedDifferentStepsGetNoFigure() {
        List<double[]> r = LocalCluster.run(2, comm -> {
            ExchangeClock clock = new ExchangeClock();
            for (int s = 0; s < 3 + comm.rank(); s++) {
                clock.endStep(1e-3);
            }
            return clock.leastOverRanks(comm);
        });
        for (double[] x : r) {
            assertTrue(Double.isNaN(x[0]), "no figure: " + x[0]);
        }
    }

    /** An optimizer whose update sleeps. */
    private record Sleeper(int millis) implements Optimizer {
        @Override
        public void step(double[] params, double[] grad, int from, int to) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String name() {
            return "sleeper";
        }

        @Override
        public double learningRate() {
            return 0;
        }

        @Override
        public void scaleLearningRate(double factor) {
        }

        @Override
        public OptimizerState state() {
            return null;
        }

        @Override
        public void restore(OptimizerState state) {
        }
    }
}
