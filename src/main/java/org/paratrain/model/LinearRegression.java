package org.paratrain.model;

import org.paratrain.data.Dataset;

/**
 * Linear regression {@code y = w.x (+ b)} with the sum of squared errors as loss, as in
 * the paper: {@code L = sum_i (w.x_i + b - y_i)^2}, {@code dL/dw = sum_i 2 r_i x_i}.
 *
 * <p>Parameters are {@code [w_0 .. w_{d-1}]}, then {@code b} when the model has an
 * intercept. The per-sample residual is computed once and reused for the loss and every
 * partial derivative.
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

    /**
     * Four samples at a time: their losses go to four separate accumulators and their
     * gradient terms are added pairwise before they reach {@code grad}, which cuts the
     * chains of dependent additions (the bound on speed for few features) by four. The
     * grouping is fixed by sample index, so the rounding does not depend on the caller.
     */
    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        if (features == 1) {
            return lossAndGradientOneFeature(data, from, to, params, grad, offset);
        }
        double[] x = data.x();
        double[] y = data.y();
        int d = features;
        double l0 = 0.0;
        double l1 = 0.0;
        double l2 = 0.0;
        double l3 = 0.0;
        int i = from;
        for (; i + 3 < to; i += 4) {
            int a = i * d;
            double r0 = 2.0 * (linear(x, a, params) - y[i]);
            double r1 = 2.0 * (linear(x, a + d, params) - y[i + 1]);
            double r2 = 2.0 * (linear(x, a + 2 * d, params) - y[i + 2]);
            double r3 = 2.0 * (linear(x, a + 3 * d, params) - y[i + 3]);
            l0 += r0 * r0;
            l1 += r1 * r1;
            l2 += r2 * r2;
            l3 += r3 * r3;
            for (int j = 0; j < d; j++) {
                grad[offset + j] += (r0 * x[a + j] + r1 * x[a + d + j]) + (r2 * x[a + 2 * d + j] + r3 * x[a + 3 * d + j]);
            }
            if (intercept) {
                grad[offset + d] += (r0 + r1) + (r2 + r3);
            }
        }
        for (; i < to; i++) {
            double r = 2.0 * (linear(x, i * d, params) - y[i]);
            l0 += r * r;
            for (int j = 0; j < d; j++) {
                grad[offset + j] += r * x[i * d + j];
            }
            if (intercept) {
                grad[offset + d] += r;
            }
        }
        // r holds twice the residual, so each accumulated square is four times the loss term.
        return ((l0 + l1) + (l2 + l3)) * 0.25;
    }

    /**
     * The paper's case, one feature, with every accumulator in a register: four lanes of
     * samples, each with its own sums, added pairwise at the end. With one feature the
     * general path would read and write {@code grad} in memory for every group, and that
     * chain, not arithmetic, would set its speed. Here arithmetic does: the factor 2 of the
     * derivative is applied once per block (multiplying by 2 is exact, so this changes no
     * bit), and without an intercept neither the bias nor its gradient costs an operation.
     */
    private double lossAndGradientOneFeature(Dataset data, int from, int to, double[] params, double[] grad,
                                             int offset) {
        double[] x = data.x();
        double[] y = data.y();
        double w = params[0];
        if (intercept) {
            return oneFeatureWithBias(x, y, from, to, w, params[1], grad, offset);
        }
        double l0 = 0.0;
        double l1 = 0.0;
        double l2 = 0.0;
        double l3 = 0.0;
        double g0 = 0.0;
        double g1 = 0.0;
        double g2 = 0.0;
        double g3 = 0.0;
        int i = from;
        for (; i + 3 < to; i += 4) {
            double r0 = w * x[i] - y[i];
            double r1 = w * x[i + 1] - y[i + 1];
            double r2 = w * x[i + 2] - y[i + 2];
            double r3 = w * x[i + 3] - y[i + 3];
            l0 += r0 * r0;
            l1 += r1 * r1;
            l2 += r2 * r2;
            l3 += r3 * r3;
            g0 += r0 * x[i];
            g1 += r1 * x[i + 1];
            g2 += r2 * x[i + 2];
            g3 += r3 * x[i + 3];
        }
        for (; i < to; i++) {
            double r = w * x[i] - y[i];
            l0 += r * r;
            g0 += r * x[i];
        }
        grad[offset] += 2.0 * ((g0 + g1) + (g2 + g3));
        return (l0 + l1) + (l2 + l3);
    }

    private static double oneFeatureWithBias(double[] x, double[] y, int from, int to, double w, double b,
                                             double[] grad, int offset) {
        double l0 = 0.0;
        double l1 = 0.0;
        double g0 = 0.0;
        double g1 = 0.0;
        double c0 = 0.0;
        double c1 = 0.0;
        int i = from;
        for (; i + 1 < to; i += 2) {
            double r0 = w * x[i] + b - y[i];
            double r1 = w * x[i + 1] + b - y[i + 1];
            l0 += r0 * r0;
            l1 += r1 * r1;
            g0 += r0 * x[i];
            g1 += r1 * x[i + 1];
            c0 += r0;
            c1 += r1;
        }
        if (i < to) {
            double r = w * x[i] + b - y[i];
            l0 += r * r;
            g0 += r * x[i];
            c0 += r;
        }
        grad[offset] += 2.0 * (g0 + g1);
        grad[offset + 1] += 2.0 * (c0 + c1);
        return l0 + l1;
    }

    @Override
    public double output(Dataset data, int i, double[] params) {
        return linear(data.x(), i * features, params);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        double[] x = data.x();
        double[] y = data.y();
        double loss = 0.0;
        for (int i = from; i < to; i++) {
            double r = linear(x, i * features, params) - y[i];
            loss += r * r;
        }
        return loss;
    }
}
