package org.paratrain.optim;

/**
 * Adam (Kingma and Ba, 2015): per-parameter steps scaled by running estimates of the
 * gradient's first and second moments, with bias correction; weight decay is decoupled
 * (AdamW: applied to the weights, not mixed into the moments).
 *
 * <p>Numerics: the bias corrections {@code 1 - beta^t} are computed from running products,
 * not powers, and epsilon is added to the square root (not under it), as in the paper.
 *
 * <p>Call order: one instance per rank and run; {@link #step} once per update.
 */
public final class Adam implements Optimizer {
    private final LearningRateSchedule schedule;
    private final double beta1;
    private final double beta2;
    private final double epsilon;
    private final double weightDecay;
    private double[] m;
    private double[] v;
    private double beta1Power = 1.0;
    private double beta2Power = 1.0;
    private long steps;
    private double lastRate = Double.NaN;

    /**
     * Adam with every setting given.
     *
     * @param schedule    learning rate by step
     * @param beta1       first-moment decay in [0, 1), usually 0.9
     * @param beta2       second-moment decay in [0, 1), usually 0.999
     * @param epsilon     added to the denominator, positive
     * @param weightDecay decoupled decay coefficient, at least 0
     */
    public Adam(LearningRateSchedule schedule, double beta1, double beta2, double epsilon, double weightDecay) {
        if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
            throw new IllegalArgumentException("Adam's betas must be in [0, 1), got " + beta1 + " and " + beta2);
        }
        if (!(epsilon > 0) || !(weightDecay >= 0)) {
            throw new IllegalArgumentException("Adam needs epsilon > 0 and --weight-decay >= 0");
        }
        this.schedule = schedule;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.epsilon = epsilon;
        this.weightDecay = weightDecay;
    }

    /**
     * {@return Adam with the defaults of Kingma and Ba's paper (0.9, 0.999, 1e-8) and no decay}
     * @param schedule learning rate by step
     */
    public static Adam withDefaults(LearningRateSchedule schedule) {
        return new Adam(schedule, 0.9, 0.999, 1e-8, 0.0);
    }

    @Override
    public void step(double[] params, double[] grad, int from, int to) {
        if (m == null) {
            m = new double[to - from];
            v = new double[to - from];
        }
        double lr = schedule.rate(steps++);
        lastRate = lr;
        beta1Power *= beta1;
        beta2Power *= beta2;
        double c1 = 1 - beta1Power;
        double c2 = 1 - beta2Power;
        for (int j = from; j < to; j++) {
            double g = grad[j];
            int k = j - from;
            m[k] = beta1 * m[k] + (1 - beta1) * g;
            v[k] = beta2 * v[k] + (1 - beta2) * g * g;
            double mHat = m[k] / c1;
            double vHat = v[k] / c2;
            params[j] -= lr * (mHat / (Math.sqrt(vHat) + epsilon) + weightDecay * params[j]);
        }
    }

    @Override
    public double learningRate() {
        return lastRate;
    }

    @Override
    public String name() {
        return "adam";
    }

    /** Scalars: the running powers of beta1 and beta2; vectors: the first and second moments. */
    @Override
    public OptimizerState state() {
        return new OptimizerState(name(), steps, new double[] {beta1Power, beta2Power}, new double[][] {m, v});
    }

    @Override
    public void restore(OptimizerState s) {
        s.expect(name(), 2, 2);
        steps = s.steps();
        lastRate = steps == 0 ? Double.NaN : schedule.rate(steps - 1);
        double[] powers = s.scalars();
        beta1Power = powers[0];
        beta2Power = powers[1];
        m = s.vector(0).length == 0 ? null : s.vector(0);
        v = s.vector(1).length == 0 ? null : s.vector(1);
    }
}
