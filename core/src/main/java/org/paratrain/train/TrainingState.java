package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.optim.OptimizerState;

/**
 * Everything a run needs to continue exactly where it stopped: the parameters and the
 * optimiser's state as raw bits, the position (epochs done and, within the next epoch, steps
 * done), and the history so far. The loss history also rebuilds the divergence check's
 * state, and the mini-batch order of an epoch is drawn from the seed and the epoch, so
 * nothing else is needed: a run resumed from this state, at any node count, ends with the
 * bits of one that never stopped.
 *
 * @param epoch     epochs completed
 * @param step      steps completed within epoch {@code epoch} (0 at an epoch's end)
 * @param params    parameters after those steps
 * @param optimizer the optimiser's state after those steps
 * @param history   one entry per completed epoch, plus the partial sums of the epoch under
 *                  way when {@code step > 0}
 * @param best      with early stopping, the parameters of the best validation so far (empty
 *                  before the first validation, or without early stopping)
 * @param sumGrids  the fixed-point sum's grid exponents carried into the next step, per segment
 *                  ({@code FixedSum.carried}; {@link Integer#MIN_VALUE} where none is yet): empty
 *                  for other sums, and in checkpoints written before they were kept
 */
public record TrainingState(int epoch, int step, double[] params, OptimizerState optimizer,
                            TrainingResult.History history, double[] best, int[] sumGrids) {

    /**
     * A state without carried grids (a sum that carries none).
     *
     * @param epoch     epochs completed
     * @param step      steps completed within the next epoch (0 at an epoch's end)
     * @param params    parameters after those steps
     * @param optimizer the optimiser's state after those steps
     * @param history   one entry per completed epoch, plus the epoch under way when {@code step > 0}
     * @param best      the best parameters so far (empty when none)
     */
    public TrainingState(int epoch, int step, double[] params, OptimizerState optimizer,
                         TrainingResult.History history, double[] best) {
        this(epoch, step, params, optimizer, history, best, new int[0]);
    }

    /**
     * A state without early stopping.
     *
     * @param epoch     epochs completed
     * @param step      steps completed within the next epoch (0 at an epoch's end)
     * @param params    parameters after those steps
     * @param optimizer the optimiser's state after those steps
     * @param history   one entry per completed epoch, plus the epoch under way when {@code step > 0}
     */
    public TrainingState(int epoch, int step, double[] params, OptimizerState optimizer,
                         TrainingResult.History history) {
        this(epoch, step, params, optimizer, history, new double[0]);
    }

    /** Checks that the history matches the position, and keeps copies. */
    public TrainingState {
        if (epoch < 0 || step < 0) {
            throw new IllegalArgumentException("training state: epoch and step must be at least 0, got " + epoch
                + " and " + step);
        }
        int entries = epoch + (step > 0 ? 1 : 0);
        if (history.arrays().stream().anyMatch(a -> a.length != entries)) {
            throw new IllegalArgumentException("training state at epoch " + epoch + ", step " + step + " needs "
                + entries + " history entries, got " + history.loss().length);
        }
        params = params.clone();
        history = history.first(entries);
        best = best.clone();
        sumGrids = sumGrids.clone();
    }

    /** {@return the parameters, a copy} */
    @Override
    public double[] params() {
        return params.clone();
    }

    /** {@return the best parameters so far, a copy (empty when none)} */
    @Override
    public double[] best() {
        return best.clone();
    }

    /** {@return the grid exponents carried, a copy} */
    @Override
    public int[] sumGrids() {
        return sumGrids.clone();
    }

    /** Updates applied so far: the optimiser's count. */
    long updates() {
        return optimizer.steps();
    }


    @Override
    public boolean equals(Object o) {
        return o instanceof TrainingState s && epoch == s.epoch && step == s.step && Arrays.equals(params, s.params)
            && optimizer.equals(s.optimizer) && Arrays.equals(best, s.best) && Arrays.equals(sumGrids, s.sumGrids)
            && Arrays.equals(history.loss(), s.history.loss()) && Arrays.equals(history.valLoss(), s.history.valLoss());
    }

    @Override
    public int hashCode() {
        return epoch * 31 + step;
    }

    @Override
    public String toString() {
        return step == 0 ? "epoch " + epoch : "epoch " + epoch + ", step " + step;
    }
}
