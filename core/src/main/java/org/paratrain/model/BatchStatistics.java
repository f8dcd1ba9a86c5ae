package org.paratrain.model;

/**
 * Sums a statistic over every block of a training step, whichever ranks hold them: what batch
 * normalisation needs to normalise by the whole batch's mean and variance (PyTorch's
 * {@code SyncBatchNorm}, without its dependence on the world size).
 *
 * <p>Each rank gives the partial sums of the blocks it computes, one row of {@code width}
 * values a block, each taken in a fixed order over the block's samples; the result is the sum
 * of every block's row, added in block order starting from {@code +0.0}. Block boundaries do not
 * depend on the node count, so neither does a bit of the result.
 *
 * <p>Call order: every rank calls {@link #sum} the same number of times in a step with the same
 * width, a rank holding no block with none. A model that needs it says so
 * ({@link Model#statistics}); the trainer then hands it an implementation that crosses ranks.
 */
public interface BatchStatistics {
    /** One rank holding every block: the rows given are all the rows. */
    BatchStatistics ALONE = BatchStatistics::inOrder;

    /**
     * Sums the step's rows.
     *
     * @param rows   this rank's blocks' rows, block after block from index 0; read, not written
     * @param blocks how many rows this rank gives (its blocks, consecutive)
     * @param width  values a row
     * @param out    receives the sum over every block of the step, {@code width} values
     */
    void sum(double[] rows, int blocks, int width, double[] out);

    /**
     * The rows added in order from {@code +0.0}: the reference every implementation matches bit
     * for bit.
     *
     * @param rows   the rows, from index 0
     * @param blocks how many
     * @param width  values a row
     * @param out    receives the sums
     */
    static void inOrder(double[] rows, int blocks, int width, double[] out) {
        java.util.Arrays.fill(out, 0, width, 0.0);
        for (int k = 0; k < blocks; k++) {
            for (int j = 0; j < width; j++) {
                out[j] += rows[k * width + j];
            }
        }
    }
}
