package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * Linear regression {@code y = w.x (+ b)} with the sum of squared errors as loss, as in
 * the paper: {@code L = sum_i (w.x_i + b - y_i)^2}, {@code dL/dw = sum_i 2 r_i x_i}.
 *
 * <p>Parameters are {@code [w_0 .. w_{d-1}]}, then {@code b} when the model has an
 * intercept. The per-sample residual is computed once and reused for the loss and every
 * partial derivative; the sums run in sample order, which fixes the rounding.
 */
public final class LinearRegression implements Model {
    private final int features;
    private final boolean intercept;

    /** @param features number of input features @param intercept whether to learn a bias term */
    public LinearRegression(int features, boolean intercept) {
        if (features < 1) {
            throw new IllegalArgumentException("features must be at least 1, got " + features);
        }
        this.features = features;
        this.intercept = intercept;
    }

    @Override
    public int parameterCount() {
        return features + (intercept ? 1 : 0);
    }

    @Override
    public String name() {
        return "linear";
    }

    /** Whether the last parameter is a bias. */
    public boolean intercept() {
        return intercept;
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        double[] x = data.x();
        double[] y = data.y();
        int d = features;
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            double r = predict(x, i * d, params) - y[i];
            loss += r * r;
            double twoR = 2.0 * r;
            for (int j = 0; j < d; j++) {
                grad[offset + j] += twoR * x[i * d + j];
            }
            if (intercept) {
                grad[offset + d] += twoR;
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
            double r = predict(x, i * features, params) - y[i];
            loss += r * r;
        }
        return loss;
    }

    /** w.x_i (+ b) for the sample whose features start at {@code row}. */
    private double predict(double[] x, int row, double[] params) {
        double s = intercept ? params[features] : 0.0;
        for (int j = 0; j < features; j++) {
            s += params[j] * x[row + j];
        }
        return s;
    }
}
