package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * {@code --rebalance}: a rank made slower (it computes its blocks several times, as a slower node
 * would take longer) hands blocks to the others, and the run still ends with the bits of one rank,
 * whatever the exchange, at full batch and with mini-batches.
 */
class RebalanceTest {
    static final Dataset DATA = new MakeRegression(6000, 8, 6, 0.5, 3.0, true).generate(new NumpyRandomState(9)).data();

    /** Linear regression in blocks of 50 (120 blocks), a window of 5 steps. */
    static TrainSpec linear(ExchangeSpec exchange) {
        return TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(60).withBlockSize(50)
            .withLearningRate(1e-5).withExchange(exchange).withRebalance(5);
    }

    @ParameterizedTest(name = "{0} {1}, {2} ranks, batch {3}")
    @CsvSource({"master-worker, blocks, 2, 0", "master-worker, blocks, 3, 0", "recursive-doubling, blocks, 4, 0",
        "ring, fixed:2, 3, 0", "star, fixed:1, 2, 0", "ring, float, 1, 0", "master-worker, blocks, 3, 600",
        "recursive-doubling, fixed:2, 2, 600"})
    void aSlowRankGivesUpBlocksAndTheBitsStay(String algorithm, String sum, int p, int batch) {
        TrainSpec spec = linear(ExchangeSpec.parse(algorithm, Sum.parse(sum))).withBatches(batch, 3)
            .withMethod(batch > 0 ? OptimizerSpec.Method.ADAM : OptimizerSpec.Method.GD);
        TrainingResult one = Training.local(DATA, spec.withRebalance(0));
        int slow = p - 1;
        TrainingResult r = Training.local(DATA, spec.withNodes(p), TrainingControl.none(),
            FailureInjection.slow(slow, 1, 6));
        assertArrayEquals(one.params(), r.params(), 0.0);
        assertArrayEquals(one.history().loss(), r.history().loss(), 0.0);
        assertEquals(one.finalLoss(), r.finalLoss(), 0.0);
        int[] blocks = r.split().blocksPerRank();
        assertEquals(batch > 0 ? batch / 50 : 120, java.util.Arrays.stream(blocks).sum());
        if (p > 1) {
            assertTrue(r.split().moves() >= 1, java.util.Arrays.toString(blocks));
            // Six times slower: about a sixth of another rank's share. Fewer blocks than any other rank,
            // and under half the largest share, leave room for a step's fixed costs and for ranks that
            // share a core (3 or 4 threads on 2 cores) on blocks of a few microseconds.
            int most = 0;
            for (int k = 0; k < slow; k++) {
                assertTrue(blocks[slow] < blocks[k], java.util.Arrays.toString(blocks));
                most = Math.max(most, blocks[k]);
            }
            // Under half the largest share at full batch; a mini-batch's 12 blocks of 50 samples take a
            // microsecond or so each, where a step's fixed costs blur the speeds (8 against 4 seen in CI).
            assertTrue(batch > 0 || blocks[slow] * 2 < most, java.util.Arrays.toString(blocks));
        }
    }

    /** {@code auto}: windows of about 0.2 s of steps; the bits stay and a six times slower rank gives up blocks. */
    @Test
    void autoWindowsKeepTheBits() {
        TrainSpec spec = linear(ExchangeSpec.MASTER_WORKER).withEpochs(400).withRebalance(RunSpec.REBALANCE_AUTO);
        TrainingResult one = Training.local(DATA, spec.withRebalance(0));
        TrainingResult r = Training.local(DATA, spec.withNodes(2), TrainingControl.none(),
            FailureInjection.slow(1, 1, 6));
        assertArrayEquals(one.params(), r.params(), 0.0);
        assertArrayEquals(one.history().loss(), r.history().loss(), 0.0);
        assertEquals(one.finalLoss(), r.finalLoss(), 0.0);
        assertEquals(120, r.split().blocksPerRank()[0] + r.split().blocksPerRank()[1]);
    }

    /**
     * A checkpoint saved while a slow rank's blocks had moved (3 ranks, windows of 5 steps)
     * resumes at 2 ranks with auto windows, and the other way, with the bits of one
     * uninterrupted rank: the split is never part of the state.
     */
    @Test
    void checkpointsResumeUnderAnotherRebalance() {
        TrainSpec spec = linear(ExchangeSpec.MASTER_WORKER).withEpochs(80).withRebalance(0);
        TrainingResult reference = Training.local(DATA, spec);
        int[][] runs = {{3, 5, 2, RunSpec.REBALANCE_AUTO}, {2, RunSpec.REBALANCE_AUTO, 3, 0}};
        for (int[] run : runs) {
            java.util.List<TrainingState> saved = new java.util.ArrayList<>();
            TrainingControl control = new TrainingControl(null, new TrainingControl.Checkpoints(10, 0, saved::add),
                null, null);
            TrainingResult first = Training.local(DATA, spec.withNodes(run[0]).withRebalance(run[1]), control,
                FailureInjection.slow(run[0] - 1, 1, 6));
            if (run[1] == 5) {
                assertTrue(first.split().moves() >= 1, "the split moved before the checkpoints");
            }
            TrainingState middle = saved.get(saved.size() / 2);
            TrainingResult resumed = Training.local(DATA, spec.withNodes(run[2]).withRebalance(run[3]),
                TrainingControl.none().resumingFrom(middle), FailureInjection.slow(run[2] - 1, 1, 6));
            assertArrayEquals(reference.params(), resumed.params(), 0.0, middle.toString());
            assertArrayEquals(reference.history().loss(), resumed.history().loss(), 0.0, middle.toString());
            assertEquals(reference.finalLoss(), resumed.finalLoss(), 0.0);
        }
    }

    /** The sharded optimizer keeps its slices of the parameters while the blocks move. */
    @Test
    void shardedOptimizerToo() {
        TrainSpec spec = linear(ExchangeSpec.parse("ring", Sum.FIXED_2)).withMethod(OptimizerSpec.Method.ADAM)
            .withLearningRate(0.05);
        TrainingResult one = Training.local(DATA, spec.withRebalance(0));
        TrainingResult r = Training.local(DATA, spec.withNodes(3).withExchange(spec.exchange().sharded()),
            TrainingControl.none(), FailureInjection.slow(0, 1, 6));
        assertArrayEquals(one.params(), r.params(), 0.0);
        // The blocks moved, away from the slow rank. How far depends on this machine's timing: its blocks take
        // microseconds here, and a clean-clone CI run once saw rank 0 keep more than half of rank 1's share.
        assertTrue(r.split().moves() >= 1, "the split moved");
        assertTrue(r.split().blocksPerRank()[0] < r.split().blocksPerRank()[1],
            java.util.Arrays.toString(r.split().blocksPerRank()));
    }

    /** Without --rebalance a slow rank keeps its even share: the split is recorded, unmoved. */
    @Test
    void withoutRebalanceTheSplitStaysEven() {
        TrainingResult r = Training.local(DATA, linear(ExchangeSpec.MASTER_WORKER).withRebalance(0).withNodes(3),
            TrainingControl.none(), FailureInjection.slow(2, 1, 6));
        assertArrayEquals(new int[] {40, 40, 40}, r.split().blocksPerRank());
        assertEquals(0, r.split().moves());
    }

    /** A float sum adds each rank's rows first: its bits would follow the timings, so it is refused. */
    @Test
    void aFloatSumRefusesItAtMoreThanOneRank() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> Training.local(DATA,
            linear(ExchangeSpec.parse("ring", Sum.FLOAT)).withNodes(2)));
        assertInDomainTerms(e, "rebalancing needs a sum whose bits do not depend on which rank adds which blocks");
    }

    @Test
    void sharedRefusesIt() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> Training.local(DATA,
            linear(ExchangeSpec.SHARED).withNodes(2)));
        assertInDomainTerms(e, "rebalancing does not apply to the shared exchange");
    }

    /** The training layer's refusal says what is wrong in its own terms, naming no command-line option. */
    private static void assertInDomainTerms(Throwable e, String expected) {
        String all = "";
        for (Throwable t = e; t != null; t = t.getCause()) {
            all += t.getMessage() + "\n";
        }
        assertTrue(all.contains(expected), all);
        assertTrue(!all.contains("--"), all);
    }
}
