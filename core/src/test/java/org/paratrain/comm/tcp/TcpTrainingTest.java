package org.paratrain.comm.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Reduction;
import org.paratrain.data.Dataset;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.LossReduction;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.RankTrainer;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;

/**
 * Training whose ranks talk over TCP gives the bits of {@link Training#local} (the independent
 * reference: ranks as threads, a different transport) at 1, 2 and 3 ranks, full batch and
 * mini-batch, for a logistic regression and an MLP; and the transport's hot path allocates
 * nothing once warm.
 */
class TcpTrainingTest {

    /** 300 samples of 3 features and 3 classes drawn from a fixed seed. */
    static Dataset data() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        int n = 300;
        double[] x = new double[3 * n];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = x[3 * i] * x[3 * i + 1] > 0 ? 1 : 0;
        }
        return new Dataset(x, y, n, 3);
    }

    static TrainSpec spec(String model, int batch) {
        TrainSpec s = TrainSpec.paper().withEpochs(15).withLearningRate(0.01).withMethod(OptimizerSpec.Method.ADAM)
            .withLossReduction(LossReduction.MEAN).withModel(model.equals("mlp")
                ? new ModelSpec.Mlp(List.of(7, 5), MultilayerPerceptron.Activation.RELU,
                    MultilayerPerceptron.Head.SOFTMAX, 2)
                : new ModelSpec.Logistic(true));
        return batch == 0 ? s : s.withBatches(batch, 3);
    }

    @ParameterizedTest(name = "{0}, batch {1}, {2} ranks")
    @CsvSource({"logistic,0,1", "logistic,0,2", "logistic,0,3", "logistic,32,3",
        "mlp,0,2", "mlp,32,2", "mlp,32,3"})
    void trainingOverTcpGivesTheBitsOfTheLocalBackend(String model, int batch, int ranks) {
        Dataset data = data();
        TrainSpec spec = spec(model, batch).withNodes(ranks);
        TrainingResult local = Training.local(data, spec.withNodes(1));
        int classes = spec.check(data);
        List<TrainingResult> tcp = TcpCluster.run(ranks, Duration.ofSeconds(60), comm -> new RankTrainer(comm, data,
            spec.model().newModel(data.features(), classes), spec.optimizer().newOptimizer(spec.totalSteps(data)),
            spec).train(TrainingControl.none()));
        assertArrayEquals(local.params(), tcp.get(0).params(), "parameters differ from 1 local rank");
        assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(tcp.get(0).finalLoss()));
    }

    @Test
    void theHotPathAllocatesNothingOnceWarm() {
        List<Long> bytes = TcpCluster.run(3, Duration.ofSeconds(60), comm -> {
            var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            Allreduce ring = Allreduces.create("ring");
            Allreduce tree = Allreduces.create("tree");
            long[] words = new long[200_000];
            double[] one = new double[1];
            for (int i = 0; i < 20; i++) {
                ring.allreduce(comm, words, 0, words.length, Reduction.WORD_SUM);
                tree.allreduce(comm, one, 0, 1);
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200; i++) {
                ring.allreduce(comm, words, 0, words.length, Reduction.WORD_SUM);
                tree.allreduce(comm, one, 0, 1);
                comm.barrier();
            }
            return mx.getCurrentThreadAllocatedBytes() - before;
        });
        // 600 collectives a rank: a single object a call would be 10 KB or more.
        for (long b : bytes) {
            assertTrue(b < 4096, "a rank allocated " + b + " bytes in 600 collectives over TCP");
        }
    }
}
