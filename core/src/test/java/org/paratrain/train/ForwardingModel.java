package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.model.Model;

/**
 * A model that passes every call to another, for tests' wrappers that change one of them.
 * {@link #blocks} is not passed on: it stays {@link Model}'s loop over {@link #lossAndGradient},
 * so a wrapper of that method sees every block.
 */
abstract class ForwardingModel implements Model {
    /** The model every call goes to. */
    final Model inner;

    ForwardingModel(Model inner) {
        this.inner = inner;
    }

    @Override
    public int parameterCount() {
        return inner.parameterCount();
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        return inner.lossAndGradient(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return inner.loss(data, from, to, params);
    }

    @Override
    public void trainingStep(long seed, long step, long firstRow) {
        inner.trainingStep(seed, step, firstRow);
    }

    @Override
    public void initialize(double[] params, long seed) {
        inner.initialize(params, seed);
    }
}
