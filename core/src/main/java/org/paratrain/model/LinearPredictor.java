package org.paratrain.model;

/**
 * What linear and logistic regression share: parameters {@code [w_0 .. w_{d-1}, b?]} and the
 * linear predictor {@code w.x + b} of a sample.
 */
abstract class LinearPredictor implements Model {
    /** Number of input features. */
    protected final int features;
    /** Whether the last parameter is a bias. */
    protected final boolean intercept;

    LinearPredictor(int features, boolean intercept) {
        if (features < 1) {
            throw new IllegalArgumentException("features must be at least 1, got " + features);
        }
        this.features = features;
        this.intercept = intercept;
    }

    @Override
    public final int parameterCount() {
        return features + (intercept ? 1 : 0);
    }

    /** Whether the last parameter is a bias. */
    final boolean intercept() {
        return intercept;
    }

    /**
     * {@code w.x (+ b)} for the sample whose features start at {@code row}: one fused chain from
     * the bias ({@link Rows#dot}), the same bits as the training kernels' value for the sample.
     */
    protected final double linear(double[] x, int row, double[] params) {
        return Rows.dot(bias(params), params, 0, x, row, features);
    }

    /** {@return the bias b, or 0 without an intercept} */
    final double bias(double[] params) {
        return intercept ? params[features] : 0.0;
    }
}
