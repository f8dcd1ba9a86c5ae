package org.paratrain.cli;

import java.util.List;
import org.paratrain.data.Dataset;
import org.paratrain.cli.experiment.Calibration;
import org.paratrain.cli.experiment.Plan;
import org.paratrain.train.EpochModel;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The plan's prediction checked against a run: the planned workload (normal draws of its
 * shape) trained on this machine's local ranks at 1 rank and at 2 with the exchange the plan
 * chose there, best of three after a warm-up, as {@code paper}'s break-even measurement does.
 * What the cost model leaves out (waking a waiting rank, one core slower than the other, a
 * neighbour's load) shows up here as the model's error, next to the prediction it qualifies.
 */
final class PlanCheck {
    /** Values above this are not run: the synthetic stand-in would be a prefix, not the workload. */
    static final long MAX_VALUES = 20_000_000L;
    private static final long WARM_UP_NANOS = 300_000_000L;

    private PlanCheck() { }

    /**
     * Measured and predicted seconds per epoch at 1 and 2 ranks; {@code skipped} says why not, if not run.
     *
     * @param exchange   the exchange run at 2 ranks
     * @param oneMeasured  seconds per epoch measured at 1 rank
     * @param onePredicted seconds per epoch predicted at 1 rank
     * @param twoMeasured  seconds per epoch measured at 2 ranks
     * @param twoPredicted seconds per epoch predicted at 2 ranks
     * @param skipped    why no run was made, or null
     */
    record Result(ExchangeSpec exchange, double oneMeasured, double onePredicted, double twoMeasured,
                  double twoPredicted, String skipped) {
        static Result skipped(String why) {
            return new Result(null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, why);
        }
    }

    private static double perEpoch(org.paratrain.train.TrainingResult r) {
        return r.trainSeconds() / r.epochs();
    }

    static Result run(int samples, int features, boolean intercept, int blockSize, List<Plan.Row> rows,
                      EpochModel model) {
        if (rows.size() < 2) {
            return Result.skipped("the plan has no 2-rank row (--nodes-max 1)");
        }
        if ((long) samples * features > MAX_VALUES) {
            return Result.skipped(String.format(java.util.Locale.ROOT, "%,d values are more than the %,d a check "
                + "runs; train --nodes 2 on the data measures it", (long) samples * features, MAX_VALUES));
        }
        Dataset data = Calibration.synthetic(samples, features);
        int epochs = (int) Math.max(5, Math.min(300, 4_000_000L / ((long) samples * features)));
        TrainSpec base = TrainSpec.paper().withModel(new ModelSpec.Linear(intercept)).withEpochs(epochs)
            .withLossReduction(LossReduction.MEAN).withLearningRate(Calibration.stableRate(data, intercept))
            .withBlockSize(blockSize).withExchange(ExchangeSpec.MASTER_WORKER);
        Plan.Row two = rows.get(1);
        TrainSpec atTwo = base.withNodes(2).withExchange(two.best());
        long warmUntil = System.nanoTime() + WARM_UP_NANOS;
        for (int w = 0; w < 2 || System.nanoTime() - warmUntil < 0; w++) {
            Training.local(data, base);
            Training.local(data, atTwo);
        }
        double m1 = Double.MAX_VALUE;
        double m2 = Double.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            m1 = Math.min(m1, perEpoch(Training.local(data, base)));
            m2 = Math.min(m2, perEpoch(Training.local(data, atTwo)));
        }
        double p1 = model.epochSeconds(ExchangeSpec.MASTER_WORKER, 1, Plan.sharding(samples, blockSize),
            features + (intercept ? 1 : 0));
        return new Result(two.best(), m1, p1, m2, two.bestSeconds(), null);
    }
}
