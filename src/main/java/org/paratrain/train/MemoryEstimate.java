package org.paratrain.train;

import org.paratrain.data.BlockSharding;
import org.paratrain.data.HeapBudget;

/**
 * The memory a local run needs beyond its data, known before it starts: the exchange's
 * per-block gradients (master-worker keeps every block's on rank 0 and each rank its own;
 * an allreduce keeps the whole table of blocks x (parameters + 1) on every rank) and, on
 * every rank, the weights and the optimiser's state. These grow with blocks x parameters,
 * which for a large network is far more than the network itself; models' scratch space
 * is small beside them and left out, so this is a lower bound.
 */
public final class MemoryEstimate {
    private MemoryEstimate() { }

    /**
     * {@return the blocks of one step: those of the whole data set at full batch, of a batch otherwise}
     * @param samples samples in the training data
     * @param config  the block size (0: the default)
     * @param recipe  the batch size (0: full batch)
     */
    public static BlockSharding stepBlocks(int samples, TrainConfig config, Recipe recipe) {
        int step = recipe.batchSize() == 0 ? samples : recipe.batchSize();
        return config.blockSize() == 0 ? BlockSharding.byDefault(step) : new BlockSharding(step, config.blockSize());
    }

    /**
     * {@return values in the largest array a rank allocates: the exchange's table (or rank 0's
     * gradients), which must stay below Java's array limit}
     * @param samples samples in the training data
     * @param params  the model's parameters
     * @param config  the block size
     * @param recipe  the batch size
     */
    public static long largestArray(int samples, long params, TrainConfig config, Recipe recipe) {
        long blocks = stepBlocks(samples, config, recipe).blocks();
        return blocks * (params + 1);
    }

    /** Bytes the ranks of this JVM need besides the data set. */
    static long bytes(int samples, long params, TrainConfig config, Recipe recipe) {
        long table = largestArray(samples, params, config, recipe);
        long exchange = config.exchange().equals(TrainConfig.MASTER_WORKER) ? 2 * table : config.nodes() * table;
        int states = switch (recipe.optimizer()) {
            case "adam" -> 2;
            case "momentum", "nesterov" -> 1;
            default -> 0;
        };
        return 8 * (exchange + config.nodes() * params * (2 + states));
    }

    /**
     * Refuses a run that needs more than the heap can give, saying how much
     * ({@link org.paratrain.data.NotEnoughMemoryException}). Check {@link #largestArray} first.
     *
     * @param samples samples in the training data
     * @param params  the model's parameters
     * @param config  nodes (ranks of this JVM), block size and exchange
     * @param recipe  batch size and optimiser (whose state takes memory too)
     * @throws org.paratrain.data.NotEnoughMemoryException if the heap cannot hold what the run needs
     */
    public static void check(int samples, long params, TrainConfig config, Recipe recipe) {
        long blocks = stepBlocks(samples, config, recipe).blocks();
        HeapBudget.require(bytes(samples, params, config, recipe), "training on " + config.nodes() + " rank(s) ("
            + blocks + " blocks x " + params + " parameters in the exchange, weights and optimiser state)");
    }
}
