package org.paratrain.train;

import org.paratrain.collective.sum.FixedSum;
import org.paratrain.collective.sum.NonFiniteValueException;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * The sum of a step's block partials when every one of them is on this rank: rank 0 of the
 * paper's master-worker exchange (the workers send their blocks), or every rank after a table
 * allreduce. In block order ({@link Sum#BLOCKS}), or onto the fixed-point grid
 * ({@link Sum#FIXED_1}, {@link Sum#FIXED_2}).
 *
 * <p>Why the fixed-point sum is cheap here: a rank that holds every block observes every value
 * itself, so the grid needs no agreement between ranks (the extra allreduce a step that a
 * one-vector sum pays); and since the fixed-point sum of the same deposits is the same integers
 * in any grouping, the result has the bits of that one-vector sum under any allreduce, at any
 * node count. So master-worker can sum as every other exchange does by default, with the
 * paper's messages and no extra round.
 *
 * <p>Loss and gradient are two segments (loss at index 0, gradient at 1..params), as
 * {@link OwnRowsExchange} declares them; the loss alone is one segment, as
 * {@link SumExchange.LossSum} sums it. One instance per rank, reused: no allocation a step.
 */
final class BlockTableSum {
    /** Up to this many parameters a block, the table is summed column by column (same words either way). */
    private static final int COLUMNS = 8;
    private final int params;
    private final FixedSum fixed;
    private final FixedSum lossOnly;

    BlockTableSum(Sum sum, int params) {
        if (sum == Sum.FLOAT) {
            throw new IllegalArgumentException("a float sum adds each rank's sum, not a table of blocks");
        }
        this.params = params;
        this.fixed = sum == Sum.BLOCKS ? null : new FixedSum(OwnRowsExchange.format(sum), 1, params);
        this.lossOnly = sum == Sum.BLOCKS ? null : new FixedSum(OwnRowsExchange.format(sum), 1);
    }

    /**
     * Sums {@code blocks} blocks: block k's loss at {@code loss[lossAt + k * lossStride]}, its
     * gradient at {@code grad[gradAt + k * gradStride ...]} ({@code params} values).
     *
     * @param total receives the summed gradient
     * @return the summed loss; NaN if any value is not finite (the fixed sums), which the
     *     divergence monitor then reports
     */
    double sum(double[] loss, int lossAt, int lossStride, double[] grad, int gradAt, int gradStride, int blocks,
               double[] total) {
        if (fixed == null) {
            java.util.Arrays.fill(total, 0, params, 0.0);
            RowSum.add(grad, gradAt, gradStride, blocks, total, 0, params);
            return RowSum.sum(loss, lossAt, lossStride, blocks);
        }
        try {
            fixed.begin(blocks);
            if (params <= COLUMNS) {
                byColumns(loss, lossAt, lossStride, grad, gradAt, gradStride, blocks);
            } else {
                byRows(loss, lossAt, lossStride, grad, gradAt, gradStride, blocks);
            }
            fixed.get(1, total, 0, params);
            return fixed.get(0);
        } catch (NonFiniteValueException e) {
            return Double.NaN;
        }
    }

    /** A narrow table (the paper's: a loss and one weight a block) by column: a loop, not calls, a block. */
    private void byColumns(double[] loss, int lossAt, int lossStride, double[] grad, int gradAt, int gradStride,
                           int blocks) {
        fixed.observeColumn(0, loss, lossAt, lossStride, blocks);
        for (int j = 0; j < params; j++) {
            fixed.observeColumn(1 + j, grad, gradAt + j, gradStride, blocks);
        }
        fixed.fixGrid();
        fixed.depositColumn(0, loss, lossAt, lossStride, blocks);
        for (int j = 0; j < params; j++) {
            fixed.depositColumn(1 + j, grad, gradAt + j, gradStride, blocks);
        }
        fixed.endBlocks(blocks);
    }

    /** A wide table by row: each block's gradient is contiguous. */
    private void byRows(double[] loss, int lossAt, int lossStride, double[] grad, int gradAt, int gradStride,
                        int blocks) {
        for (int k = 0; k < blocks; k++) {
            fixed.observe(0, loss[lossAt + k * lossStride]);
            fixed.observe(1, grad, gradAt + k * gradStride, params);
        }
        fixed.fixGrid();
        for (int k = 0; k < blocks; k++) {
            fixed.deposit(0, loss[lossAt + k * lossStride]);
            fixed.deposit(1, grad, gradAt + k * gradStride, params);
            fixed.endBlock();
        }
    }

    /** {@return the fixed-point sum of the steps' tables ({@link GradientExchange#stepSum}), null for blocks} */
    FixedSum fixed() {
        return fixed;
    }

    /** {@return the loss of {@code blocks} blocks, at {@code loss[at + k * stride]}; NaN if one is not finite} */
    double sumLoss(double[] loss, int at, int stride, int blocks) {
        if (lossOnly == null) {
            return RowSum.sum(loss, at, stride, blocks);
        }
        try {
            lossOnly.begin(blocks);
            lossOnly.observeColumn(0, loss, at, stride, blocks);
            lossOnly.fixGrid();
            lossOnly.depositColumn(0, loss, at, stride, blocks);
            lossOnly.endBlocks(blocks);
            return lossOnly.get(0);
        } catch (NonFiniteValueException e) {
            return Double.NaN;
        }
    }
}
