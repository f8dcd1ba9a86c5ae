package org.paratrain.optim;

/**
 * An optimizer that hands everything to another one: a wrapper overrides what it changes (the
 * update, {@link #step(double[], double[], int, int)}) and inherits the rest, so the name, the
 * learning rate and the state a checkpoint keeps stay the wrapped optimizer's.
 */
public abstract class ForwardingOptimizer implements Optimizer {
    /** The optimizer wrapped. */
    protected final Optimizer inner;

    /**
     * @param inner the optimizer everything goes to
     */
    protected ForwardingOptimizer(Optimizer inner) {
        this.inner = inner;
    }

    @Override
    public void step(double[] params, double[] grad, int from, int to) {
        inner.step(params, grad, from, to);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public double learningRate() {
        return inner.learningRate();
    }

    @Override
    public void scaleLearningRate(double factor) {
        inner.scaleLearningRate(factor);
    }

    @Override
    public OptimizerState state() {
        return inner.state();
    }

    @Override
    public void restore(OptimizerState state) {
        inner.restore(state);
    }
}
