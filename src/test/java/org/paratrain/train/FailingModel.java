package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.model.Model;

/** A model that throws in the given epoch, to test failure handling. */
final class FailingModel implements Model {
    private final Model inner;
    private final int failAtEpoch;
    private int epoch;
    private int firstFrom = -1;

    FailingModel(Model inner, int failAtEpoch) {
        this.inner = inner;
        this.failAtEpoch = failAtEpoch;
    }

    @Override
    public int parameterCount() {
        return inner.parameterCount();
    }

    @Override
    public String name() {
        return "failing";
    }

    @Override
    public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
        if (firstFrom < 0) {
            firstFrom = from;
        }
        if (from == firstFrom) {
            epoch++;   // a rank visits its first block once per epoch
        }
        if (epoch == failAtEpoch) {
            throw new IllegalStateException("injected failure");
        }
        return inner.lossAndGradient(data, from, to, params, grad, offset);
    }

    @Override
    public double loss(Dataset data, int from, int to, double[] params) {
        return inner.loss(data, from, to, params);
    }
}
