package org.paratrain.train;

/** Whether a finished run diverged, for callers that must not keep or write its result. */
public final class Divergence {
    private Divergence() { }

    /**
     * Throws {@link DivergenceException} if the final loss is not finite or far above the first
     * epoch's: the weights are garbage, though the run ended before the per-epoch checks could
     * stop it (fewer epochs than their patience, or a blow-up in the last epochs).
     *
     * @param r            the finished run's result
     * @param learningRate the run's learning rate, for the suggested smaller one in the message
     * @throws DivergenceException if the run diverged
     */
    public static void checkFinal(TrainingResult r, double learningRate) {
        double[] loss = r.history().loss();
        String diverged = DivergenceMonitor.finalCheck(loss.length == 0 ? Double.NaN : loss[0], r.finalLoss(),
            learningRate);
        if (diverged != null) {
            throw new DivergenceException(diverged);
        }
    }
}
