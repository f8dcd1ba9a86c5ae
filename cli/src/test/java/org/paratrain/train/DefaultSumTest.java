package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeClassification;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.cli.experiment.PaperSetup;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * One default sum: without {@code --sum}, every exchange (the paper's master-worker, the shared
 * step, every allreduce) ends with the bits of one rank, at 1, 2 and 3 ranks, for the paper's
 * model, a logistic regression and an MLP on mini-batches. Before, master-worker and shared
 * summed by block and the allreduces onto the fixed-point grid, so the same command with
 * {@code --allreduce ring} gave other bits.
 */
class DefaultSumTest {
    static Stream<Arguments> workloads() {
        Dataset paper = PaperSetup.data();
        Dataset classes = new MakeClassification(300, 6, 4, 2, 0, 2, 2, null, 0.01, 1.0, true, 0.0, 1.0, true)
            .generate(new NumpyRandomState(5));
        Dataset regression = new MakeRegression(400, 5, 3, 0.5, 2.0, true).generate(new NumpyRandomState(9)).data();
        return Stream.of(
            Arguments.of("the paper's model", paper, TrainSpec.paper().withEpochs(50)),
            Arguments.of("logistic regression", classes, TrainSpec.paper().withEpochs(40).withLearningRate(1e-3)
                .withModel(new ModelSpec.Logistic(true))),
            Arguments.of("mlp on mini-batches", regression, TrainSpec.paper().withEpochs(6).withLearningRate(1e-3)
                .withMethod(OptimizerSpec.Method.ADAM).withBatches(64, 5).withModel(new ModelSpec.Mlp(List.of(8),
                    MultilayerPerceptron.Activation.TANH, MultilayerPerceptron.Head.SQUARED, 0))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("workloads")
    void everyExchangeGivesTheBitsOfOneRankByDefault(String name, Dataset data, TrainSpec spec) {
        assertEquals(ExchangeSpec.Sum.DEFAULT_FIXED, spec.exchange().sum(), "the paper's spec takes the default");
        TrainingResult one = Training.local(data, spec.withNodes(1));
        for (String exchange : List.of("master-worker", "shared", "star", "tree", "ring", "recursive-doubling",
            "rabenseifner")) {
            for (int p = 1; p <= 3; p++) {
                TrainingResult r = Training.local(data, spec.withNodes(p).withExchange(ExchangeSpec.parse(exchange)));
                String what = name + ", " + exchange + " at " + p;
                assertArrayEquals(bits(one.params()), bits(r.params()), what);
                assertEquals(Double.doubleToRawLongBits(one.finalLoss()), Double.doubleToRawLongBits(r.finalLoss()),
                    what);
                assertArrayEquals(bits(one.history().loss()), bits(r.history().loss()), what);
            }
        }
    }

    private static long[] bits(double[] v) {
        long[] b = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = Double.doubleToRawLongBits(v[i]);
        }
        return b;
    }
}
