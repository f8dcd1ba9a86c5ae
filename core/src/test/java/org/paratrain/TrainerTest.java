package org.paratrain;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/** The fluent API trains what the lower-level calls train, calls back every epoch, and checks its settings. */
class TrainerTest {
    static final Dataset DATA = new MakeRegression(300, 4, 4, 2.0, 3.0, true).generate(new NumpyRandomState(5)).data();

    @TempDir
    Path dir;

    @Test
    void trainsTheSameBitsAsTheLowerLevelCallAndCallsBackEveryEpoch() {
        List<Integer> seen = new ArrayList<>();
        TrainingResult r = Trainer.on(DATA).linear(true).adam(0.05).cosineSchedule().epochs(40).batchSize(50).meanLoss()
            .nodes(3).onEpoch((epoch, h) -> seen.add(epoch)).run();
        TrainSpec spec = new TrainSpec(new ModelSpec.Linear(true), new OptimizerSpec(OptimizerSpec.Method.ADAM, 0.05, 0.9,
            0, new OptimizerSpec.Schedule.Cosine(), 0), ExchangeSpec.MASTER_WORKER,
            new RunSpec(new RunSpec.Nodes.Count(1), 40, 50, 42, LossReduction.MEAN, 0));
        TrainingResult reference = Training.local(DATA, spec);
        assertEquals(spec.withNodes(3), Trainer.on(DATA).linear(true).adam(0.05).cosineSchedule().epochs(40)
            .batchSize(50).meanLoss().nodes(3).spec(), "the fluent calls build the same specs");
        assertArrayEquals(reference.params(), r.params());
        assertEquals(40, seen.size());
        assertEquals(List.of(1, 2, 3), seen.subList(0, 3));
    }

    /**
     * A callback that sees the parameters and ends the run: at 3 ranks, stopped after epoch 12
     * of 40, the result is a 12-epoch run's at 1 rank, the parameters it saw after epoch 5 are
     * a 5-epoch run's, it cannot write them, and the last checkpoint is of epoch 12.
     */
    @Test
    void aCallbackSeesTheParametersAndEndsTheRunOnEveryRank(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        double[][] atFive = new double[1][];
        boolean[] refused = {false};
        java.util.function.Supplier<Trainer> t = () -> Trainer.on(DATA).linear(true).adam(0.05).batchSize(50)
            .meanLoss();
        TrainingResult r = t.get().epochs(40).nodes(3).checkpoints(dir, 5).onEpoch((epoch, h, w) -> {
            if (epoch == 5) {
                atFive[0] = new double[w.remaining()];
                w.get(atFive[0]);
                try {
                    w.put(0, 1.0);
                } catch (java.nio.ReadOnlyBufferException e) {
                    refused[0] = true;
                }
            }
            return epoch == 12;
        }).run();
        assertEquals(12, r.epochs());
        assertEquals(12, r.history().loss().length);
        assertArrayEquals(t.get().epochs(12).run().params(), r.params(), "the bits of a 12-epoch run at 1 rank");
        assertArrayEquals(t.get().epochs(5).run().params(), atFive[0], "what it saw after epoch 5");
        assertTrue(refused[0], "the parameters are read-only");
        assertEquals(org.paratrain.train.checkpoint.CheckpointStore.fileName(12, 0),
            org.paratrain.train.checkpoint.CheckpointStore.files(dir).getLast().getFileName().toString());
    }

    @Test
    void anMlpRegressorFromArraysIsTheCommandLinesMlpRegressionAtAnyNodeCount() {
        double[][] x = new double[120][2];
        double[] y = new double[120];
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        for (int i = 0; i < x.length; i++) {
            x[i][0] = rnd.nextDouble(-1, 1);
            x[i][1] = rnd.nextDouble(-1, 1);
            y[i] = Math.sin(2 * x[i][0]) + x[i][1] * x[i][1];
        }
        Dataset d = Datasets.of(x, y);
        Trainer t = Trainer.on(d).mlpRegression(16).activation("tanh").adam(0.01).epochs(200).batchSize(40);
        assertEquals("mlp-regression", t.spec().model().kind());
        TrainingResult one = t.run();
        TrainingResult three = Trainer.on(d).mlpRegression(16).activation("tanh").adam(0.01).epochs(200).batchSize(40)
            .nodes(3).run();
        assertArrayEquals(one.params(), three.params(), "the same bits at 3 ranks");
        double variance = 0;
        double mean = java.util.Arrays.stream(y).average().orElseThrow();
        for (double v : y) {
            variance += (v - mean) * (v - mean) / y.length;
        }
        TrainedModel m = Trainer.on(d).mlpRegression(16).activation("tanh").adam(0.01).epochs(200).batchSize(40).fit();
        double mse = 0;
        for (int i = 0; i < x.length; i++) {
            mse += (m.predict(x[i]) - y[i]) * (m.predict(x[i]) - y[i]) / x.length;
        }
        assertTrue(mse < 0.2 * variance, "fits the curve: mse " + mse + " against a variance of " + variance);
    }

    @Test
    void resumesFromItsOwnCheckpointsWithTheSameBits() {
        TrainingResult whole = Trainer.on(DATA).linear(true).momentum(0.01, 0.9).epochs(30).meanLoss().run();
        Trainer.on(DATA).linear(true).momentum(0.01, 0.9).epochs(30).meanLoss().checkpoints(dir, 7).run();
        TrainingResult resumed = Trainer.on(DATA).linear(true).momentum(0.01, 0.9).epochs(30).meanLoss().nodes(2)
            .resumeFrom(dir).run();
        assertArrayEquals(whole.params(), resumed.params());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Trainer.on(DATA).linear(true)
            .momentum(0.02, 0.9).epochs(30).meanLoss().resumeFrom(dir).run());
        assertTrue(e.getMessage().contains("learning_rate"), e.getMessage());
    }

    /** Block boundaries that follow the ranks' speeds, fixed windows or auto, keep one rank's bits. */
    @Test
    void rebalancedRunsGiveTheBitsOfOneRank() {
        TrainingResult one = Trainer.on(DATA).linear(true).gd(0.05).epochs(60).meanLoss().run();
        for (Trainer t : List.of(Trainer.on(DATA).linear(true).gd(0.05).epochs(60).meanLoss().nodes(3).rebalance(2),
            Trainer.on(DATA).linear(true).gd(0.05).epochs(60).meanLoss().nodes(2).rebalanceAuto())) {
            TrainingResult r = t.run();
            assertArrayEquals(one.params(), r.params());
            assertArrayEquals(one.history().loss(), r.history().loss());
            assertEquals(Double.doubleToLongBits(one.finalLoss()), Double.doubleToLongBits(r.finalLoss()));
        }
        assertEquals(2, Trainer.on(DATA).rebalance(2).spec().run().rebalance());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Trainer.on(DATA).rebalance(-1));
        assertTrue(e.getMessage().contains("rebalance"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Trainer.on(DATA).nodes(2).allreduce("shared")
            .rebalance(5).run());
        assertTrue(e.getMessage().contains("shared"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Trainer.on(DATA).nodes(2).allreduce("ring").sum("float")
            .rebalanceAuto().run());
        assertTrue(e.getMessage().contains("float"), e.getMessage());
    }

    @Test
    void badSettingsAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Trainer.on(DATA).epochs(0).run());
        assertTrue(e.getMessage().contains("epochs"), e.getMessage());
    }

    /** The fluent API reaches the one-vector sums and the sharded optimizer, with the bits of the plain run. */
    @Test
    void shardedAndFixedSumRunsGiveTheBitsOfOneRank() {
        TrainingResult one = Trainer.on(DATA).linear(true).adam(0.05).epochs(20).meanLoss().allreduce("ring")
            .sum("fixed:2").run();
        TrainingResult sharded = Trainer.on(DATA).linear(true).adam(0.05).epochs(20).meanLoss().allreduce("ring")
            .sum("fixed:2").shardOptimizer().nodes(3).run();
        assertArrayEquals(one.params(), sharded.params());
    }

    /** Dropout and clipping through the fluent API: in the spec as the command line writes them, the same bits at 1 and 3 ranks. */
    @Test
    void dropoutAndClippingKeepTheirBitsThroughTheFluentApi() {
        java.util.Random r = new java.util.Random(5);
        int n = 240;
        double[] x = new double[n * 3];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < 3; j++) {
                x[i * 3 + j] = r.nextGaussian();
            }
            y[i] = x[i * 3] + x[i * 3 + 1] > 0 ? 1 : 0;
        }
        org.paratrain.data.Dataset d = new org.paratrain.data.Dataset(x, y, n, 3);
        java.util.function.Supplier<Trainer> t = () -> Trainer.on(d).mlp("12,dropout:0.4,6").adam(0.02).clipNorm(0.5)
            .meanLoss().epochs(6).batchSize(30);
        org.paratrain.train.spec.TrainSpec spec = t.get().spec();
        assertEquals("12,dropout:0.4,6", ((org.paratrain.train.spec.ModelSpec.Mlp) spec.model()).layers());
        assertEquals(0.5, spec.optimizer().clipNorm(), 0.0);
        TrainingResult one = t.get().run();
        assertArrayEquals(one.params(), t.get().nodes(3).run().params());
    }

    /** float32 through the fluent API: recorded in the spec, the same bits at 1 and 3 ranks, refused for a linear model. */
    @Test
    void float32NetworksKeepTheirBitsAndLinearModelsRefuseIt() {
        java.util.Random r = new java.util.Random(2);
        int n = 200;
        double[] x = new double[n * 3];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < 3; j++) {
                x[i * 3 + j] = r.nextGaussian();
            }
            y[i] = x[i * 3] > 0 ? 1 : 0;
        }
        org.paratrain.data.Dataset d = new org.paratrain.data.Dataset(x, y, n, 3);
        Trainer t = Trainer.on(d).mlp(5).adam(0.01).meanLoss().epochs(5).batchSize(40).allreduce("ring").float32();
        assertTrue(t.spec().model().precision() == org.paratrain.model.MultilayerPerceptron.Precision.FLOAT32);
        TrainingResult one = t.run();
        TrainingResult three = Trainer.on(d).mlp(5).adam(0.01).meanLoss().epochs(5).batchSize(40).allreduce("ring")
            .float32().nodes(3).run();
        assertArrayEquals(one.params(), three.params());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Trainer.on(DATA).float32().run());
        assertTrue(e.getMessage().contains("precision"), e.getMessage());
    }

    /**
     * {@code sampleWeights}: whole-number weights train as the samples written that often
     * (scikit-learn's reading of sample_weight), at 1 and 3 ranks; the count must match.
     */
    @Test
    void sampleWeightsTrainAsDuplicatedSamples() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        int n = 40;
        double[][] rows = new double[n][2];
        double[] y = new double[n];
        double[] w = new double[n];
        List<double[]> copyRows = new ArrayList<>();
        List<Double> copyY = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows[i] = new double[] {r.nextGaussian(), r.nextGaussian()};
            y[i] = 2 * rows[i][0] - rows[i][1] + 0.1 * r.nextGaussian();
            w[i] = r.nextInt(4);
            for (int k = 0; k < w[i]; k++) {
                copyRows.add(rows[i]);
                copyY.add(y[i]);
            }
        }
        Dataset copies = Datasets.of(copyRows.toArray(double[][]::new), copyY.stream().mapToDouble(Double::doubleValue)
            .toArray());
        for (int nodes : new int[] {1, 3}) {
            double[] weighted = Trainer.on(Datasets.of(rows, y)).sampleWeights(w).gd(0.005).epochs(100).nodes(nodes)
                .run().params();
            double[] duplicated = Trainer.on(copies).gd(0.005).epochs(100).nodes(nodes).run().params();
            assertArrayEquals(duplicated, weighted, 1e-9, nodes + " ranks");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Trainer.on(Datasets.of(rows, y)).sampleWeights(1, 2));
        assertTrue(e.getMessage().contains("2 weights for 40 samples"), e.getMessage());
    }
}
