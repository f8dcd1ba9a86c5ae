package org.paratrain.data;

/**
 * Splits samples into fixed blocks and gives each rank a contiguous run of whole blocks.
 *
 * <p>Block boundaries depend on the number of samples and the block size only, never on
 * the number of ranks. Gradients are summed per block and the block sums are added in
 * block order, so the arithmetic, and with it every bit of the result, is the same at any
 * node count. Ranks get {@code floor} or {@code ceil} of {@code blocks / ranks} blocks;
 * with more ranks than blocks some ranks get none and only take part in communication.
 *
 * @param samples   number of samples, at least 1
 * @param blockSize samples per block (the last block may be shorter), at least 1
 */
public record BlockSharding(int samples, int blockSize) {

    /** The most blocks the default cuts a data set into. */
    public static final int MAX_DEFAULT_BLOCKS = 256;
    /** The default aims at this many blocks at least, so that 32 ranks all get work. */
    public static final int MIN_DEFAULT_BLOCKS = 32;
    /** Blocks smaller than this cost more in per-block overhead than they give in balance. */
    public static final int MIN_DEFAULT_BLOCK_SIZE = 64;

    /** Validates the shape. */
    public BlockSharding {
        if (samples < 1) {
            throw new IllegalArgumentException("cannot shard " + samples + " samples");
        }
        if (blockSize < 1) {
            throw new IllegalArgumentException("--block-size must be at least 1, got " + blockSize);
        }
    }

    /**
     * The default block size: at most 256 blocks (the per-block messages and sums stay
     * small), blocks of at least 64 samples unless that would leave fewer than 32 blocks.
     * The paper's 500 samples give 32 blocks of 16, one per rank at 32 nodes.
     *
     * @param samples number of samples, at least 1
     * @return the sharding with the default block size
     */
    public static BlockSharding byDefault(int samples) {
        int forMax = ceilDiv(samples, MAX_DEFAULT_BLOCKS);
        int forMin = Math.min(MIN_DEFAULT_BLOCK_SIZE, ceilDiv(samples, MIN_DEFAULT_BLOCKS));
        return new BlockSharding(samples, Math.max(1, Math.max(forMax, forMin)));
    }

    /**
     * The default blocks of a mini-batch: blocks of up to 64 samples, at least 4 a batch, at
     * most 256. Each block's gradient is a whole parameter vector written and summed, so small
     * blocks cost a network far more than they cost a linear model: blocks of 8 (the full-data
     * rule applied to a batch of 256) made a 784-256-10 network's epoch on 2 ranks 3 to 7 times
     * slower than blocks of 64 or 128. Four blocks a batch let up to 4 ranks share it; give
     * {@code --block-size} for more.
     *
     * @param batch samples a step, at least 1
     * @return the sharding of one batch
     */
    public static BlockSharding forBatch(int batch) {
        int size = Math.max(ceilDiv(batch, MAX_DEFAULT_BLOCKS), Math.min(64, ceilDiv(batch, 4)));
        return new BlockSharding(batch, Math.max(1, size));
    }

    /**
     * The blocks of one training step, as training cuts them: {@code blockSize} when given, else
     * the whole data's default for a full batch and a mini-batch's otherwise.
     *
     * @param samples   the step's samples (the whole data for a full batch)
     * @param batchSize the run's batch size, 0 for full batch
     * @param blockSize the run's block size, 0 for the default
     * @return the sharding of one step
     */
    public static BlockSharding forStep(int samples, int batchSize, int blockSize) {
        return blockSize != 0 ? new BlockSharding(samples, blockSize)
            : batchSize == 0 ? byDefault(samples) : forBatch(samples);
    }

    private static int ceilDiv(int a, int b) {
        return (int) (((long) a + b - 1) / b);
    }

    /** {@return the number of blocks, the last one possibly short} */
    public int blocks() {
        return (int) (((long) samples + blockSize - 1) / blockSize);
    }

    /**
     * {@return the first sample of block {@code b}}
     * @param b a block, 0..blocks() (blocks() gives the end of the data)
     */
    public int blockStart(int b) {
        return (int) Math.min((long) b * blockSize, samples);
    }

    /**
     * {@return one past the last sample of block {@code b}}
     * @param b a block, 0..blocks()-1
     */
    public int blockEnd(int b) {
        return (int) Math.min((long) (b + 1) * blockSize, samples);
    }

    /**
     * {@return the first block of {@code rank}; equal to {@link #endBlock} when it gets none}
     * @param rank  the rank, 0..ranks (ranks gives the end of the last rank's blocks)
     * @param ranks the number of ranks
     */
    public int firstBlock(int rank, int ranks) {
        return (int) ((long) blocks() * rank / ranks);
    }

    /**
     * {@return one past the last block of {@code rank}}
     * @param rank  the rank, 0..ranks-1
     * @param ranks the number of ranks
     */
    public int endBlock(int rank, int ranks) {
        return firstBlock(rank + 1, ranks);
    }
}
