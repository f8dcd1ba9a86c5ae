package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * The loss and gradient of the linear models written the straightforward way, independent of
 * the kernels: samples one after another, {@code z = b + w_0 x_0 + w_1 x_1 + ...} as written,
 * every sum in one accumulator. Beside each result, the sum of its terms' magnitudes (each term
 * bounded through absolute values, including the error its own dot product can carry), which
 * scales the tolerance of a comparison.
 */
final class Reference {
    double loss;
    double lossMagnitude;
    final double[] grad;
    final double[] gradMagnitude;

    private Reference(int params) {
        grad = new double[params];
        gradMagnitude = new double[params];
    }

    /** The reference for {@code model} (linear, logistic or softmax) over samples {@code [from, to)}. */
    static Reference of(Model model, int d, int classes, Dataset data, int from, int to, double[] w) {
        Reference r = new Reference(model.parameterCount());
        boolean softmax = model instanceof SoftmaxRegression;
        boolean bias = model.parameterCount() > (softmax ? classes * d : d);
        for (int i = from; i < to; i++) {
            if (softmax) {
                r.softmaxSample(data, i, d, classes, bias, w);
            } else {
                r.linearSample(model instanceof LogisticRegression, data, i, d, bias, w);
            }
        }
        return r;
    }

    /** One sample of linear (squared error) or logistic (log-loss) regression. */
    private void linearSample(boolean logistic, Dataset data, int i, int d, boolean bias, double[] w) {
        double z = bias ? w[d] : 0.0;
        double size = bias ? Math.abs(w[d]) : 0.0;
        for (int j = 0; j < d; j++) {
            z += w[j] * data.x(i, j);
            size += Math.abs(w[j] * data.x(i, j));
        }
        double y = data.y()[i];
        double c;
        if (logistic) {
            double e = Math.exp(-Math.abs(z));
            loss += Math.max(z, 0) + Math.log1p(e) - y * z;
            lossMagnitude += Math.max(z, 0) + Math.log1p(e) + Math.abs(y * z) + size;
            c = (z >= 0 ? 1 / (1 + e) : e / (1 + e)) - y;
            size += 1;
        } else {
            double r = z - y;
            loss += r * r;
            size += Math.abs(y);
            lossMagnitude += size * size;
            c = 2 * r;
            size *= 2;
        }
        for (int j = 0; j < d; j++) {
            grad[j] += c * data.x(i, j);
            gradMagnitude[j] += size * Math.abs(data.x(i, j));
        }
        if (bias) {
            grad[d] += c;
            gradMagnitude[d] += size;
        }
    }

    /** One sample of softmax regression: cross-entropy {@code logsumexp(z) - z_y}. */
    private void softmaxSample(Dataset data, int i, int d, int classes, boolean bias, double[] w) {
        double[] z = new double[classes];
        double size = 0;
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < classes; k++) {
            z[k] = bias ? w[classes * d + k] : 0.0;
            double s = Math.abs(z[k]);
            for (int j = 0; j < d; j++) {
                z[k] += w[k * d + j] * data.x(i, j);
                s += Math.abs(w[k * d + j] * data.x(i, j));
            }
            size = Math.max(size, s);
            max = Math.max(max, z[k]);
        }
        double sum = 0;
        for (int k = 0; k < classes; k++) {
            sum += Math.exp(z[k] - max);
        }
        double lse = max + Math.log(sum);
        int label = (int) data.y()[i];
        loss += lse - z[label];
        lossMagnitude += Math.abs(lse) + Math.abs(z[label]) + 2 * size + 1;
        for (int k = 0; k < classes; k++) {
            double c = Math.exp(z[k] - lse) - (k == label ? 1 : 0);
            for (int j = 0; j < d; j++) {
                grad[k * d + j] += c * data.x(i, j);
                gradMagnitude[k * d + j] += (1 + 2 * size) * Math.abs(data.x(i, j));
            }
            if (bias) {
                grad[classes * d + k] += c;
                gradMagnitude[classes * d + k] += 1 + 2 * size;
            }
        }
    }
}
