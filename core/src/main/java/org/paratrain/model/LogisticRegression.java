package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * Binary logistic regression: {@code P(y = 1 | x) = sigmoid(w.x + b)}, loss the negative log
 * likelihood (log-loss) summed over samples, labels 0 or 1.
 *
 * <p>Numerics: the loss of a sample is {@code softplus(z) - y z} with
 * {@code softplus(z) = max(z, 0) + log1p(exp(-|z|))}, which never overflows and keeps full
 * precision for large |z| (the naive {@code -log(sigmoid(z))} gives infinity at z = -710 and
 * loses every digit of small losses). The gradient is {@code (sigmoid(z) - y) x}, with the
 * sigmoid computed from {@code exp(-|z|)} on either side of 0 for the same reason.
 */
public final class LogisticRegression extends LinearPredictor implements Classifier {
    /**
     * A two-class model of {@code features + (intercept ? 1 : 0)} parameters.
     *
     * @param features  number of input features, at least 1
     * @param intercept whether to learn a bias b as the last parameter
     */
    public LogisticRegression(int features, boolean intercept) {
        super(features, intercept);
    }

    /** The training loss: plain log-loss unless {@link #objective(Objective)} set weights or smoothing. */
    private Objective objective = Objective.PLAIN;

    @Override
    public String name() {
        return "logistic";
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return sums(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return sums(data, from, to, params, null, 0);
    }

    /**
     * The log-loss of samples {@code [from, to)}, and their gradient added into {@code grad}
     * unless it is null. The k-th samples of the range's four quarters are taken together
     * (their logits as four chains, their gradient terms added quarter by quarter with
     * {@link Rows#addRows4}, their losses added as {@code (l0 + l1) + (l2 + l3)} to the range's),
     * then the tail one by one: a fixed function of the range's samples. Four parts, not the
     * eight of {@link LinearRegression}: the exponential and logarithm of each sample, not
     * memory, set the speed here.
     */
    private double sums(Dataset data, int from, int to, double[] w, double[] grad, int off) {
        double[] x = data.x();
        double[] y = data.y();
        double[] sw = data.weights();
        int d = features;
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
            loss += group(x, y, sw, i, q, a, s, z0, z1, z2, z3, grad, off);
        }
        for (int i = from + 4 * q; i < to; i++) {
            double z = linear(x, i * d, w);
            double e = Math.exp(-Math.abs(z));
            int label = (int) y[i];
            double t = target(y[i]);
            double si = sw == null ? 1.0 : sw[i];
            loss += si * objective.weigh(logLoss(z, t, e), label);
            if (grad != null) {
                double c = si * objective.weigh(sigmoid(z, e) - t, label);
                Rows.addRow(grad, off, x, i * d, d, c);
                if (intercept) {
                    grad[off + d] += c;
                }
            }
        }
        return loss;
    }

    /**
     * The k-th samples of the four quarters, with logits {@code z0 .. z3}: adds their gradient
     * terms {@code (sigmoid(z) - y) x} unless {@code grad} is null; returns their summed loss.
     * Sample weights {@code sw} (null: all 1) scale each sample's terms; a weight of 1 leaves
     * their bits as they are.
     */
    private double group(double[] x, double[] y, double[] sw, int i, int q, int a, int s,
                         double z0, double z1, double z2, double z3, double[] grad, int off) {
        double s0 = sw == null ? 1.0 : sw[i];
        double s1 = sw == null ? 1.0 : sw[i + q];
        double s2 = sw == null ? 1.0 : sw[i + 2 * q];
        double s3 = sw == null ? 1.0 : sw[i + 3 * q];
        double y0 = target(y[i]);
        double y1 = target(y[i + q]);
        double y2 = target(y[i + 2 * q]);
        double y3 = target(y[i + 3 * q]);
        double e0 = Math.exp(-Math.abs(z0));
        double e1 = Math.exp(-Math.abs(z1));
        double e2 = Math.exp(-Math.abs(z2));
        double e3 = Math.exp(-Math.abs(z3));
        if (grad != null) {
            double c0 = s0 * objective.weigh(sigmoid(z0, e0) - y0, (int) y[i]);
            double c1 = s1 * objective.weigh(sigmoid(z1, e1) - y1, (int) y[i + q]);
            double c2 = s2 * objective.weigh(sigmoid(z2, e2) - y2, (int) y[i + 2 * q]);
            double c3 = s3 * objective.weigh(sigmoid(z3, e3) - y3, (int) y[i + 3 * q]);
            Rows.addRows4(grad, off, x, a, s, features, c0, c1, c2, c3);
            if (intercept) {
                grad[off + features] += (c0 + c1) + (c2 + c3);
            }
        }
        return (s0 * objective.weigh(logLoss(z0, y0, e0), (int) y[i])
            + s1 * objective.weigh(logLoss(z1, y1, e1), (int) y[i + q]))
            + (s2 * objective.weigh(logLoss(z2, y2, e2), (int) y[i + 2 * q])
            + s3 * objective.weigh(logLoss(z3, y3, e3), (int) y[i + 3 * q]));
    }

    /** {@return the target of a sample labelled y: y itself, or with label smoothing {@code y (1 - eps) + eps / 2}} */
    private double target(double y) {
        double eps = objective.smoothing();
        return eps == 0.0 ? y : y * (1 - eps) + eps / 2;
    }

    @Override
    public void objective(Objective o) {
        objective = o.forClasses(2, name());
    }

    /** {@code softplus(z) - y z}, with {@code e = exp(-|z|)}: never overflows (see the class comment). */
    private static double logLoss(double z, double y, double e) {
        return Math.max(z, 0) + Math.log1p(e) - y * z;
    }

    /** {@code sigmoid(z)} from {@code e = exp(-|z|)}, on either side of 0 without overflow. */
    private static double sigmoid(double z, double e) {
        return z >= 0 ? 1 / (1 + e) : e / (1 + e);
    }

    @Override
    public int classes() {
        return 2;
    }

    /** P(y = 1) as the sigmoid, from exp(-|z|) on either side of 0 as in the gradient; P(y = 0) its complement. */
    @Override
    public void probabilities(Dataset data, int i, double[] params, double[] out) {
        double z = linear(data.x(), i * features, params);
        double e = Math.exp(-Math.abs(z));
        out[1] = sigmoid(z, e);
        out[0] = z >= 0 ? e / (1 + e) : 1 / (1 + e);
    }

    /** The predicted class of sample i: 1 if the logit is positive. */
    @Override
    public int predict(Dataset data, int i, double[] params) {
        return linear(data.x(), i * features, params) > 0 ? 1 : 0;
    }
}
