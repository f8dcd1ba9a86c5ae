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

    @Override
    public String name() {
        return "logistic";
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        double[] x = data.x();
        double[] y = data.y();
        int d = features;
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            double z = linear(x, i * d, params);
            double e = Math.exp(-Math.abs(z));
            loss += Math.max(z, 0) + Math.log1p(e) - y[i] * z;
            double sigmoid = z >= 0 ? 1 / (1 + e) : e / (1 + e);
            double r = sigmoid - y[i];
            for (int j = 0; j < d; j++) {
                grad[offset + j] += r * x[i * d + j];
            }
            if (intercept) {
                grad[offset + d] += r;
            }
        }
        return loss;
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        double[] x = data.x();
        double[] y = data.y();
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            double z = linear(x, i * features, params);
            loss += Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - y[i] * z;
        }
        return loss;
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
        out[1] = z >= 0 ? 1 / (1 + e) : e / (1 + e);
        out[0] = z >= 0 ? e / (1 + e) : 1 / (1 + e);
    }

    /** The predicted class of sample i: 1 if the logit is positive. */
    @Override
    public int predict(Dataset data, int i, double[] params) {
        return linear(data.x(), i * features, params) > 0 ? 1 : 0;
    }
}
