package org.paratrain.optim;

/**
 * Gradient clipping by global norm, around another update rule: when the Euclidean norm of the
 * whole combined gradient exceeds {@code maxNorm}, the rule is given the gradient scaled by
 * {@code maxNorm / norm} (PyTorch's {@code clip_grad_norm_}, Keras's {@code global_clipnorm}).
 *
 * <p>It runs after the exact sum across ranks, on the combined gradient every rank holds with
 * the same bits, and the norm is one loop in parameter order: every rank computes the same
 * factor, at any node count. The scaled gradient goes into a buffer of this instance (the
 * caller's gradient is not changed), grown once, so a step allocates nothing.
 *
 * <p>Call order: as the wrapped rule's. Its state is the wrapped rule's state, and its name the
 * wrapped rule's, so checkpoints are read back by either.
 */
public final class GlobalNormClipping extends ForwardingOptimizer {
    private final double maxNorm;
    private double[] scaled = new double[0];
    private double lastNorm = Double.NaN;

    /**
     * Clipping around {@code inner}.
     *
     * @param inner   the update rule the clipped gradient goes to
     * @param maxNorm the largest norm let through, positive and finite
     */
    public GlobalNormClipping(Optimizer inner, double maxNorm) {
        super(inner);
        if (!(maxNorm > 0 && maxNorm < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("a clipping norm must be positive and finite, got " + maxNorm);
        }
        this.maxNorm = maxNorm;
    }

    /**
     * {@inheritDoc} Only the whole vector can be clipped: its norm needs every parameter.
     *
     * @throws IllegalStateException for a range other than the whole vector (a sharded optimizer)
     */
    @Override
    public void step(double[] params, double[] grad, int from, int to) {
        if (from != 0 || to != params.length) {
            throw new IllegalStateException("clipping by global norm needs the whole gradient, got parameters ["
                + from + ", " + to + ") of " + params.length + " (a sharded optimizer)");
        }
        double sum = 0.0;
        for (int j = 0; j < to; j++) {
            sum += grad[j] * grad[j];
        }
        double norm = Math.sqrt(sum);
        lastNorm = norm;
        if (!(norm > maxNorm)) {     // within the bound, or NaN: the rule sees the gradient as it is
            inner.step(params, grad, from, to);
            return;
        }
        if (scaled.length < to) {
            scaled = new double[to];
        }
        double f = maxNorm / norm;
        for (int j = 0; j < to; j++) {
            scaled[j] = grad[j] * f;
        }
        inner.step(params, scaled, from, to);
    }

    /** {@return the norm of the last step's gradient before clipping, NaN before the first} */
    public double lastNorm() {
        return lastNorm;
    }
}
