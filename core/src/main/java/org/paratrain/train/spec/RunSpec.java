package org.paratrain.train.spec;

import org.paratrain.train.LossReduction;

/**
 * How long and on how many ranks a run trains, and how its samples are cut: node count,
 * epochs, batch size and the seed of the batch order, the loss reduction and the block size
 * of the shards.
 *
 * @param nodes         the node count, or {@link Nodes.Auto} before the cost model has chosen
 * @param epochs        passes over the training data, in [1, 10,000,000]
 * @param batchSize     samples per step, 0 for full batch
 * @param seed          seed of the batch order and of the initial weights of a network
 * @param lossReduction sum (the paper's) or mean of the per-sample losses
 * @param blockSize     samples per shard block, 0 for the default (32 to 256 blocks)
 * @param rebalance     every how many steps the ranks move their block boundaries to follow the
 *                      speeds they measured, 0 for never (each rank keeps an even share), or
 *                      {@link #REBALANCE_AUTO} for windows of about 0.2 s of steps
 * @param bucketSize    the least parameters a bucket of the gradient sent while the backward pass
 *                      runs (networks, fixed-point sums, an allreduce), 0 for none (the whole
 *                      gradient after backward), or {@link #BUCKET_AUTO}; the bits do not depend on it
 */
public record RunSpec(Nodes nodes, int epochs, int batchSize, long seed, LossReduction lossReduction,
                      int blockSize, int rebalance, int bucketSize) {

    /** The longest window over which ranks measure their speed before the split may move. */
    public static final int MAX_REBALANCE = 100_000;
    /** {@code --rebalance auto}: windows as many steps as take about 0.2 s, measured as the run goes. */
    public static final int REBALANCE_AUTO = -1;

    /** {@code --bucket-size auto}: {@link #DEFAULT_BUCKET} where the exchange can overlap backward. */
    public static final int BUCKET_AUTO = -1;
    /**
     * The least parameters a bucket sent during backward, by default: large enough that a
     * bucket's allreduce is not latency-bound on a link (a 64k-value bucket is 0.5 MB of words,
     * 4 ms at 1 Gbit/s against tens of microseconds of latency), small enough to cut a CNN's
     * dense layers from its convolutions.
     */
    public static final int DEFAULT_BUCKET = 1 << 16;

    /** The most ranks a run may have. */
    public static final int MAX_NODES = 4096;

    /** Checks every setting against its range. */
    public RunSpec {
        SpecException.check(nodes != null, "nodes", "must be a whole number or auto");
        SpecException.check(epochs >= 1 && epochs <= 10_000_000, "epochs", "must be in [1, 10000000], got " + epochs);
        SpecException.check(batchSize >= 0, "batch size", "must be at least 1 (or 0 for full batch), got "
            + batchSize);
        SpecException.check(lossReduction != null, "loss reduction", "must be sum or mean");
        SpecException.check(blockSize >= 0, "block size", "must be at least 1 (or 0 for the default), got "
            + blockSize);
        SpecException.check(rebalance >= REBALANCE_AUTO && rebalance <= MAX_REBALANCE, "rebalance", "must be a number "
            + "of steps in [1, " + MAX_REBALANCE + "] (or 0 for never), or auto, got " + rebalance);
        SpecException.check(bucketSize >= BUCKET_AUTO, "bucket size", "must be a number of parameters of at least 1 "
            + "(or 0 for no overlap), or auto, got " + bucketSize);
    }

    /**
     * A run with the default buckets ({@link #BUCKET_AUTO}).
     *
     * @param nodes         the node count
     * @param epochs        passes over the training data
     * @param batchSize     samples per step, 0 for full batch
     * @param seed          seed of the batch order and of the initial weights
     * @param lossReduction sum or mean of the per-sample losses
     * @param blockSize     samples per shard block, 0 for the default
     * @param rebalance     steps a window of the rebalancer, 0 for never, or {@link #REBALANCE_AUTO}
     */
    public RunSpec(Nodes nodes, int epochs, int batchSize, long seed, LossReduction lossReduction, int blockSize,
                   int rebalance) {
        this(nodes, epochs, batchSize, seed, lossReduction, blockSize, rebalance, BUCKET_AUTO);
    }

    /**
     * A run whose ranks keep an even share of the blocks.
     *
     * @param nodes         the node count, or {@link Nodes.Auto} before the cost model has chosen
     * @param epochs        passes over the training data, in [1, 10,000,000]
     * @param batchSize     samples per step, 0 for full batch
     * @param seed          seed of the batch order and of the initial weights of a network
     * @param lossReduction sum (the paper's) or mean of the per-sample losses
     * @param blockSize     samples per shard block, 0 for the default (32 to 256 blocks)
     */
    public RunSpec(Nodes nodes, int epochs, int batchSize, long seed, LossReduction lossReduction, int blockSize) {
        this(nodes, epochs, batchSize, seed, lossReduction, blockSize, 0);
    }

    /** {@return the paper's run: 1 node, 300 epochs, full batch, summed loss, default blocks} */
    public static RunSpec paper() {
        return new RunSpec(new Nodes.Count(1), 300, 0, 42, LossReduction.SUM, 0);
    }

    /**
     * {@return the number of ranks}
     * @throws IllegalStateException if the count is still {@code auto}
     */
    public int nodeCount() {
        if (nodes instanceof Nodes.Count c) {
            return c.n();
        }
        throw new IllegalStateException("the node count is still auto: resolve it before training");
    }

    /**
     * {@return this run on {@code n} ranks}
     * @param n the node count
     */
    public RunSpec withNodes(int n) {
        return withNodes(new Nodes.Count(n));
    }

    /**
     * {@return this run with this node count}
     * @param n the node count
     */
    public RunSpec withNodes(Nodes n) {
        return new RunSpec(n, epochs, batchSize, seed, lossReduction, blockSize, rebalance, bucketSize);
    }

    /**
     * {@return this run with {@code e} epochs}
     * @param e the new value
     */
    public RunSpec withEpochs(int e) {
        return new RunSpec(nodes, e, batchSize, seed, lossReduction, blockSize, rebalance, bucketSize);
    }

    /**
     * {@return this run with mini-batches of {@code size} samples in an order drawn from {@code s}}
     * @param size samples per batch, 0 for full batch
     * @param s the schedule
     */
    public RunSpec withBatches(int size, long s) {
        return new RunSpec(nodes, epochs, size, s, lossReduction, blockSize, rebalance, bucketSize);
    }

    /**
     * {@return this run with another loss reduction}
     * @param r the new value
     */
    public RunSpec withLossReduction(LossReduction r) {
        return new RunSpec(nodes, epochs, batchSize, seed, r, blockSize, rebalance, bucketSize);
    }

    /**
     * {@return this run with blocks of {@code b} samples (0: the default)}
     * @param b samples per block, 0 for the default
     */
    public RunSpec withBlockSize(int b) {
        return new RunSpec(nodes, epochs, batchSize, seed, lossReduction, b, rebalance, bucketSize);
    }

    /**
     * {@return this run with buckets of at least {@code b} parameters sent during backward (0: none;
     * {@link #BUCKET_AUTO}: the default)}
     * @param b the new value
     */
    public RunSpec withBucketSize(int b) {
        return new RunSpec(nodes, epochs, batchSize, seed, lossReduction, blockSize, rebalance, b);
    }

    /** {@return whether the ranks' block boundaries may move ({@code --rebalance} given, not 0)} */
    public boolean rebalancing() {
        return rebalance != 0;
    }

    /**
     * {@return the {@code --rebalance} value as the command line writes it: steps, or {@code auto}}
     * @param s a whole number of steps (0: never) or {@code auto}
     * @throws SpecException for anything else
     */
    public static int parseRebalance(String s) {
        if (s.strip().equals("auto")) {
            return REBALANCE_AUTO;
        }
        try {
            int n = Integer.parseInt(s.strip());
            SpecException.check(n >= 0, "rebalance", "must be a number of steps in [1, " + MAX_REBALANCE
                + "] (or 0 for never), or auto, got " + n);
            return n;
        } catch (NumberFormatException e) {
            throw new SpecException("rebalance", "must be a number of steps (0 for never) or auto, got '" + s + "'");
        }
    }

    /**
     * {@return this run with block boundaries that move every {@code steps} steps (0: never)}
     * @param steps the window over which ranks measure their speed
     */
    public RunSpec withRebalance(int steps) {
        return new RunSpec(nodes, epochs, batchSize, seed, lossReduction, blockSize, steps, bucketSize);
    }

    /** The node count: a number, or not yet chosen. */
    public sealed interface Nodes {

        /**
         * The node count written as the command line writes it.
         *
         * @param s a whole number or {@code auto}
         * @return the count
         * @throws SpecException for anything else
         */
        static Nodes parse(String s) {
            if (s.strip().equals("auto")) {
                return new Auto();
            }
            try {
                return new Count(Integer.parseInt(s.strip()));
            } catch (NumberFormatException e) {
                throw new SpecException("nodes", "must be a whole number or auto, got '" + s + "'");
            }
        }

        /**
         * A fixed number of ranks.
         *
         * @param n ranks, in [1, {@link #MAX_NODES}]
         */
        record Count(int n) implements Nodes {
            /** Checks the range. */
            public Count {
                SpecException.check(n >= 1 && n <= MAX_NODES, "nodes", "must be in [1, " + MAX_NODES
                    + "] or auto, got " + n);
            }

            @Override
            public String toString() {
                return Integer.toString(n);
            }
        }

        /** The fastest count by the cost model, up to the cores; chosen before training. */
        record Auto() implements Nodes {
            @Override
            public String toString() {
                return "auto";
            }
        }
    }
}
