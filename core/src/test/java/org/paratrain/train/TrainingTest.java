package org.paratrain.train;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.model.LinearRegression;
import org.paratrain.optim.GradientDescent;

class TrainingTest {
    static final Dataset PAPER = new MakeRegression(500, 1, 1, 0.0, 10.0, true)
        .generate(new NumpyRandomState(42)).data();

    @Test
    void convergesToTheLeastSquaresSolution() {
        TrainingResult r = Training.local(PAPER, TrainSpec.paper());
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < PAPER.samples(); i++) {
            sxy += PAPER.x()[i] * PAPER.y()[i];
            sxx += PAPER.x()[i] * PAPER.x()[i];
        }
        double w = sxy / sxx;
        assertEquals(w, r.params()[0], 1e-9 * Math.abs(w));
        double sse = 0;
        for (int i = 0; i < PAPER.samples(); i++) {
            double e = w * PAPER.x()[i] - PAPER.y()[i];
            sse += e * e;
        }
        assertEquals(sse, r.finalLoss(), 1e-9 * sse);
        assertEquals(300, r.history().loss().length);
        assertTrue(r.history().loss()[0] > r.history().loss()[299]);
    }

    @Test
    void interceptAndMeanLossReachTheNormalEquations() {
        Dataset data = new MakeRegression(200, 3, 3, 4.0, 1.0, true).generate(new NumpyRandomState(1)).data();
        TrainSpec cfg = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withLossReduction(LossReduction.MEAN)
            .withLearningRate(0.1).withEpochs(2000).withNodes(3);
        double[] expected = LeastSquares.solve(data, true);
        double[] got = Training.local(data, cfg).params();
        for (int j = 0; j < expected.length; j++) {
            assertEquals(expected[j], got[j], 1e-8 * Math.max(1, Math.abs(expected[j])), "parameter " + j);
        }
    }

    /** Same data, same block size: the same bits at every node count from 1 to 33. */
    @Test
    void identicalBitsAtEveryNodeCount() {
        TrainingResult one = Training.local(PAPER, TrainSpec.paper());
        for (int p = 2; p <= 33; p++) {
            TrainingResult r = Training.local(PAPER, TrainSpec.paper().withNodes(p));
            assertEquals(Double.doubleToRawLongBits(one.params()[0]), Double.doubleToRawLongBits(r.params()[0]),
                "weight at " + p + " nodes");
            assertEquals(Double.doubleToRawLongBits(one.finalLoss()), Double.doubleToRawLongBits(r.finalLoss()),
                "loss at " + p + " nodes");
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, "history at " + p + " nodes");
            assertEquals(p, r.nodes());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 500})
    void identicalBitsForAnyBlockSizeAcrossNodeCounts(int blockSize) {
        Dataset data = new MakeRegression(500, 5, 3, 1.0, 2.0, true).generate(new NumpyRandomState(9)).data();
        TrainSpec cfg = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withBlockSize(blockSize).withEpochs(50);
        double[] one = Training.local(data, cfg).params();
        for (int p : new int[] {2, 3, 8, 13}) {
            assertArrayEquals(one, Training.local(data, cfg.withNodes(p)).params(), 0.0, p + " nodes");
        }
    }

    /** Any allreduce algorithm gives the bits of one rank with the paper's exchange. */
    @ParameterizedTest
    @ValueSource(strings = {"star", "tree", "recursive-doubling", "ring", "rabenseifner"})
    void everyAllreduceGivesTheBitsOfOneRank(String algorithm) {
        Dataset data = new MakeRegression(700, 3, 2, 0.5, 3.0, true).generate(new NumpyRandomState(4)).data();
        TrainSpec cfg = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(60);
        // The block table of any allreduce adds as master-worker's rank 0 does with --sum blocks.
        TrainingResult one = Training.local(data, cfg.withExchange(ExchangeSpec.parse("master-worker",
            ExchangeSpec.Sum.BLOCKS)));
        for (int p : new int[] {1, 2, 3, 5, 8, 13, 33}) {
            TrainingResult r = Training.local(data, cfg.withNodes(p).withExchange(ExchangeSpec.parse(algorithm, ExchangeSpec.Sum.BLOCKS)));
            assertArrayEquals(one.params(), r.params(), 0.0, algorithm + " at " + p + " nodes");
            assertEquals(Double.doubleToRawLongBits(one.finalLoss()), Double.doubleToRawLongBits(r.finalLoss()));
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0);
            assertEquals(algorithm, r.algorithm());
        }
    }

    @Test
    void divergenceStopsWithAdviceToLowerTheLearningRate() {
        DivergenceException e = assertThrows(DivergenceException.class,
            () -> Training.local(PAPER, TrainSpec.paper().withLearningRate(0.01).withNodes(4)));
        assertTrue(e.getMessage().contains("smaller learning rate") && e.getMessage().contains("--lr 0.001"),
            e.getMessage());
    }

    @Test
    void aFailingRankEndsTheRunNamingRankAndEpoch() {
        LinearRegression linear = new LinearRegression(1, false);
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
            assertThrows(RankFailedException.class, () -> LocalCluster.run(8, comm -> {
                return new RankTrainer(comm, PAPER, linear, new GradientDescent(1e-4),
                    TrainSpec.paper().withNodes(8)).failing(new FailureInjection(5, 3, false)).train();
            })));
        assertEquals(5, e.rank());
        assertTrue(e.getMessage().contains("rank 5") && e.getMessage().contains("epoch 3"), e.getMessage());
    }

    @Test
    void specsNameTheBadSettingInDomainTerms() {
        SpecException e = assertThrows(SpecException.class, () -> TrainSpec.paper().withNodes(0));
        assertEquals("nodes", e.setting());
        assertEquals("nodes must be in [1, 4096] or auto, got 0", e.getMessage());
        assertEquals("learning rate", assertThrows(SpecException.class,
            () -> TrainSpec.paper().withLearningRate(Double.NaN)).setting());
        assertEquals("epochs", assertThrows(SpecException.class, () -> TrainSpec.paper().withEpochs(0)).setting());
        assertEquals("exchange", assertThrows(SpecException.class, () -> ExchangeSpec.parse("butterfly")).setting());
        assertEquals("schedule", assertThrows(SpecException.class,
            () -> OptimizerSpec.Schedule.parse("step:10:2")).setting());
        assertThrows(IllegalStateException.class, () -> TrainSpec.paper().withRun(TrainSpec.paper().run()
            .withNodes(new RunSpec.Nodes.Auto())).nodes(), "auto must be resolved before training");
    }
}
