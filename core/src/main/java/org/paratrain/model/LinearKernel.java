package org.paratrain.model;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandles;

/**
 * Linear regression's loss and gradient of a range of samples (two or more features), in the
 * order {@link LinearRegression} describes: the k-th samples of the range's parts together,
 * then the tail.
 *
 * <p>This class is a template: {@link KernelCopies} defines one hidden class per feature count
 * from its bytes, with the count as class data, read here into the static final
 * {@link #FEATURES}. C2 treats a static final as a constant, so each copy is compiled for its
 * count: the loops over features unroll and the rows' addresses fold. For ten features
 * that made a pass 18% faster (97 against 118 us on 20,000 x 10). A shared method reached with
 * a constant argument did the same only when C2 inlined it, which it refuses once it has
 * compiled the method on its own into a big one: whether it did depended on which it compiled
 * first. The template itself, loaded as a plain class, has no class data and reads the count
 * from its argument; it serves where a copy cannot be defined, with the same bits.
 */
final class LinearKernel implements KernelCopies.LinearBlock {
    /**
     * The most features for which four parts go together; beyond, eight. Measured, ms or us per
     * pass, four against eight parts: 20,000 x 10 (in cache) 95 against 105-115 us;
     * 10,000,000 x 10 (from memory) about equal; 1,000,000 x 100 (from memory) 77 against 70 ms.
     */
    static final int FEW = 16;
    /** The feature count this copy is compiled for, or 0 in the template. */
    private static final int FEATURES = countFromClassData();

    /** The template, or through {@link KernelCopies} a copy. */
    LinearKernel() { }

    @Override
    public double sums(double[] x, double[] y, int from, int to, int features, double[] w, boolean intercept,
                       double[] grad, int off) {
        return block(x, y, from, to, features, w, intercept, grad, off);
    }

    /**
     * {@return the feature count: this copy's constant, or {@code d} in the template} Every method
     * with a loop over features reads it itself, since a copy's methods are compiled one by one
     * and a count passed on as an argument is a constant only where C2 inlined the callee.
     */
    private static int count(int d) {
        return FEATURES > 0 ? FEATURES : d;
    }

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
     * gradient is added to {@code grad[off, off + features + (intercept ? 1 : 0))}. Up to
     * {@link #FEW} features, the k-th samples of four parts of the range go together, beyond,
     * of eight (see {@link LinearRegression}).
     */
    static double block(double[] x, double[] y, int from, int to, int features, double[] w, boolean intercept,
                        double[] grad, int off) {
        int d = count(features);
        double b = intercept ? w[d] : 0.0;
        return d <= FEW ? quarters(x, y, from, to, d, w, b, intercept, grad, off)
            : eighths(x, y, from, to, d, w, b, intercept, grad, off);
    }

    /** Four parts of the range, for few features; returns the loss of the range. */
    private static double quarters(double[] x, double[] y, int from, int to, int features, double[] w, double b,
                                   boolean intercept, double[] grad, int off) {
        int d = count(features);
        int q = (to - from) / 4;
        int s = q * d;
        double loss = 0.0;
        for (int i = from; i < from + q; i++) {
            int a = i * d;
            double r0 = b;
            double r1 = b;
            double r2 = b;
            double r3 = b;
            for (int j = 0; j < d; j++) {
                double wj = w[j];
                r0 = Math.fma(wj, x[a + j], r0);
                r1 = Math.fma(wj, x[a + s + j], r1);
                r2 = Math.fma(wj, x[a + 2 * s + j], r2);
                r3 = Math.fma(wj, x[a + 3 * s + j], r3);
            }
            r0 -= y[i];
            r1 -= y[i + q];
            r2 -= y[i + 2 * q];
            r3 -= y[i + 3 * q];
            loss += (r0 * r0 + r1 * r1) + (r2 * r2 + r3 * r3);
            if (grad != null) {
                addParts4(grad, off, x, a, s, d, 2.0 * r0, 2.0 * r1, 2.0 * r2, 2.0 * r3);
                if (intercept) {
                    grad[off + d] += 2.0 * ((r0 + r1) + (r2 + r3));
                }
            }
        }
        return tail(x, y, from + 4 * q, to, d, w, b, intercept, grad, off, loss);
    }

    /** Eight parts of the range, for many features; returns the loss of the range. */
    private static double eighths(double[] x, double[] y, int from, int to, int features, double[] w, double b,
                                  boolean intercept, double[] grad, int off) {
        int d = count(features);
        int q = (to - from) / 8;
        int s = q * d;
        double loss = 0.0;
        for (int i = from; i < from + q; i++) {
            int a = i * d;
            double r0 = b;
            double r1 = b;
            double r2 = b;
            double r3 = b;
            double r4 = b;
            double r5 = b;
            double r6 = b;
            double r7 = b;
            for (int j = 0; j < d; j++) {
                double wj = w[j];
                r0 = Math.fma(wj, x[a + j], r0);
                r1 = Math.fma(wj, x[a + s + j], r1);
                r2 = Math.fma(wj, x[a + 2 * s + j], r2);
                r3 = Math.fma(wj, x[a + 3 * s + j], r3);
                r4 = Math.fma(wj, x[a + 4 * s + j], r4);
                r5 = Math.fma(wj, x[a + 5 * s + j], r5);
                r6 = Math.fma(wj, x[a + 6 * s + j], r6);
                r7 = Math.fma(wj, x[a + 7 * s + j], r7);
            }
            r0 -= y[i];
            r1 -= y[i + q];
            r2 -= y[i + 2 * q];
            r3 -= y[i + 3 * q];
            r4 -= y[i + 4 * q];
            r5 -= y[i + 5 * q];
            r6 -= y[i + 6 * q];
            r7 -= y[i + 7 * q];
            loss += ((r0 * r0 + r1 * r1) + (r2 * r2 + r3 * r3)) + ((r4 * r4 + r5 * r5) + (r6 * r6 + r7 * r7));
            if (grad != null) {
                addParts8(grad, off, x, a, s, d, intercept, 2.0 * r0, 2.0 * r1, 2.0 * r2, 2.0 * r3, 2.0 * r4,
                    2.0 * r5, 2.0 * r6, 2.0 * r7);
            }
        }
        return tail(x, y, from + 8 * q, to, d, w, b, intercept, grad, off, loss);
    }

    /** {@link Rows#addRows4}, reading the count from this copy (see {@link #count}). */
    private static void addParts4(double[] g, int at, double[] x, int a, int s, int features,
                                  double c0, double c1, double c2, double c3) {
        int d = count(features);
        if (Rows.VECTOR) {
            VectorRows.addRows4(g, at, x, a, s, d, c0, c1, c2, c3);
            return;
        }
        for (int j = 0; j < d; j++) {
            g[at + j] = Math.fma(c3, x[a + 3 * s + j], Math.fma(c2, x[a + 2 * s + j], Math.fma(c1, x[a + s + j],
                Math.fma(c0, x[a + j], g[at + j]))));
        }
    }

    /**
     * Adds {@code c0 x_0 + ... + c7 x_7} as {@link Rows#addRows4} does for four, one chain per
     * feature, and with an intercept {@code ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))} to the bias.
     */
    private static void addParts8(double[] g, int at, double[] x, int a, int s, int features, boolean intercept,
                                  double c0, double c1, double c2, double c3, double c4, double c5, double c6,
                                  double c7) {
        int d = count(features);
        if (intercept) {
            g[at + d] += ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
        }
        if (Rows.VECTOR) {
            VectorRows.addRows8(g, at, x, a, s, d, c0, c1, c2, c3, c4, c5, c6, c7);
            return;
        }
        int a4 = a + 4 * s;
        for (int j = 0; j < d; j++) {
            double t = Math.fma(c3, x[a + 3 * s + j], Math.fma(c2, x[a + 2 * s + j], Math.fma(c1, x[a + s + j],
                Math.fma(c0, x[a + j], g[at + j]))));
            g[at + j] = Math.fma(c7, x[a4 + 3 * s + j], Math.fma(c6, x[a4 + 2 * s + j], Math.fma(c5, x[a4 + s + j],
                Math.fma(c4, x[a4 + j], t))));
        }
    }

    /**
     * The samples after the parts: two at a time (two chains, their terms added as
     * {@code c0 x_0 + c1 x_1}, their losses as {@code l0 + l1}), then the last one alone;
     * returns {@code loss} plus their losses. Not one by one: a lone dot product is a chain
     * of d dependent operations, and the tails of 79-sample blocks cost 10% that way.
     */
    private static double tail(double[] x, double[] y, int from, int to, int features, double[] w, double b,
                               boolean intercept, double[] grad, int off, double loss) {
        int d = count(features);
        int i = from;
        for (; i + 1 < to; i += 2) {
            int a = i * d;
            double r0 = b;
            double r1 = b;
            for (int j = 0; j < d; j++) {
                r0 = Math.fma(w[j], x[a + j], r0);
                r1 = Math.fma(w[j], x[a + d + j], r1);
            }
            r0 -= y[i];
            r1 -= y[i + 1];
            loss += r0 * r0 + r1 * r1;
            if (grad != null) {
                for (int j = 0; j < d; j++) {
                    grad[off + j] = Math.fma(2.0 * r1, x[a + d + j], Math.fma(2.0 * r0, x[a + j], grad[off + j]));
                }
                if (intercept) {
                    grad[off + d] += 2.0 * (r0 + r1);
                }
            }
        }
        return i < to ? last(x, y, i, d, w, b, intercept, grad, off, loss) : loss;
    }

    /** Sample {@code i} alone; returns {@code loss} plus its loss. */
    private static double last(double[] x, double[] y, int i, int features, double[] w, double b, boolean intercept,
                               double[] grad, int off, double loss) {
        int d = count(features);
        double r = Rows.dot(b, w, 0, x, i * d, d) - y[i];
        if (grad != null) {
            Rows.addRow(grad, off, x, i * d, d, 2.0 * r);
            if (intercept) {
                grad[off + d] += 2.0 * r;
            }
        }
        return loss + r * r;
    }
}
