package org.paratrain.optim;

/**
 * Gradient descent, the paper's rule {@code w = w - lr * g}, with optional momentum
 * (heavy ball, or Nesterov's look-ahead) and weight decay.
 *
 * <p>Momentum keeps a velocity {@code v = mu v + g'} where {@code g' = g + decay w}; the plain
 * update is {@code w -= lr v}, Nesterov's {@code w -= lr (g' + mu v)}. With {@code mu = 0} and
 * no decay this is exactly {@code w -= lr g}, bit for bit.
 *
 * <p>Call order: one instance per rank and run; {@link #step} once per update.
 */
public final class GradientDescent implements Optimizer {
    private final LearningRateSchedule schedule;
    private final double momentum;
    private final boolean nesterov;
    private final double weightDecay;
    private double[] velocity;
    private long steps;
    private double lastRate = Double.NaN;
    /** What the schedule's rate is multiplied by (a plateau's reductions); 1 leaves its bits alone. */
    private double factor = 1.0;

    /**
     * Plain gradient descent with a constant learning rate: the paper's {@code w -= lr g}.
     *
     * @param learningRate lr, positive and finite
     */
    public GradientDescent(double learningRate) {
        this(LearningRateSchedule.constant(learningRate), 0.0, false, 0.0);
    }

    /**
     * Gradient descent with every setting given.
     *
     * @param schedule    learning rate by step
     * @param momentum    mu in [0, 1)
     * @param nesterov    Nesterov's look-ahead form (needs momentum > 0)
     * @param weightDecay L2 coefficient added to the gradient, at least 0
     */
    public GradientDescent(LearningRateSchedule schedule, double momentum, boolean nesterov, double weightDecay) {
        if (!(momentum >= 0 && momentum < 1)) {
            throw new IllegalArgumentException("--momentum must be in [0, 1), got " + momentum);
        }
        if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
            throw new IllegalArgumentException("--weight-decay must be a finite number >= 0, got " + weightDecay);
        }
        this.schedule = schedule;
        this.momentum = momentum;
        this.nesterov = nesterov;
        this.weightDecay = weightDecay;
    }

    @Override
    public void step(double[] params, double[] grad, int from, int to) {
        double lr = schedule.rate(steps++) * factor;
        lastRate = lr;
        if (momentum == 0 && weightDecay == 0) {
            for (int j = from; j < to; j++) {
                params[j] -= lr * grad[j];
            }
            return;
        }
        if (velocity == null) {
            velocity = new double[to - from];
        }
        for (int j = from; j < to; j++) {
            double g = grad[j] + weightDecay * params[j];
            int k = j - from;
            velocity[k] = momentum * velocity[k] + g;
            params[j] -= lr * (nesterov ? g + momentum * velocity[k] : velocity[k]);
        }
    }

    @Override
    public void scaleLearningRate(double f) {
        if (!(f > 0 && f < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("a learning rate factor must be positive and finite, got " + f);
        }
        factor = f;
    }

    @Override
    public double learningRate() {
        return lastRate;
    }

    @Override
    public String name() {
        return momentum == 0 ? "gd" : nesterov ? "nesterov" : "momentum";
    }

    /** No scalars; one vector, the velocity (empty until momentum or decay has made it). */
    @Override
    public OptimizerState state() {
        return new OptimizerState(name(), steps, new double[0], new double[][] {velocity});
    }

    @Override
    public void restore(OptimizerState s) {
        s.expect(name(), 0, 1);
        steps = s.steps();
        lastRate = steps == 0 ? Double.NaN : schedule.rate(steps - 1) * factor;
        velocity = s.vector(0).length == 0 ? null : s.vector(0);
    }
}
