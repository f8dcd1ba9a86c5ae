package org.paratrain.train;

import org.paratrain.data.BlockSharding;
import org.paratrain.data.HeapBudget;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

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
     * @param run     the batch size (0: full batch) and block size (0: the default)
     */
    public static BlockSharding stepBlocks(int samples, RunSpec run) {
        int step = run.batchSize() == 0 ? samples : run.batchSize();
        return run.blockSize() == 0 ? (run.batchSize() == 0 ? BlockSharding.byDefault(step) : BlockSharding.forBatch(step)) : new BlockSharding(step, run.blockSize());
    }

    /**
     * {@return values in the largest array a rank allocates: the exchange's table (or rank 0's
     * gradients), which must stay below Java's array limit}
     * @param samples samples in the training data
     * @param params  the model's parameters
     * @param run     the batch size and block size
     */
    public static long largestArray(int samples, long params, RunSpec run) {
        long blocks = stepBlocks(samples, run).blocks();
        return blocks * (params + 1);
    }

    /** Bytes the ranks of this JVM need besides the data set. */
    static long bytes(int samples, long params, TrainSpec spec) {
        long table = largestArray(samples, params, spec.run());
        long exchange = spec.exchange().scheme() == ExchangeSpec.Scheme.MASTER_WORKER ? 2 * table
            : spec.nodes() * table;
        int states = switch (spec.optimizer().method()) {
            case ADAM -> 2;
            case MOMENTUM, NESTEROV -> 1;
            case GD -> 0;
        };
        boolean sharded = spec.exchange().scheme() == ExchangeSpec.Scheme.SHARDED;
        long stateValues = sharded ? params * states : spec.nodes() * params * states;   // a slice a rank
        return 8 * (exchange + spec.nodes() * params * 2 + stateValues);
    }

    /**
     * Refuses a run that needs more than the heap can give, saying how much
     * ({@link org.paratrain.data.NotEnoughMemoryException}). Check {@link #largestArray} first.
     *
     * @param samples samples in the training data
     * @param params  the model's parameters
     * @param spec    nodes (ranks of this JVM), batch and block size, exchange and optimiser (whose
     *                state takes memory too)
     * @throws org.paratrain.data.NotEnoughMemoryException if the heap cannot hold what the run needs
     */
    public static void check(int samples, long params, TrainSpec spec) {
        long blocks = stepBlocks(samples, spec.run()).blocks();
        HeapBudget.require(bytes(samples, params, spec), "training on " + spec.nodes() + " rank(s) ("
            + blocks + " blocks x " + params + " parameters in the exchange, weights and optimiser state)");
    }
}
