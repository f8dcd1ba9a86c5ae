package org.paratrain.train;

/**
 * How to train: validated on construction, so a bad value stops before any work starts,
 * with a message that names the command-line option and the allowed range.
 *
 * @param nodes         number of ranks, 1..4096
 * @param epochs        full passes over the data, 1..10,000,000
 * @param learningRate  gradient-descent step size, positive and finite
 * @param intercept     whether the model learns a bias term
 * @param lossReduction sum (the paper's) or mean of per-sample losses
 * @param blockSize     samples per shard block, or 0 for the default (32 to 256 blocks);
 *                      results are identical at any node count for one block size
 * @param exchange      how gradients are combined: {@code master-worker} (the paper's), an
 *                      allreduce algorithm ({@code star}, {@code tree}, {@code recursive-doubling},
 *                      {@code ring}, {@code rabenseifner}, {@code native}) or {@code auto}
 */
public record TrainConfig(int nodes, int epochs, double learningRate, boolean intercept,
                          LossReduction lossReduction, int blockSize, String exchange) {

    /** The paper's exchange: gather to rank 0, update there, send the weights back. */
    public static final String MASTER_WORKER = "master-worker";

    /**
     * The settings with the paper's exchange (master-worker).
     *
     * @param nodes         number of ranks
     * @param epochs        full passes over the data
     * @param learningRate  step size
     * @param intercept     whether a bias is learnt
     * @param lossReduction sum or mean of the per-sample losses
     * @param blockSize     samples per shard block, 0 for the default
     */
    public TrainConfig(int nodes, int epochs, double learningRate, boolean intercept, LossReduction lossReduction,
                       int blockSize) {
        this(nodes, epochs, learningRate, intercept, lossReduction, blockSize, MASTER_WORKER);
    }

    /** Largest number of ranks accepted. */
    public static final int MAX_NODES = 4096;

    /** Checks every field. */
    public TrainConfig {
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("--nodes must be in [1, " + MAX_NODES + "], got " + nodes);
        }
        if (epochs < 1 || epochs > 10_000_000) {
            throw new IllegalArgumentException("--epochs must be in [1, 10000000], got " + epochs);
        }
        if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
            throw new IllegalArgumentException("--lr must be a positive finite number, got " + learningRate);
        }
        if (lossReduction == null) {
            throw new IllegalArgumentException("--loss-reduction must be sum or mean");
        }
        if (exchange == null) {
            exchange = MASTER_WORKER;
        }
        if (!exchange.equals(MASTER_WORKER) && !exchange.equals("auto")) {
            org.paratrain.collective.Allreduces.create(exchange);   // names the allowed values if unknown
        }
        if (blockSize < 0) {
            throw new IllegalArgumentException("--block-size must be at least 1 (or 0 for the default), got "
                + blockSize);
        }
    }

    /**
     * The paper's settings.
     *
     * @return 1 node, 300 epochs, lr 1e-4, no intercept, summed loss, master-worker
     */
    public static TrainConfig paper() {
        return new TrainConfig(1, 300, 1e-4, false, LossReduction.SUM, 0, MASTER_WORKER);
    }

    /** This configuration with another node count. */
    public TrainConfig withNodes(int n) {
        return new TrainConfig(n, epochs, learningRate, intercept, lossReduction, blockSize, exchange);
    }

    /** This configuration with another number of epochs. */
    public TrainConfig withEpochs(int e) {
        return new TrainConfig(nodes, e, learningRate, intercept, lossReduction, blockSize, exchange);
    }

    /** This configuration with another learning rate. */
    public TrainConfig withLearningRate(double lr) {
        return new TrainConfig(nodes, epochs, lr, intercept, lossReduction, blockSize, exchange);
    }

    /** This configuration with or without an intercept. */
    public TrainConfig withIntercept(boolean b) {
        return new TrainConfig(nodes, epochs, learningRate, b, lossReduction, blockSize, exchange);
    }

    /** This configuration with another loss reduction. */
    public TrainConfig withLossReduction(LossReduction r) {
        return new TrainConfig(nodes, epochs, learningRate, intercept, r, blockSize, exchange);
    }

    /** This configuration with another way of combining gradients. */
    public TrainConfig withExchange(String e) {
        return new TrainConfig(nodes, epochs, learningRate, intercept, lossReduction, blockSize, e);
    }

    /** This configuration with another block size (0 for the default). */
    public TrainConfig withBlockSize(int b) {
        return new TrainConfig(nodes, epochs, learningRate, intercept, lossReduction, b, exchange);
    }
}
