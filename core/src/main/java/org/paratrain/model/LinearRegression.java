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
 * <p>The order of the arithmetic, which fixes the bits: a range of n samples is cut into P
 * parts of {@code q = floor(n / P)} samples and a tail of {@code n - Pq}, P = 4 for up to 16
 * features, 8 beyond. The k-th samples of the P parts are taken together: their predictions
 * run as P independent chains from the bias ({@link Rows#dot}), their gradient terms are added
 * to the gradient part by part (as {@link Rows#addRows4} does for four), and their
 * squared residuals, added pairwise ({@code (l0 + l1) + (l2 + l3)}, and so on for eight), are
 * added to the range's loss. The tail follows, two samples at a time, then the last one alone
 * (see {@link LinearKernel}). The order depends on the
 * samples of the range and the feature count only, never on the caller, the rank or the
 * thread, and {@link #loss} follows it too, so it returns the same bits as
 * {@link #lossAndGradient}.
 *
 * <p>Why parts and not neighbouring samples: a range larger than the caches streams from
 * memory, and one core keeps more cache-line requests in flight, so reads faster, when it
 * walks several sequences at once (measured on 1,000,000 x 100, 2 MB pages, ms per pass: one
 * sequence 126, four 77, eight 70; with few features four suffice, see
 * {@link LinearKernel#FEW}). The kernel ({@link LinearKernel}) is compiled once per
 * feature count, with the count a constant, so that the loops over features unroll and the
 * rows' addresses fold (measured on 20,000 x 10: 97 against 118 us per pass). One feature,
 * the paper's model, has a kernel of its own ({@link OneFeature}).
 */
public final class LinearRegression extends LinearPredictor {
    /** {@link LinearKernel} compiled for this feature count (unused for one feature). */
    private final KernelCopies.LinearBlock kernel;

    /**
     * A model of {@code features + (intercept ? 1 : 0)} parameters.
     *
     * @param features  number of input features, at least 1
     * @param intercept whether to learn a bias term b as the last parameter
     */
    public LinearRegression(int features, boolean intercept) {
        super(features, intercept);
        this.kernel = features == 1 ? null : KernelCopies.linear(features);
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
     * One feature, the paper's model, in one loop: its blocks are 16 samples at the default
     * (32 blocks for 500 samples, so that 32 ranks have the same blocks), and a call through
     * {@link #lossAndGradient} per block cost as much as the block's arithmetic. The same bits:
     * each block is {@link OneFeature#sums} into a zeroed row.
     */
    @Override
    public void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                       int lossStride, double[] grad, int gradAt, int gradStride) {
        if (features != 1 || data.weighted()) {
            super.blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
            return;
        }
        int count = (int) (((long) to - from + size - 1) / size);
        for (int k = 0; k < count; k++) {
            int at = gradAt + k * gradStride;
            grad[at] = 0.0;
            if (intercept) {
                grad[at + 1] = 0.0;
            }
        }
        OneFeature.blocks(data.x(), data.y(), from, to, size, params[0], bias(params), losses, lossAt, lossStride,
            grad, gradAt, gradStride, intercept);
    }

    /** The loss, and the gradient added into {@code grad} unless it is null. */
    private double sums(Dataset data, int from, int to, double[] w, double[] grad, int off) {
        if (data.weighted()) {
            return weightedSums(data, from, to, w, grad, off);
        }
        if (features == 1) {
            return OneFeature.sums(data.x(), data.y(), from, to, w[0], bias(w), grad, off, intercept);
        }
        return kernel.sums(data.x(), data.y(), from, to, features, w, intercept, grad, off);
    }

    /**
     * The weighted squared error {@code sum_i s_i r_i^2} of samples {@code [from, to)}, and its
     * gradient {@code sum_i 2 s_i r_i x_i} added into {@code grad} unless it is null: one sample
     * after another, a fixed function of the range as the kernels are, plainer since weighted
     * data is the rarer case (so all-1 weights agree with no weights to rounding, not to the bit).
     */
    private double weightedSums(Dataset data, int from, int to, double[] w, double[] grad, int off) {
        double[] x = data.x();
        double[] y = data.y();
        double[] sw = data.weights();
        int d = features;
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            double r = linear(x, i * d, w) - y[i];
            loss += sw[i] * (r * r);
            if (grad != null) {
                double c = 2.0 * sw[i] * r;
                Rows.addRow(grad, off, x, i * d, d, c);
                if (intercept) {
                    grad[off + d] += c;
                }
            }
        }
        return loss;
    }
}
