package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.optim.Adam;
import org.paratrain.optim.LearningRateSchedule;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * The sharded optimizer gives the bits of the unsharded one with the same sum, at any node
 * count and with the halves of every allreduce that has them, and keeps a slice of the
 * optimizer state a rank.
 */
class ShardedTrainingTest {
    static final Dataset DATA = new MakeRegression(500, 6, 4, 0.5, 3.0, true).generate(new NumpyRandomState(5)).data();

    /** Every allreduce that comes in halves and runs locally, with both fixed-point sums. */
    static Stream<Arguments> halvesAndSums() {
        List<Arguments> out = new ArrayList<>();
        for (String name : AllreduceHalves.portableNames()) {
            for (Sum sum : new Sum[] {Sum.FIXED_1, Sum.FIXED_2}) {
                out.add(Arguments.of(name, sum));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("halvesAndSums")
    void shardedGivesTheBitsOfUnshardedAtAnyNodeCount(String algorithm, Sum sum) {
        for (OptimizerSpec.Method method : OptimizerSpec.Method.values()) {
            TrainSpec spec = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(30)
                .withLearningRate(method == OptimizerSpec.Method.ADAM ? 0.05 : 1e-4).withMethod(method)
                .withExchange(ExchangeSpec.parse(algorithm, sum));
            TrainingResult one = Training.local(DATA, spec);
            for (int p : new int[] {1, 2, 3, 4, 5, 7, 8, 9, 16, 17}) {
                TrainingResult r = Training.local(DATA, spec.withNodes(p).withExchange(spec.exchange().sharded()));
                String what = algorithm + " " + method + " " + sum + " at " + p;
                assertSameBits(one, r, what);
                if (p <= 5) {
                    assertSameBits(Training.local(DATA, spec.withNodes(p)), r, what + ", unsharded at " + p);
                }
                assertEquals(algorithm, r.algorithm(), what);
            }
        }
    }

    private static void assertSameBits(TrainingResult expected, TrainingResult r, String what) {
        assertArrayEquals(expected.params(), r.params(), 0.0, what);
        assertArrayEquals(expected.history().loss(), r.history().loss(), 0.0, what);
        assertEquals(Double.doubleToRawLongBits(expected.finalLoss()), Double.doubleToRawLongBits(r.finalLoss()), what);
    }

    /** A network with Adam on mini-batches: same bits sharded at 2, 3 and 4 ranks as unsharded at 1. */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("halvesAndSums")
    void shardedNetworksKeepTheBits(String algorithm, Sum sum) {
        java.util.Random rnd = new java.util.Random(3);
        int n = 256;
        double[] x = new double[3 * n];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = x[3 * i] * x[3 * i + 1] > 0 ? 1 : (x[3 * i + 2] > 0 ? 2 : 0);
        }
        Dataset d = new Dataset(x, y, n, 3);
        TrainSpec spec = TrainSpec.paper().withModel(new ModelSpec.Mlp(List.of(7, 5),
                MultilayerPerceptron.Activation.RELU, MultilayerPerceptron.Head.SOFTMAX, 3)).withEpochs(6)
            .withLearningRate(0.01).withMethod(OptimizerSpec.Method.ADAM).withBatches(64, 2)
            .withLossReduction(LossReduction.MEAN).withExchange(ExchangeSpec.parse(algorithm, sum));
        TrainingResult one = Training.local(d, spec);
        for (int p : new int[] {2, 3, 4}) {
            TrainingResult r = Training.local(d, spec.withNodes(p).withExchange(spec.exchange().sharded()));
            assertArrayEquals(one.params(), r.params(), 0.0, p + " ranks");
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, p + " ranks");
        }
    }

    /** An optimizer updating a slice keeps state for that slice only, and updates it as a whole step would. */
    @org.junit.jupiter.api.Test
    void aSliceKeepsStateForTheSliceOnly() {
        Adam whole = Adam.withDefaults(LearningRateSchedule.constant(0.1));
        Adam slice = Adam.withDefaults(LearningRateSchedule.constant(0.1));
        double[] w = {1, 2, 3, 4, 5, 6, 7, 8};
        double[] v = w.clone();
        double[] g = {0.5, -1, 2, -3, 0.25, 8, -0.5, 1};
        for (int t = 0; t < 5; t++) {
            whole.step(w, g);
            slice.step(v, g, 3, 7);
        }
        assertEquals(4, slice.state().vector(0).length);
        assertEquals(8, whole.state().vector(0).length);
        for (int j = 3; j < 7; j++) {
            assertEquals(Double.doubleToRawLongBits(w[j]), Double.doubleToRawLongBits(v[j]), "parameter " + j);
        }
        assertEquals(1.0, v[0], 0.0);
    }

    /** The allreduces in halves are accepted (MPI's own too, whose backend is checked when it runs); the rest in one line. */
    @org.junit.jupiter.api.Test
    void onlyAllreducesInHalvesWithAOneVectorSumAreSharded() {
        for (String name : AllreduceHalves.names()) {
            assertEquals(ExchangeSpec.Scheme.SHARDED, ExchangeSpec.parse(name).sharded().scheme());
        }
        assertEquals("sum", assertThrows(SpecException.class,
            () -> ExchangeSpec.parse("ring", Sum.BLOCKS).sharded()).setting());
        for (String name : new String[] {"star", "tree", "recursive-doubling", "master-worker", "auto"}) {
            SpecException e = assertThrows(SpecException.class, () -> ExchangeSpec.parse(name).sharded());
            assertEquals("exchange", e.setting());
            assertEquals("exchange of a sharded optimizer must be ring, rabenseifner, native (an allreduce that is a "
                + "reduce-scatter and an allgather), got '" + name + "'", e.getMessage());
        }
        assertThrows(SpecException.class, () -> new ExchangeSpec(ExchangeSpec.Scheme.SHARDED, "tree", Sum.FIXED_1));
    }

    /** On the local backend MPI's own halves are refused at the start, in one line naming the option. */
    @org.junit.jupiter.api.Test
    void nativeHalvesNeedTheMpiBackend() {
        TrainSpec spec = TrainSpec.paper().withNodes(2).withExchange(ExchangeSpec.parse("native").sharded());
        RuntimeException e = assertThrows(RuntimeException.class, () -> Training.local(DATA, spec));
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertTrue(cause.getMessage().contains("--allreduce native needs --backend mpi"), cause.getMessage());
        assertTrue(!cause.getMessage().contains("\n"), cause.getMessage());
    }

    /**
     * A sharded run that fails is resumed from its checkpoint (the whole state, gathered from
     * the slices) at another node count, sharded or not, and ends with the bits of a run that
     * never stopped; mid-epoch checkpoints of a mini-batch Adam run too.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"3, 2, true, ring", "2, 4, true, ring", "3, 1, false, ring",
        "4, 3, false, ring", "3, 5, true, rabenseifner", "5, 2, false, rabenseifner"})
    void aShardedCheckpointResumesAtAnyNodeCountWithTheSameBits(int savedAt, int resumedAt, boolean sharded,
                                                                String algorithm) {
        TrainSpec spec = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(12).withLearningRate(0.05)
            .withMethod(OptimizerSpec.Method.ADAM).withBatches(100, 3).withExchange(ExchangeSpec.parse(algorithm));
        TrainingResult reference = Training.local(DATA, spec);
        java.util.List<TrainingState> saved = new java.util.ArrayList<>();
        TrainingControl saving = new TrainingControl(null, new TrainingControl.Checkpoints(0, 6, saved::add), null,
            null);
        assertThrows(org.paratrain.comm.RankFailedException.class, () -> Training.local(DATA,
            spec.withNodes(savedAt).withExchange(spec.exchange().sharded()), saving,
            new FailureInjection(savedAt - 1, 40, false)));
        TrainingState last = saved.get(saved.size() - 1);
        assertTrue(last.step() > 0, "a mid-epoch checkpoint: " + last);
        TrainSpec again = spec.withNodes(resumedAt);
        TrainingResult resumed = Training.local(DATA, sharded ? again.withExchange(spec.exchange().sharded()) : again,
            TrainingControl.none().resumingFrom(last));
        assertArrayEquals(reference.params(), resumed.params());
        assertArrayEquals(reference.history().loss(), resumed.history().loss());
    }
}
