package org.paratrain.model;

/**
 * Linear regression's kernel for one feature, the paper's model: every sum in a register.
 *
 * <p>With one feature the general kernel would add each group's gradient to memory, and that
 * chain of loads and stores, not arithmetic, would set its speed. Here four neighbouring
 * samples go to four sets of accumulators (loss, weight gradient, bias gradient), added as
 * {@code (a0 + a1) + (a2 + a3)} at the end; the samples after the last full group go to the
 * first set. The residual is {@code fma(w, x, b - y)}, one rounding of {@code w x + (b - y)}.
 * The factor 2 of the derivative is applied once per range (multiplying by 2 is exact).
 * Without an intercept, b is 0 and the bias sums are skipped (a test on a value that does not
 * change in the loop, which C2 takes out of it by compiling the loop twice): on the paper's run
 * they were a fifth of the kernel's time.
 *
 * <p>A rank's blocks go through one call ({@link #blocks}); when their size is a multiple of
 * four, through one loop over groups of four ({@link #groups}). On the paper's run, 32 blocks
 * of 16 samples, a call per block took 0.40 us an epoch, one call with a loop per block 0.39,
 * one loop over groups 0.29, and 0.23 without the bias sums; the epoch at 1 rank went from
 * 0.56 to 0.36 us with the clock read twice a step instead of four times
 * ({@code RankTrainer.runEpoch}).
 */
final class OneFeature {
    private OneFeature() { }

    /**
     * The summed squared error of samples {@code [from, to)}; when {@code grad} is not null,
     * the gradient is added to {@code grad[off]} (and the bias's to {@code grad[off + 1]}).
     */
    static double sums(double[] x, double[] y, int from, int to, double w, double b, double[] grad, int off,
                       boolean intercept) {
        if (to <= from) {
            if (grad != null) {
                add(grad, off, intercept, 0.0, 0.0);
            }
            return 0.0;
        }
        return blocks(x, y, from, to, to - from, w, b, null, 0, 0, grad, off, 0, intercept);
    }

    /**
     * The blocks of {@code size} samples from {@code from} (the last ends at {@code to}), in one
     * loop: a call per block cost as much as a block of 16 samples' arithmetic. Block k's loss
     * goes to {@code losses[lossAt + k lossStride]} unless {@code losses} is null, and its
     * gradient is added to {@code grad[gradAt + k gradStride]} (and {@code + 1} for the bias)
     * unless {@code grad} is null; each block has the bits {@link #sums} gives for it alone.
     *
     * @return the last block's loss (the range's, when it is one block)
     */
    static double blocks(double[] x, double[] y, int from, int to, int size, double w, double b, double[] losses,
                         int lossAt, int lossStride, double[] grad, int gradAt, int gradStride, boolean intercept) {
        if (to <= from) {
            return 0.0;
        }
        double loss = 0.0;
        int count = (int) (((long) to - from + size - 1) / size);
        int k = 0;
        if ((size & 3) == 0 && losses != null && grad != null) {
            k = (int) (((long) to - from) / size);
            loss = groups(x, y, from, k, size, w, b, losses, lossAt, lossStride, grad, gradAt, gradStride, intercept);
        }
        for (; k < count; k++) {
            int i = from + k * size;
            int end = (int) Math.min((long) i + size, to);
            double l0 = 0.0;
            double l1 = 0.0;
            double l2 = 0.0;
            double l3 = 0.0;
            double g0 = 0.0;
            double g1 = 0.0;
            double g2 = 0.0;
            double g3 = 0.0;
            double c0 = 0.0;
            double c1 = 0.0;
            double c2 = 0.0;
            double c3 = 0.0;
            for (; i + 3 < end; i += 4) {
                double r0 = Math.fma(w, x[i], b - y[i]);
                double r1 = Math.fma(w, x[i + 1], b - y[i + 1]);
                double r2 = Math.fma(w, x[i + 2], b - y[i + 2]);
                double r3 = Math.fma(w, x[i + 3], b - y[i + 3]);
                l0 = Math.fma(r0, r0, l0);
                l1 = Math.fma(r1, r1, l1);
                l2 = Math.fma(r2, r2, l2);
                l3 = Math.fma(r3, r3, l3);
                g0 = Math.fma(r0, x[i], g0);
                g1 = Math.fma(r1, x[i + 1], g1);
                g2 = Math.fma(r2, x[i + 2], g2);
                g3 = Math.fma(r3, x[i + 3], g3);
                if (intercept) {
                    c0 += r0;
                    c1 += r1;
                    c2 += r2;
                    c3 += r3;
                }
            }
            for (; i < end; i++) {
                double r = Math.fma(w, x[i], b - y[i]);
                l0 = Math.fma(r, r, l0);
                g0 = Math.fma(r, x[i], g0);
                c0 += r;
            }
            if (grad != null) {
                add(grad, gradAt + k * gradStride, intercept, 2.0 * ((g0 + g1) + (g2 + g3)),
                    2.0 * ((c0 + c1) + (c2 + c3)));
            }
            loss = (l0 + l1) + (l2 + l3);
            if (losses != null) {
                losses[lossAt + k * lossStride] = loss;
            }
        }
        return loss;
    }

    /**
     * Blocks {@code [0, count)} of {@code size} samples, a multiple of 4, from {@code from}: the
     * same sums as {@link #blocks}, in one loop over groups of four samples that stores a block's
     * sums after its last group. C2 cuts a counted loop into a first, a main and a last loop and
     * unrolls the main one; a block of 16 samples is four groups, too few for the main loop, and
     * the loop per block ran in the first and last loops with every index checked.
     *
     * @return the last block's loss, 0 when there is none
     */
    private static double groups(double[] x, double[] y, int from, int count, int size, double w, double b,
                                 double[] losses, int lossAt, int lossStride, double[] grad, int gradAt,
                                 int gradStride, boolean intercept) {
        double loss = 0.0;
        double l0 = 0.0;
        double l1 = 0.0;
        double l2 = 0.0;
        double l3 = 0.0;
        double g0 = 0.0;
        double g1 = 0.0;
        double g2 = 0.0;
        double g3 = 0.0;
        double c0 = 0.0;
        double c1 = 0.0;
        double c2 = 0.0;
        double c3 = 0.0;
        int perBlock = size >> 2;
        int left = perBlock;
        int k = 0;
        int end = from + count * size;
        for (int i = from; i < end; i += 4) {
            double r0 = Math.fma(w, x[i], b - y[i]);
            double r1 = Math.fma(w, x[i + 1], b - y[i + 1]);
            double r2 = Math.fma(w, x[i + 2], b - y[i + 2]);
            double r3 = Math.fma(w, x[i + 3], b - y[i + 3]);
            l0 = Math.fma(r0, r0, l0);
            l1 = Math.fma(r1, r1, l1);
            l2 = Math.fma(r2, r2, l2);
            l3 = Math.fma(r3, r3, l3);
            g0 = Math.fma(r0, x[i], g0);
            g1 = Math.fma(r1, x[i + 1], g1);
            g2 = Math.fma(r2, x[i + 2], g2);
            g3 = Math.fma(r3, x[i + 3], g3);
            if (intercept) {
                c0 += r0;
                c1 += r1;
                c2 += r2;
                c3 += r3;
            }
            if (--left == 0) {
                add(grad, gradAt + k * gradStride, intercept, 2.0 * ((g0 + g1) + (g2 + g3)),
                    2.0 * ((c0 + c1) + (c2 + c3)));
                loss = (l0 + l1) + (l2 + l3);
                losses[lossAt + k * lossStride] = loss;
                k++;
                left = perBlock;
                l0 = 0.0;
                l1 = 0.0;
                l2 = 0.0;
                l3 = 0.0;
                g0 = 0.0;
                g1 = 0.0;
                g2 = 0.0;
                g3 = 0.0;
                c0 = 0.0;
                c1 = 0.0;
                c2 = 0.0;
                c3 = 0.0;
            }
        }
        return loss;
    }

    private static void add(double[] grad, int off, boolean intercept, double weight, double bias) {
        grad[off] += weight;
        if (intercept) {
            grad[off + 1] += bias;
        }
    }
}
