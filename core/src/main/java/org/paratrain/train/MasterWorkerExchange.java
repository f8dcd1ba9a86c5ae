package org.paratrain.train;

import org.paratrain.collective.sum.FixedSum;
import org.paratrain.comm.Communicator;
import org.paratrain.optim.Optimizer;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * The paper's exchange: workers send their losses and gradients to rank 0 under two tags,
 * rank 0 adds them to its own, updates the weights and sends them back to every worker.
 *
 * <p>Per epoch that is {@code 2(p-1)} messages into rank 0 and {@code p-1} out of it, all
 * handled by rank 0 one after another: the time grows linearly with p, which is what the
 * paper measures. What travels is per block, not per rank: each rank sends the loss and
 * gradient of every block it owns, and rank 0 sums every block ({@link BlockTableSum}: onto
 * the fixed-point grid by default, in block order with {@code --sum blocks}). Neither depends
 * on p, so neither do the bits of the result; the fixed-point sum gives those of every
 * allreduce's one-vector sum, with no extra round to agree its grid. Rank 0 sends the loss of the
 * epoch along with the new weights, so every rank can tell, identically, when to stop.
 *
 * <p>Buffers are allocated once. Rank 0 owns blocks {@code [0, b0)}, so its local block
 * buffers are the first part of the global ones and its own partials need no copy.
 */
final class MasterWorkerExchange implements GradientExchange {
    static final int TAG_LOSS = 1;
    static final int TAG_GRADIENT = 2;
    static final int TAG_WEIGHTS = 3;
    private final Communicator comm;
    private final BlockRanges ranges;
    private final int params;
    private double[] blockLoss;
    private double[] blockGrad;
    private final double[] total;
    private final double[] message;
    private final BlockTableSum sum;

    MasterWorkerExchange(Communicator comm, BlockRanges ranges, int params, Sum sum) {
        this.sum = new BlockTableSum(sum, params);
        this.comm = comm;
        this.ranges = ranges;
        this.params = params;
        boolean root = comm.rank() == 0;
        int blocks = root ? ranges.sharding().blocks() : localBlocks(comm.rank());
        this.blockLoss = new double[blocks];
        this.blockGrad = new double[blocks * params];
        this.total = new double[params];
        this.message = new double[params + 1];
    }

    int localBlocks(int rank) {
        return ranges.owned(rank);
    }

    /** A worker whose share grew takes larger buffers (rank 0's hold every block already). */
    @Override
    public void rangesMoved() {
        int n = localBlocks(comm.rank());
        if (n > blockLoss.length) {
            blockLoss = new double[n];
            blockGrad = new double[n * params];
        }
    }

    @Override
    public double[] losses() {
        return blockLoss;
    }

    @Override
    public int lossIndex(int k) {
        return k;
    }

    @Override
    public double[] gradients() {
        return blockGrad;
    }

    @Override
    public int gradientOffset(int k) {
        return k * params;
    }

    @Override
    public String name() {
        return org.paratrain.train.spec.ExchangeSpec.MASTER_WORKER.label();
    }

    /**
     * Combines every rank's block partials, applies {@code optimizer} with the gradient times
     * {@code scale} on rank 0 and leaves the new weights in {@code weights} on every rank.
     * Returns the loss of the epoch (times {@code scale}), the same on every rank.
     */
    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        int n = localBlocks(comm.rank());
        if (comm.rank() != 0) {
            comm.send(blockLoss, 0, n, 0, TAG_LOSS);
            comm.send(blockGrad, 0, n * params, 0, TAG_GRADIENT);
            comm.recv(message, 0, params + 1, 0, TAG_WEIGHTS);
            System.arraycopy(message, 0, weights, 0, params);
            return message[params];
        }
        gather(TAG_LOSS, blockLoss, 1);
        gather(TAG_GRADIENT, blockGrad, params);
        double loss = sum.sum(blockLoss, 0, 1, blockGrad, 0, params, blockLoss.length, total) * scale;
        for (int j = 0; j < params; j++) {
            total[j] *= scale;
        }
        if (!Double.isNaN(loss)) {
            optimizer.step(weights, total);     // a NaN loss ends the run on every rank; no update
        }
        System.arraycopy(weights, 0, message, 0, params);
        message[params] = loss;
        for (int r = 1; r < comm.size(); r++) {
            comm.send(message, 0, params + 1, r, TAG_WEIGHTS);
        }
        return loss;
    }

    @Override
    public FixedSum stepSum() {
        return sum.fixed();
    }

    /** Sums the block losses on rank 0 (times {@code scale}); other ranks send theirs and get NaN. */
    @Override
    public double reduceLoss(double scale) {
        if (comm.rank() != 0) {
            comm.send(blockLoss, 0, localBlocks(comm.rank()), 0, TAG_LOSS);
            return Double.NaN;
        }
        gather(TAG_LOSS, blockLoss, 1);
        return sum.sumLoss(blockLoss, 0, 1, blockLoss.length) * scale;
    }

    /** Rank 0 receives each worker's blocks into their place in the global buffer. */
    private void gather(int tag, double[] into, int width) {
        for (int r = 1; r < comm.size(); r++) {
            int first = ranges.first(r);
            int n = localBlocks(r);
            comm.recv(into, first * width, n * width, r, tag);
        }
    }
}
