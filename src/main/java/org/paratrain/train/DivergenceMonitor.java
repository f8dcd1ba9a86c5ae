package org.paratrain.train;

/**
 * Decides when a run has diverged: the loss is NaN or infinite, or it has grown for
 * {@link #PATIENCE} epochs in a row and is above the first epoch's loss.
 *
 * <p>The second condition ignores the last-bit wobble of a converged loss (which never
 * climbs back above the starting loss) and catches the geometric growth of too large a
 * step within a few epochs. Every rank sees the same losses, so all stop together.
 */
final class DivergenceMonitor {
    static final int PATIENCE = 5;
    private final double learningRate;
    private double first = Double.NaN;
    private double previous = Double.NaN;
    private int growing;

    DivergenceMonitor(double learningRate) {
        this.learningRate = learningRate;
    }

    /** Returns a message when the run should stop at this epoch (1-based), else null. */
    String check(int epoch, double loss) {
        if (!Double.isFinite(loss)) {
            return "training diverged at epoch " + epoch + ": the loss is " + loss + "; " + advice();
        }
        if (epoch == 1) {
            first = loss;
        }
        growing = loss > previous ? growing + 1 : 0;
        previous = loss;
        if (growing >= PATIENCE && loss > first) {
            return "training diverged at epoch " + epoch + ": the loss grew for " + growing
                + " epochs in a row, to " + loss + " from " + first + " at epoch 1; " + advice();
        }
        return null;
    }

    private String advice() {
        return "try a smaller learning rate, e.g. --lr " + (learningRate / 10);
    }
}
