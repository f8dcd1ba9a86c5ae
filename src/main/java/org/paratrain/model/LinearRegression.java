package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * Linear regression {@code y = w.x (+ b)} with the sum of squared errors as loss, as in
 * the paper: {@code L = sum_i (w.x_i + b - y_i)^2}, {@code dL/dw = sum_i 2 r_i x_i}.
 *
 * <p>Parameters are {@code [w_0 .. w_{d-1}]}, then {@code b} when the model has an
 * intercept. The loss and gradient of a range of samples take one pass over the samples:
 * each sample's residual is computed once, from its row while the row is in cache, and used
 * for the loss and every partial derivative.
 *
 * <p>The order of the arithmetic, which fixes the bits: a range of n samples is cut into four
 * quarters of {@code q = floor(n / 4)} samples and a tail of {@code n - 4q}. The k-th samples
 * of the four quarters are taken together: their four predictions run as independent chains
 * from the bias ({@link Rows#dot}), their gradient terms are added to the gradient quarter by
 * quarter ({@link Rows#addRows4}), and their losses, added as {@code (l0 + l1) + (l2 + l3)},
 * are added to the range's loss. The tail follows, sample by sample. The
 * order depends on the samples of the range only, never on the caller, the rank or the thread,
 * and {@link #loss} follows it too, so it returns the same bits as {@link #lossAndGradient}.
 *
 * <p>Why quarters and not four neighbouring samples: a range larger than the caches streams
 * from memory, and one core keeps more cache-line requests in flight, so reads faster, when
 * it walks four sequences at once (measured on 1,000,000 x 100: 77 against 126 ms per pass
 * on 2 MB pages). Small feature counts (2 to 16) get the same loop compiled with the count as
 * a constant, so that the loops over features unroll and the four rows' addresses fold
 * (measured on 20,000 x 10: 90 against 120 us per pass). One feature, the paper's model, has
 * a kernel of its own ({@link OneFeature}).
 */
public final class LinearRegression extends LinearPredictor {
    /**
     * A model of {@code features + (intercept ? 1 : 0)} parameters.
     *
     * @param features  number of input features, at least 1
     * @param intercept whether to learn a bias term b as the last parameter
     */
    public LinearRegression(int features, boolean intercept) {
        super(features, intercept);
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return sums(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return sums(data, from, to, params, null, 0);
    }

    @Override
    public double output(Dataset data, int i, double[] params) {
        return linear(data.x(), i * features, params);
    }

    /**
     * The loss, and the gradient added into {@code grad} unless it is null. Each case passes
     * its feature count as a constant, so that C2, inlining {@link #block} there, compiles a
     * copy for that count; only the count in use is hot, so only its copy is compiled.
     */
    private double sums(Dataset data, int from, int to, double[] w, double[] grad, int off) {
        double[] x = data.x();
        double[] y = data.y();
        return switch (features) {
            case 1 -> OneFeature.sums(x, y, from, to, w[0], bias(w), grad, off, intercept);
            case 2 -> block(x, y, from, to, 2, w, grad, off);
            case 3 -> block(x, y, from, to, 3, w, grad, off);
            case 4 -> block(x, y, from, to, 4, w, grad, off);
            case 5 -> block(x, y, from, to, 5, w, grad, off);
            case 6 -> block(x, y, from, to, 6, w, grad, off);
            case 7 -> block(x, y, from, to, 7, w, grad, off);
            case 8 -> block(x, y, from, to, 8, w, grad, off);
            case 9 -> block(x, y, from, to, 9, w, grad, off);
            case 10 -> block(x, y, from, to, 10, w, grad, off);
            case 11 -> block(x, y, from, to, 11, w, grad, off);
            case 12 -> block(x, y, from, to, 12, w, grad, off);
            case 13 -> block(x, y, from, to, 13, w, grad, off);
            case 14 -> block(x, y, from, to, 14, w, grad, off);
            case 15 -> block(x, y, from, to, 15, w, grad, off);
            case 16 -> block(x, y, from, to, 16, w, grad, off);
            default -> block(x, y, from, to, features, w, grad, off);
        };
    }

    /**
     * The quarters of the range (see the class comment), then the tail. Kept under C2's
     * 325-byte limit for inlining hot methods, which the constant feature counts rely on.
     */
    private double block(double[] x, double[] y, int from, int to, int d, double[] w, double[] grad, int off) {
        double b = bias(w);
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
            loss += group(x, y, i, q, a, s, d, z0, z1, z2, z3, grad, off);
        }
        return tail(x, y, from + 4 * q, to, d, w, grad, off, loss);
    }

    /**
     * The k-th samples of the four quarters, whose predictions are {@code z0 .. z3}: adds their
     * gradient terms {@code 2 r x} (and {@code 2 r} to the bias) unless {@code grad} is null, and
     * returns their loss {@code (r0^2 + r1^2) + (r2^2 + r3^2)}.
     */
    private double group(double[] x, double[] y, int i, int q, int a, int s, int d,
                         double z0, double z1, double z2, double z3, double[] grad, int off) {
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
    private double tail(double[] x, double[] y, int from, int to, int d, double[] w, double[] grad, int off,
                        double loss) {
        double b = bias(w);
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
