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
 * Without an intercept, b is 0 and the bias sums are computed but not written.
 */
final class OneFeature {
    private OneFeature() { }

    /**
     * The summed squared error of samples {@code [from, to)}; when {@code grad} is not null,
     * the gradient is added to {@code grad[off]} (and the bias's to {@code grad[off + 1]}).
     */
    static double sums(double[] x, double[] y, int from, int to, double w, double b, double[] grad, int off,
                       boolean intercept) {
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
        int i = from;
        for (; i + 3 < to; i += 4) {
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
            c0 += r0;
            c1 += r1;
            c2 += r2;
            c3 += r3;
        }
        for (; i < to; i++) {
            double r = Math.fma(w, x[i], b - y[i]);
            l0 = Math.fma(r, r, l0);
            g0 = Math.fma(r, x[i], g0);
            c0 += r;
        }
        if (grad != null) {
            add(grad, off, intercept, 2.0 * ((g0 + g1) + (g2 + g3)), 2.0 * ((c0 + c1) + (c2 + c3)));
        }
        return (l0 + l1) + (l2 + l3);
    }

    private static void add(double[] grad, int off, boolean intercept, double weight, double bias) {
        grad[off] += weight;
        if (intercept) {
            grad[off + 1] += bias;
        }
    }
}
