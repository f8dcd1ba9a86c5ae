package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.tcp.TcpCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * Ranks that hold only their own rows (as Spark's tasks do) and talk over TCP train to the
 * bits of {@link Training#local} on the whole data set, the parameters, the final loss and the
 * training accuracy, full batch and mini-batch, at 1 to 3 ranks.
 */
class RankTrainingTest {

    static Dataset data(int n) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        double[] x = new double[3 * n];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = x[3 * i] + 0.5 * x[3 * i + 2] > 0.2 ? 1 : 0;
        }
        return new Dataset(x, y, n, 3);
    }

    static TrainSpec spec(String model, int batch, int ranks) {
        TrainSpec s = TrainSpec.paper().withEpochs(12).withLearningRate(0.02).withMethod(OptimizerSpec.Method.ADAM)
            .withLossReduction(LossReduction.MEAN).withNodes(ranks).withModel(model.equals("mlp")
                ? new ModelSpec.Mlp(List.of(6), MultilayerPerceptron.Activation.TANH, MultilayerPerceptron.Head.SOFTMAX, 2)
                : new ModelSpec.Logistic(true));
        return batch == 0 ? s : s.withBatches(batch, 5);
    }

    static Dataset rows(Dataset d, int from, int to) {
        int f = d.features();
        return new Dataset(Arrays.copyOfRange(d.x(), from * f, to * f), Arrays.copyOfRange(d.y(), from, to),
            to - from, f);
    }

    @ParameterizedTest(name = "{0}, batch {1}, {2} ranks")
    @CsvSource({"logistic,0,1", "logistic,0,2", "logistic,0,3", "logistic,25,3", "mlp,0,3", "mlp,16,2", "mlp,16,3"})
    void ranksHoldingOnlyTheirRowsGiveTheBitsOfOneLocalRank(String model, int batch, int ranks) {
        Dataset data = data(437);
        TrainSpec spec = spec(model, batch, ranks);
        TrainingResult local = Training.local(data, spec.withNodes(1));
        List<TrainingResult> got = TcpCluster.run(ranks, Duration.ofSeconds(60), comm -> {
            int[] own = RankTraining.ownedRows(spec, data.samples(), comm.rank(), ranks);
            return RankTraining.train(comm, rows(data, own[0], own[1]), data.samples(), 2, spec, TrainingControl.none());
        });
        assertArrayEquals(local.params(), got.get(0).params());
        assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(got.get(0).finalLoss()));
        assertEquals(local.trainAccuracy(), got.get(0).trainAccuracy());
        assertTrue(local.trainAccuracy() > 0.8, "accuracy " + local.trainAccuracy());
    }

    @ParameterizedTest(name = "{0} ranks")
    @CsvSource({"1", "2", "3", "5"})
    void theStandardizerOfRanksInTurnIsTheBitsOfOneFitOnAllRows(int ranks) {
        Dataset raw = data(203);
        double[] x = raw.x().clone();
        for (int i = 0; i < x.length; i++) {
            x[i] = x[i] * (1 + i % 3) + (i % 3 == 1 ? 1e6 : -3);     // offsets where a naive sum of squares loses digits
        }
        Dataset data = new Dataset(x, raw.y(), raw.samples(), raw.features());
        TrainSpec spec = spec("logistic", 0, ranks).withBlockSize(13);
        org.paratrain.data.Standardizer whole = org.paratrain.data.Standardizer.fit(data);
        List<org.paratrain.data.Standardizer> got = TcpCluster.run(ranks, Duration.ofSeconds(30), comm -> {
            int[] own = RankTraining.ownedRows(spec, data.samples(), comm.rank(), ranks);
            return RankTraining.standardizer(comm, rows(data, own[0], own[1]));
        });
        for (org.paratrain.data.Standardizer s : got) {
            assertArrayEquals(whole.mean(), s.mean());
            assertArrayEquals(whole.scale(), s.scale());
        }
        // The reference itself: the mean and population deviation of each column, exactly, to rounding.
        for (int j = 0; j < 3; j++) {
            java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
            for (int i = 0; i < data.samples(); i++) {
                sum = sum.add(new java.math.BigDecimal(data.x(i, j)));
            }
            double mean = sum.divide(java.math.BigDecimal.valueOf(data.samples()), java.math.MathContext.DECIMAL128)
                .doubleValue();
            assertEquals(mean, whole.mean()[j], Math.abs(mean) * 1e-14 + 1e-14);
        }
    }

    @Test
    void theRowsAreGatheredInSampleOrder() {
        Dataset data = data(101);
        TrainSpec spec = spec("logistic", 10, 3).withBlockSize(7);
        List<Dataset> all = TcpCluster.run(3, Duration.ofSeconds(30), comm -> {
            int[] own = RankTraining.ownedRows(spec, data.samples(), comm.rank(), 3);
            return RankTraining.allRows(comm, rows(data, own[0], own[1]), data.samples(), spec);
        });
        for (Dataset d : all) {
            assertArrayEquals(data.x(), d.x());
            assertArrayEquals(data.y(), d.y());
        }
    }

    @Test
    void rowsThatAreNotTheRanksOwnAreRefusedByName() {
        Dataset data = data(100);
        TrainSpec spec = spec("logistic", 0, 2);
        RankFailedException e = assertThrows(RankFailedException.class, () -> TcpCluster.run(2, Duration.ofSeconds(30),
            comm -> RankTraining.train(comm, rows(data, 0, 10), data.samples(), 2, spec, TrainingControl.none())));
        assertTrue(String.valueOf(e.getMessage()).contains("must hold samples ["), e.getMessage());
    }
}
