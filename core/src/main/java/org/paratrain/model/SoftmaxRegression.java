package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * Multinomial (softmax) regression over K classes: logits {@code z = W x + b}, loss the
 * cross-entropy {@code logsumexp(z) - z_y} summed over samples, labels 0..K-1.
 *
 * <p>Parameters: W row by row (class k's weights at {@code k * features}), then the K biases
 * when the model has an intercept.
 *
 * <p>Numerics: {@code logsumexp(z) = m + log(sum exp(z_k - m))} with {@code m = max z}, so no
 * exponential overflows and the largest term is exactly 1; the softmax for the gradient
 * reuses the same shifted exponentials. One instance per rank: it keeps the logits of the
 * current four samples as scratch.
 *
 * <p>Order: the k-th samples of a range's four quarters are taken together, so each class's weights are read once for four samples and each class's
 * gradient row is updated once for four ({@link Rows#addRows4}); their losses, added as
 * {@code (l0 + l1) + (l2 + l3)}, go to the range's loss; the tail follows sample by sample.
 * A logit is one fused chain from the class's bias ({@link Rows#dot}), the same bits in
 * training and in {@link #predict}.
 */
public final class SoftmaxRegression implements Classifier {
    private final int features;
    private final int classes;
    private final boolean intercept;
    private final double[] z;
    /** The training loss: plain cross-entropy unless {@link #objective(Objective)} set weights or smoothing. */
    private Objective objective = Objective.PLAIN;

    /**
     * A model of {@code classes * features} weights, then {@code classes} biases with an intercept.
     *
     * @param features  inputs, at least 1
     * @param classes   K, at least 2
     * @param intercept whether to learn a bias per class
     */
    public SoftmaxRegression(int features, int classes, boolean intercept) {
        if (features < 1 || classes < 2) {
            throw new IllegalArgumentException("softmax needs at least 1 feature and 2 classes, got " + features
                + " and " + classes);
        }
        this.features = features;
        this.classes = classes;
        this.intercept = intercept;
        this.z = new double[4 * classes];
    }

    @Override
    public int parameterCount() {
        return classes * features + (intercept ? classes : 0);
    }

    @Override
    public String name() {
        return "softmax";
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return sums(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return sums(data, from, to, params, null, 0);
    }

    /** The loss of samples {@code [from, to)}, and their gradient added into {@code grad} unless it is null. */
    private double sums(Dataset data, int from, int to, double[] w, double[] grad, int off) {
        double[] x = data.x();
        double[] y = data.y();
        double[] sw = data.weights();
        int d = features;
        int q = (to - from) / 4;
        boolean gradient = grad != null;
        double loss = 0.0;
        for (int i = from; i < from + q; i++) {
            logits4(x, i * d, q * d, w);
            loss += (sample(y[i], 0, gradient, sw, i) + sample(y[i + q], 1, gradient, sw, i + q))
                + (sample(y[i + 2 * q], 2, gradient, sw, i + 2 * q) + sample(y[i + 3 * q], 3, gradient, sw, i + 3 * q));
            if (gradient) {
                addGroup(grad, off, x, i * d, q * d);
            }
        }
        for (int i = from + 4 * q; i < to; i++) {
            logits(x, i * d, w);
            loss += sample(y[i], 0, gradient, sw, i);
            for (int k = 0; gradient && k < classes; k++) {
                Rows.addRow(grad, off + k * d, x, i * d, d, z[k]);
                if (intercept) {
                    grad[off + classes * d + k] += z[k];
                }
            }
        }
        return loss;
    }

    /** Fills {@code z[t K + k]} with class k's logit of the rows at {@code a + t * s}, t = 0..3. */
    private void logits4(double[] x, int a, int s, double[] w) {
        int d = features;
        for (int k = 0; k < classes; k++) {
            double bk = intercept ? w[classes * d + k] : 0.0;
            double z0 = bk;
            double z1 = bk;
            double z2 = bk;
            double z3 = bk;
            int wk = k * d;
            for (int j = 0; j < d; j++) {
                double wj = w[wk + j];
                z0 = Math.fma(wj, x[a + j], z0);
                z1 = Math.fma(wj, x[a + s + j], z1);
                z2 = Math.fma(wj, x[a + 2 * s + j], z2);
                z3 = Math.fma(wj, x[a + 3 * s + j], z3);
            }
            z[k] = z0;
            z[classes + k] = z1;
            z[2 * classes + k] = z2;
            z[3 * classes + k] = z3;
        }
    }

    /**
     * The loss {@code logsumexp(z) - z_label} of the sample whose logits are at
     * {@code z[t K, (t + 1) K)}; leaves there the loss's derivatives {@code softmax - onehot}
     * when {@code gradient} is set (the softmax from the exponentials of the loss, not new ones).
     * With sample weights {@code sw} (null for none), sample i's loss and derivatives are scaled
     * by its weight.
     */
    private double sample(double label, int t, boolean gradient, double[] sw, int i) {
        int at = t * classes;
        int c = (int) label;
        if (!objective.plain() || sw != null) {
            return weighted(c, at, gradient, sw == null ? 1.0 : sw[i]);
        }
        double zc = z[at + c];
        double max = max(at);
        double sum = exponentials(at, max);
        for (int k = 0; gradient && k < classes; k++) {
            z[at + k] = z[at + k] / sum - (k == c ? 1.0 : 0.0);
        }
        return max + Math.log(sum) - zc;
    }

    /** {@link #sample} under class weights, label smoothing ({@link Objective}) or a sample weight {@code s}. */
    private double weighted(int c, int at, boolean gradient, double s) {
        double max = max(at);
        double loss = s * objective.crossEntropy(Softmax.logSumExp(z, at, classes), z, at, classes, c);
        double sum = exponentials(at, max);
        for (int k = 0; gradient && k < classes; k++) {
            z[at + k] = s * objective.delta(z[at + k] / sum, k, c, classes);
        }
        return loss;
    }

    @Override
    public void objective(Objective o) {
        objective = o.forClasses(classes, name());
    }

    /** Adds the four samples' terms {@code r_k x} to each class's gradient row, and {@code r_k} to its bias. */
    private void addGroup(double[] grad, int off, double[] x, int a, int s) {
        int d = features;
        for (int k = 0; k < classes; k++) {
            double r0 = z[k];
            double r1 = z[classes + k];
            double r2 = z[2 * classes + k];
            double r3 = z[3 * classes + k];
            Rows.addRows4(grad, off + k * d, x, a, s, d, r0, r1, r2, r3);
            if (intercept) {
                grad[off + classes * d + k] += (r0 + r1) + (r2 + r3);
            }
        }
    }

    /** The class with the largest logit for sample i. */
    @Override
    public int predict(Dataset data, int i, double[] params) {
        logits(data.x(), i * features, params);
        int best = 0;
        for (int k = 1; k < classes; k++) {
            if (z[k] > z[best]) {
                best = k;
            }
        }
        return best;
    }

    @Override
    public int classes() {
        return classes;
    }

    /** {@code exp(z_k - max) / sum_k exp(z_k - max)}: no exponential overflows; the softmax the gradient uses. */
    @Override
    public void probabilities(Dataset data, int i, double[] params, double[] out) {
        logits(data.x(), i * features, params);
        double sum = exponentials(0, max(0));
        for (int k = 0; k < classes; k++) {
            out[k] = z[k] / sum;
        }
    }

    /** Fills {@code z[0, K)} with the logits of the sample at {@code row}. */
    private void logits(double[] x, int row, double[] params) {
        for (int k = 0; k < classes; k++) {
            double bk = intercept ? params[classes * features + k] : 0.0;
            z[k] = Rows.dot(bk, params, k * features, x, row, features);
        }
    }

    /** {@return the largest of {@code z[at, at + K)}} */
    private double max(int at) {
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < classes; k++) {
            max = Math.max(max, z[at + k]);
        }
        return max;
    }

    /**
     * Replaces {@code z[at, at + K)} by {@code exp(z_k - max)} and returns their sum: with
     * {@code max} the largest logit, the largest term is exactly 1 and none overflows.
     */
    private double exponentials(int at, double max) {
        double sum = 0.0;
        for (int k = 0; k < classes; k++) {
            double e = Math.exp(z[at + k] - max);
            z[at + k] = e;
            sum += e;
        }
        return sum;
    }
}
