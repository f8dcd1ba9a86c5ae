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
 * reuses the same shifted exponentials. One instance per rank: it keeps the K logits of the
 * current sample as scratch.
 */
public final class SoftmaxRegression implements Classifier {
    private final int features;
    private final int classes;
    private final boolean intercept;
    private final double[] z;

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
        this.z = new double[classes];
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
        double[] x = data.x();
        double loss = 0.0;
        int d = features;
        for (int i = from; i < to; i++) {
            int label = (int) data.y()[i];
            double lse = logits(x, i * d, params);
            loss += lse - z[label];
            for (int k = 0; k < classes; k++) {
                double r = Math.exp(z[k] - lse) - (k == label ? 1.0 : 0.0);
                int wk = offset + k * d;
                for (int j = 0; j < d; j++) {
                    grad[wk + j] += r * x[i * d + j];
                }
                if (intercept) {
                    grad[offset + classes * d + k] += r;
                }
            }
        }
        return loss;
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            loss += logits(data.x(), i * features, params) - z[(int) data.y()[i]];
        }
        return loss;
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

    /** exp(z_k - logsumexp(z)): the shifted exponentials of the loss, so none overflows. */
    @Override
    public void probabilities(Dataset data, int i, double[] params, double[] out) {
        double lse = logits(data.x(), i * features, params);
        for (int k = 0; k < classes; k++) {
            out[k] = Math.exp(z[k] - lse);
        }
    }

    /** Fills z with the logits of the sample at {@code row} and returns their log-sum-exp. */
    private double logits(double[] x, int row, double[] params) {
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < classes; k++) {
            double s = intercept ? params[classes * features + k] : 0.0;
            int wk = k * features;
            for (int j = 0; j < features; j++) {
                s += params[wk + j] * x[row + j];
            }
            z[k] = s;
            max = Math.max(max, s);
        }
        double sum = 0.0;
        for (int k = 0; k < classes; k++) {
            sum += Math.exp(z[k] - max);
        }
        return max + Math.log(sum);
    }
}
