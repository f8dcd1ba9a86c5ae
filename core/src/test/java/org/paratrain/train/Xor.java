package org.paratrain.train;

import java.util.List;
import java.util.Random;
import org.paratrain.data.Dataset;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/** The tests' XOR of signs: what a linear model cannot learn and a small network can. */
final class Xor {
    private Xor() { }

    /** {@return {@code n} points uniform in [-1, 1)^2, labelled 1 where both signs agree} */
    static Dataset data(int n) {
        Random rnd = new Random(8);
        double[] x = new double[2 * n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            x[2 * i] = rnd.nextDouble() * 2 - 1;
            x[2 * i + 1] = rnd.nextDouble() * 2 - 1;
            y[i] = (x[2 * i] > 0) == (x[2 * i + 1] > 0) ? 1 : 0;
        }
        return new Dataset(x, y, n, 2);
    }

    /** {@return a 2-8-2 tanh network, Adam, mean loss, mini-batches of 32, 15 epochs} */
    static TrainSpec network() {
        return TrainSpec.paper().withModel(new ModelSpec.Mlp(List.of(8), MultilayerPerceptron.Activation.TANH,
                MultilayerPerceptron.Head.SOFTMAX, 2)).withEpochs(15).withLearningRate(0.02)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(32, 4);
    }
}
