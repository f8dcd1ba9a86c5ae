package org.paratrain.train;

import org.paratrain.comm.Communicator;

/**
 * Validation during training and the decision to stop early, agreed by every rank.
 *
 * <p>Rank 0 alone measures the parameters on the validation data (every rank holds the same
 * parameters after an update) and decides: improved, go on, or stop. It sends the decision
 * to every other rank, so all keep the same best parameters and leave the loop at the same
 * epoch. The counters (best loss, validations since) are rebuilt from the validation history
 * of a resumed run; only the best parameters need saving, and checkpoints do.
 *
 * <p>Call order: {@link #resume} once if resuming, then {@link #due} and {@link #validate}
 * after each epoch, then {@link #finish} when the loop ends.
 */
final class EarlyStopping {
    /** The tag of the decision message; collectives use 32001..32006. */
    static final int TAG = 32010;
    private static final double IMPROVED = 1;
    private static final double STOP = 2;
    private final TrainingControl.Validation validation;
    private final Communicator comm;
    private final int epochs;
    private final double[] message = new double[2];
    /** Whose learning rate a plateau lowers, or null without one. */
    private final org.paratrain.optim.Optimizer optimizer;
    /** The learning rate's factor so far, and the validations since the last best or reduction. */
    private double factor = 1.0;
    private int plateauSince;
    private double[] best;
    private double bestLoss = Double.POSITIVE_INFINITY;
    private int since;

    EarlyStopping(TrainingControl.Validation validation, Communicator comm, int epochs,
                  org.paratrain.optim.Optimizer optimizer) {
        this.validation = validation;
        this.comm = comm;
        this.epochs = epochs;
        this.optimizer = validation.plateau() == null ? null : optimizer;
    }

    /** Takes up the counters from {@code history}'s first {@code epochs} entries and the saved best parameters. */
    void resume(TrainingResult.History history, int epochsDone, double[] savedBest) {
        for (int e = 0; e < epochsDone; e++) {
            double v = history.valLoss()[e];
            if (!Double.isNaN(v)) {
                plateau(note(v));
            }
        }
        best = savedBest.length == 0 ? null : savedBest.clone();
        if (optimizer != null) {
            optimizer.scaleLearningRate(factor);
        }
    }

    /** Whether epoch {@code epoch} (1-based) ends with a validation. */
    boolean due(int epoch) {
        return epoch % validation.every() == 0 || epoch == epochs;
    }

    /**
     * Validates after epoch {@code epoch} (1-based): rank 0 measures and records into
     * {@code history}, every rank learns the decision; returns true when the run should stop.
     */
    boolean validate(int epoch, double[] weights, TrainingResult.History history) {
        if (comm.rank() == 0) {
            double[] m = validation.validator().apply(weights);
            history.valLoss()[epoch - 1] = m[0];
            history.valAccuracy()[epoch - 1] = m[1];
            boolean improved = note(m[0]);
            message[0] = improved ? IMPROVED : validation.patience() > 0 && since >= validation.patience() ? STOP : 0;
            message[1] = plateau(improved);
            for (int r = 1; r < comm.size(); r++) {
                comm.send(message, 0, 2, r, TAG);
            }
        } else {
            comm.recv(message, 0, 2, 0, TAG);
        }
        if (optimizer != null) {
            optimizer.scaleLearningRate(message[1]);
        }
        if (message[0] == IMPROVED && validation.patience() > 0) {
            best = weights.clone();
        }
        return message[0] == STOP;
    }

    /** With early stopping, puts the best parameters into {@code weights}. */
    void finish(double[] weights) {
        if (validation.patience() > 0 && best != null) {
            System.arraycopy(best, 0, weights, 0, weights.length);
        }
    }

    /** The best parameters so far, for a checkpoint (empty when none are kept). */
    double[] best() {
        return best == null ? new double[0] : best;
    }

    /** Counts a validation towards the plateau; returns the learning rate's factor after it. */
    private double plateau(boolean improved) {
        TrainingControl.Plateau p = validation.plateau();
        if (p == null) {
            return 1.0;
        }
        plateauSince = improved ? 0 : plateauSince + 1;
        if (plateauSince >= p.patience()) {
            factor *= p.factor();
            plateauSince = 0;
        }
        return factor;
    }

    /** Counts a validation loss; true if it is the best so far. */
    private boolean note(double loss) {
        if (loss < bestLoss) {
            bestLoss = loss;
            since = 0;
            return true;
        }
        since++;
        return false;
    }
}
