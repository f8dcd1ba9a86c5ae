package org.paratrain.train;

/**
 * Decides when a run has diverged: the loss is NaN or infinite; or it has grown for
 * {@link #PATIENCE} epochs in a row and is above the first epoch's loss; or it has stayed
 * far above the first epoch's loss, growing or not.
 *
 * <p>The second condition ignores the last-bit wobble of a converged loss (which never
 * climbs back above the starting loss) and catches the geometric growth of too large a
 * step within a few epochs. It misses a step so large that the loss jumps up at once and
 * then oscillates at that height (Adam at a learning rate of 1e6 lands its weights near
 * +-lr whatever the gradient, so the loss goes up by orders of magnitude in one epoch and then
 * goes up and down). The third condition catches that: a run whose loss stays above
 * {@link #FAR} times where it started for {@link #PATIENCE} epochs, or above where it
 * started at all for {@link #STUCK_ABOVE} epochs, is not training. A healthy run can spike
 * above its start for an epoch or two (warm-up, momentum overshoot), not for that long.
 * Every rank sees the same losses, so all stop together.
 */
final class DivergenceMonitor {
    static final int PATIENCE = 5;
    /** How many times the first loss counts as far above it. */
    static final double FAR = 10;
    /** Epochs in a row above the first loss, by any amount, that count as not training. */
    static final int STUCK_ABOVE = 20;
    private final double learningRate;
    private double first = Double.NaN;
    private double previous = Double.NaN;
    private int growing;
    private int farAbove;
    private int above;
    private double low = Double.POSITIVE_INFINITY;
    private double high = Double.NEGATIVE_INFINITY;

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
        return stuckAbove(epoch, loss);
    }

    /** The third condition: the loss has stayed above where it started, growing or not. */
    private String stuckAbove(int epoch, double loss) {
        // A first loss of 0 cannot be improved on; the growth test above covers that run.
        above = loss > first && first > 0 ? above + 1 : 0;
        farAbove = loss > FAR * first && first > 0 ? farAbove + 1 : 0;
        if (above == 0) {
            low = Double.POSITIVE_INFINITY;
            high = Double.NEGATIVE_INFINITY;
            return null;
        }
        low = Math.min(low, loss);
        high = Math.max(high, loss);
        if (farAbove < PATIENCE && above < STUCK_ABOVE) {
            return null;
        }
        String how = farAbove >= PATIENCE ? "more than " + (int) FAR + " times its value at epoch 1 (" + first
            + ") for " + farAbove : "above its value at epoch 1 (" + first + ") for " + above;
        return "training diverged at epoch " + epoch + ": the loss stayed " + how + " epochs in a row (between "
            + low + " and " + high + "); " + advice();
    }

    private String advice() {
        return advice(learningRate);
    }

    private static String advice(double learningRate) {
        return "try a smaller learning rate, e.g. --lr " + (learningRate / 10);
    }

    /**
     * The check of a finished run: a run shorter than {@link #PATIENCE} epochs, or one that blew
     * up in its last epochs, ends before the checks above can see it. Its final loss (at the
     * final weights) far above the first epoch's means the weights are garbage; null if not.
     */
    static String finalCheck(double first, double last, double learningRate) {
        if (Double.isFinite(last) && !(first > 0 && last > FAR * first)) {
            return null;
        }
        return "training diverged: the loss at the final weights, " + last + ", is more than " + (int) FAR
            + " times the loss of epoch 1 (" + first + "); " + advice(learningRate);
    }
}
