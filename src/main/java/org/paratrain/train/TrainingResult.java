package org.paratrain.train;

/**
 * What a training run produced, as seen by rank 0.
 *
 * @param params         final parameters (weights, then the intercept if any)
 * @param finalLoss      loss at the final parameters (after the last update)
 * @param epochs         epochs run
 * @param nodes          number of ranks
 * @param backend        communicator backend ({@code local}, {@code mpi})
 * @param algorithm      gradient exchange ({@code master-worker}: the paper's)
 * @param blockSize      samples per shard block
 * @param trainSeconds   wall time of the training loop on rank 0, data loading excluded
 * @param computeSeconds time rank 0 spent computing its gradients
 * @param commSeconds    time rank 0 spent exchanging (and updating)
 * @param history        loss and timing of every epoch
 * @param trainAccuracy  fraction of training samples classified right, NaN for regression
 */
public record TrainingResult(double[] params, double finalLoss, int epochs, int nodes, String backend,
                             String algorithm, int blockSize, double trainSeconds, double computeSeconds,
                             double commSeconds, History history, double trainAccuracy) {

    /** A result without an accuracy (regression). */
    public TrainingResult(double[] params, double finalLoss, int epochs, int nodes, String backend, String algorithm,
                          int blockSize, double trainSeconds, double computeSeconds, double commSeconds,
                          History history) {
        this(params, finalLoss, epochs, nodes, backend, algorithm, blockSize, trainSeconds, computeSeconds,
            commSeconds, history, Double.NaN);
    }

    /** This result with its training accuracy. */
    public TrainingResult withAccuracy(double accuracy) {
        return new TrainingResult(params, finalLoss, epochs, nodes, backend, algorithm, blockSize, trainSeconds,
            computeSeconds, commSeconds, history, accuracy);
    }

    /**
     * Per-epoch records, one array entry per epoch.
     *
     * @param loss    loss at the parameters the epoch started from
     * @param seconds wall time since the start of training at the end of the epoch
     * @param compute time computing gradients in the epoch (rank 0)
     * @param comm    time exchanging in the epoch (rank 0)
     */
    public record History(double[] loss, double[] seconds, double[] compute, double[] comm) { }
}
