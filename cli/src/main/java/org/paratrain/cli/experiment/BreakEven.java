package org.paratrain.cli.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.LossReduction;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;

/**
 * Measures, on this machine, from what amount of work per rank two ranks beat one: the
 * paper's model and data generator at growing sample counts, time per epoch at 1 and 2
 * ranks, the best of five runs after a warm-up. The best, not the median: on a shared
 * machine a neighbour's burst slows single runs by up to 2x, and the question is what the
 * machine can do, not how often it is disturbed.
 */
public final class BreakEven {
    /** Sample counts measured by default: 500 (the paper's) to 512,000, by factors of 4. */
    public static final int[] DEFAULT_SAMPLES = {500, 2_000, 8_000, 32_000, 128_000, 512_000};
    private static final int REPEATS = 5;

    private BreakEven() { }

    /**
     * One measured size.
     *
     * @param samples         samples in all
     * @param oneRankUs       best time per epoch at 1 rank, microseconds
     * @param twoRanksUs      best time per epoch at 2 ranks, microseconds
     * @param computePerRankUs compute per epoch on rank 0 at 2 ranks, microseconds
     */
    public record Point(int samples, double oneRankUs, double twoRanksUs, double computePerRankUs) {
        /** One rank's time over two ranks' time. */
        double speedup() {
            return oneRankUs / twoRanksUs;
        }
    }

    /** Runs the measurement; {@code progress} gets the number of sizes done. */
    static List<Point> measure(int[] samples, TrainSpec base, IntConsumer progress) {
        List<Point> points = new ArrayList<>();
        for (int n : samples) {
            Dataset data = new MakeRegression(n, 1, 1, 0.0, 0.0, true).generate(new NumpyRandomState(42)).data();
            int epochs = Math.max(5, Math.min(300, 4_000_000 / n));
            // The mean loss keeps one learning rate stable at every size; the work is the same as the sum's.
            TrainSpec cfg = base.withEpochs(epochs).withLossReduction(LossReduction.MEAN).withLearningRate(0.1);
            double[] one = new double[REPEATS];
            double[] two = new double[REPEATS];
            double[] compute = new double[REPEATS];
            Training.local(data, cfg);
            Training.local(data, cfg.withNodes(2));
            for (int r = 0; r < REPEATS; r++) {
                one[r] = Training.local(data, cfg).trainSeconds() / epochs * 1e6;
                var res = Training.local(data, cfg.withNodes(2));
                two[r] = res.trainSeconds() / epochs * 1e6;
                compute[r] = res.computeSeconds() / epochs * 1e6;
            }
            points.add(new Point(n, min(one), min(two), min(compute)));
            progress.accept(points.size());
        }
        return points;
    }

    private static double min(double[] v) {
        return java.util.Arrays.stream(v).min().orElseThrow();
    }

    /** The smallest measured size from which 2 ranks stay faster than 1, or null if none. */
    static Point firstPaying(List<Point> points) {
        Point first = null;
        for (int i = points.size() - 1; i >= 0; i--) {
            if (points.get(i).speedup() <= 1.0) {
                break;
            }
            first = points.get(i);
        }
        return first;
    }
}
