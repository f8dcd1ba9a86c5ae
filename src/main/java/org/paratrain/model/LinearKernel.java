package org.paratrain.model;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandles;

/**
 * Linear regression's loss and gradient of a range of samples (two or more features), in the
 * order {@link LinearRegression} describes: the k-th samples of the range's four quarters
 * together, then the tail.
 *
 * <p>This class is a template: {@link KernelCopies} defines one hidden class per feature count
 * from its bytes, with the count as class data, read here into the static final
 * {@link #FEATURES}. C2 treats a static final as a constant, so each copy is compiled for its
 * count: the loops over features unroll and the four rows' addresses fold. For ten features
 * that made a pass 18% faster (97 against 118 us on 20,000 x 10). A shared method reached with
 * a constant argument did the same only when C2 inlined it, which it refuses once it has
 * compiled the method on its own into a big one: whether it did depended on which it compiled
 * first. The template itself, loaded as a plain class, has no class data and reads the count
 * from its argument; it serves where a copy cannot be defined, with the same bits.
 */
final class LinearKernel {
    /** The feature count this copy is compiled for, or 0 in the template. */
    private static final int FEATURES = countFromClassData();

    private LinearKernel() { }

    private static int countFromClassData() {
        try {
            Integer count = MethodHandles.classData(MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME, Integer.class);
            return count == null ? 0 : count;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The summed squared error of samples {@code [from, to)}; unless {@code grad} is null, their
     * gradient is added to {@code grad[off, off + features + (intercept ? 1 : 0))}.
     */
    static double block(double[] x, double[] y, int from, int to, int features, double[] w, boolean intercept,
                        double[] grad, int off) {
        int d = FEATURES > 0 ? FEATURES : features;
        double b = intercept ? w[d] : 0.0;
        int q = (to - from) / 4;
        int s = q * d;
        double loss = 0.0;
        for (int i = from; i < from + q; i++) {
            int a = i * d;
            double z0 = b;
            double z1 = b;
            double z2 = b;
            double z3 = b;
            for (int j = 0; j < d; j++) {
                double wj = w[j];
                z0 = Math.fma(wj, x[a + j], z0);
                z1 = Math.fma(wj, x[a + s + j], z1);
                z2 = Math.fma(wj, x[a + 2 * s + j], z2);
                z3 = Math.fma(wj, x[a + 3 * s + j], z3);
            }
            loss += group(x, y, i, q, a, s, d, z0, z1, z2, z3, intercept, grad, off);
        }
        return tail(x, y, from + 4 * q, to, d, w, b, intercept, grad, off, loss);
    }

    /**
     * The k-th samples of the four quarters, whose predictions are {@code z0 .. z3}: adds their
     * gradient terms {@code 2 r x} (and {@code 2 r} to the bias) unless {@code grad} is null, and
     * returns their loss {@code (r0^2 + r1^2) + (r2^2 + r3^2)}.
     */
    private static double group(double[] x, double[] y, int i, int q, int a, int s, int d,
                                double z0, double z1, double z2, double z3, boolean intercept, double[] grad,
                                int off) {
        double r0 = z0 - y[i];
        double r1 = z1 - y[i + q];
        double r2 = z2 - y[i + 2 * q];
        double r3 = z3 - y[i + 3 * q];
        if (grad != null) {
            Rows.addRows4(grad, off, x, a, s, d, 2.0 * r0, 2.0 * r1, 2.0 * r2, 2.0 * r3);
            if (intercept) {
                grad[off + d] += 2.0 * ((r0 + r1) + (r2 + r3));
            }
        }
        return (r0 * r0 + r1 * r1) + (r2 * r2 + r3 * r3);
    }

    /** The samples after the quarters, one by one; returns {@code loss} plus their losses. */
    private static double tail(double[] x, double[] y, int from, int to, int d, double[] w, double b,
                               boolean intercept, double[] grad, int off, double loss) {
        for (int i = from; i < to; i++) {
            double r = Rows.dot(b, w, 0, x, i * d, d) - y[i];
            loss += r * r;
            if (grad != null) {
                Rows.addRow(grad, off, x, i * d, d, 2.0 * r);
                if (intercept) {
                    grad[off + d] += 2.0 * r;
                }
            }
        }
        return loss;
    }
}
