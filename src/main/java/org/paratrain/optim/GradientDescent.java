package org.paratrain.optim;

/** Plain gradient descent, the paper's rule: {@code w = w - lr * gradient}. */
public final class GradientDescent implements Optimizer {
    private final double learningRate;

    /** @param learningRate step size, positive and finite */
    public GradientDescent(double learningRate) {
        if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
            throw new IllegalArgumentException("--lr must be a positive finite number, got " + learningRate);
        }
        this.learningRate = learningRate;
    }

    @Override
    public void step(double[] params, double[] grad) {
        for (int j = 0; j < params.length; j++) {
            params[j] -= learningRate * grad[j];
        }
    }

    @Override
    public String name() {
        return "gd";
    }
}
