package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.paratrain.comm.RankFailedException;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.model.Model;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The local ranks' shared step: every sum gives, at any node count, the bits of one rank
 * summing the same way (parameters, every epoch's loss, the final loss); a rank held off its
 * work does not hold the others; a rank that fails or hangs is named.
 */
class SharedExchangeTest {
    static final Dataset DATA = new MakeRegression(700, 3, 2, 0.5, 3.0, true).generate(new NumpyRandomState(4)).data();

    /** Linear regression in blocks of 16 (44 blocks: several chunks a rank at every count below). */
    static TrainSpec linear(ExchangeSpec exchange) {
        return TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withEpochs(40).withBlockSize(16)
            .withExchange(exchange);
    }

    /** The one-rank run that sums as {@code sum} does: master-worker's block table, or an allreduce's one vector. */
    static ExchangeSpec oneRank(Sum sum) {
        return ExchangeSpec.parse(sum == Sum.FLOAT ? "star" : "master-worker", sum);
    }

    @ParameterizedTest
    @EnumSource(Sum.class)
    void everySumGivesTheBitsOfOneRankAtAnyNodeCount(Sum sum) {
        TrainingResult one = Training.local(DATA, linear(oneRank(sum)));
        for (int p : new int[] {1, 2, 3, 4, 5, 7, 8, 16, 33}) {
            TrainingResult r = Training.local(DATA, linear(ExchangeSpec.parse("shared", sum)).withNodes(p));
            assertArrayEquals(one.params(), r.params(), 0.0, sum + " at " + p);
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, sum + " at " + p);
            assertEquals(one.finalLoss(), r.finalLoss(), 0.0, sum + " at " + p);
            assertEquals("shared", r.algorithm());
        }
    }

    /**
     * With a ring of 2 steps a rank soon waits for the slowest to take a sum before it overwrites
     * it: the same bits, full batch and mini-batches (whose rows each rank gathers per chunk).
     */
    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"BLOCKS", "FIXED_2", "FIXED_HALF"})
    void aRingOfTwoStepsKeepsTheBits(Sum sum) {
        for (int batch : new int[] {0, 64}) {
            TrainSpec spec = linear(ExchangeSpec.parse("shared", sum)).withEpochs(60).withBatches(batch, 3)
                .withMethod(batch > 0 ? OptimizerSpec.Method.ADAM : OptimizerSpec.Method.GD);
            TrainingResult one = Training.local(DATA, spec.withExchange(oneRank(sum)));
            for (int p : new int[] {2, 3, 5}) {
                TrainingResult r = withRing(spec.withNodes(p), 2);
                assertArrayEquals(one.params(), r.params(), 0.0, sum + ", batch " + batch + ", " + p + " ranks");
                assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, sum + " " + batch + " " + p);
            }
        }
    }

    /** Rank 0's result of {@code spec} on a board whose ring keeps {@code ring} steps. */
    private static TrainingResult withRing(TrainSpec spec, int ring) {
        Duration timeout = Duration.ofSeconds(60);
        BlockBoard board = new BlockBoard(spec.nodes(), timeout, ring);
        int classes = spec.check(DATA);
        return org.paratrain.comm.local.LocalCluster.run(spec.nodes(), timeout, comm -> new RankTrainer(comm, DATA,
            spec.model().newModel(DATA.features(), classes), spec.optimizer().newOptimizer(spec.totalSteps(DATA)),
            spec, board).train()).get(0);
    }

    /** Mini-batches in a drawn order, a network with Adam: still the bits of one rank. */
    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"BLOCKS", "FIXED_1"})
    void miniBatchNetworksKeepTheBits(Sum sum) {
        Dataset xor = Xor.data(384);
        TrainSpec spec = Xor.network();
        TrainingResult one = Training.local(xor, spec.withExchange(oneRank(sum)));
        for (int p : new int[] {2, 3, 7}) {
            TrainingResult r = Training.local(xor, spec.withNodes(p).withExchange(ExchangeSpec.parse("shared", sum)));
            assertArrayEquals(one.params(), r.params(), 0.0, p + " ranks");
            assertArrayEquals(one.history().loss(), r.history().loss(), 0.0, p + " ranks");
        }
    }

    /**
     * A checkpoint of a shared run, taken mid-run, resumed with master-worker at another node
     * count (and one of a master-worker run resumed shared) ends with the bits of one
     * uninterrupted rank: full batch with gradient descent, mini-batches with Adam saved inside an epoch.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"0, shared, 3, master-worker, 1", "0, master-worker, 2, shared, 3",
        "50, shared, 2, shared, 3", "50, master-worker, 1, shared, 2"})
    void checkpointsMoveBetweenSharedAndOtherExchanges(int batch, String from, int savedAt, String to, int resumedAt) {
        TrainSpec spec = linear(ExchangeSpec.MASTER_WORKER).withEpochs(30).withLearningRate(1e-5)
            .withMethod(batch > 0 ? OptimizerSpec.Method.ADAM : OptimizerSpec.Method.GD).withBatches(batch, 7);
        TrainingResult reference = Training.local(DATA, spec);
        List<TrainingState> saved = new java.util.ArrayList<>();
        TrainingControl control = new TrainingControl(null, new TrainingControl.Checkpoints(batch > 0 ? 0 : 4,
            batch > 0 ? 33 : 0, saved::add), null, null);
        Training.local(DATA, spec.withNodes(savedAt).withExchange(ExchangeSpec.parse(from)), control);
        TrainingState middle = saved.get(saved.size() / 2);
        TrainingResult resumed = Training.local(DATA, spec.withNodes(resumedAt).withExchange(ExchangeSpec.parse(to)),
            TrainingControl.none().resumingFrom(middle));
        assertArrayEquals(reference.params(), resumed.params(), 0.0, middle.toString());
        assertArrayEquals(reference.history().loss(), resumed.history().loss(), 0.0, middle.toString());
        assertEquals(reference.finalLoss(), resumed.finalLoss(), 0.0);
    }

    /**
     * Rank 1 stops in its first chunk until rank 0 has finished epoch 300 of 400: rank 0 gets
     * there only if it computes rank 1's blocks and never waits for it. With a fixed share (any
     * other exchange) rank 0 would wait at epoch 1 and rank 1 would give up after 10 s.
     */
    @Test
    void aRankHeldOffItsWorkDoesNotHoldTheOthers() {
        CountDownLatch reached = new CountDownLatch(1);
        AtomicBoolean released = new AtomicBoolean();
        TrainSpec spec = linear(ExchangeSpec.SHARED).withEpochs(400).withNodes(2);
        TrainingControl control = new TrainingControl(null, null, (epoch, h) -> {
            if (epoch == 300) {
                reached.countDown();
            }
        }, Duration.ofSeconds(60));
        TrainingResult r = assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
            Training.localWrapped(DATA, spec, control, firstCall(1, () -> released.set(await(reached)))));
        assertTrue(released.get(), "rank 0 did not reach epoch 300 while rank 1 was held");
        TrainingResult one = Training.local(DATA, linear(ExchangeSpec.MASTER_WORKER).withEpochs(400));
        assertArrayEquals(one.params(), r.params(), 0.0);
        assertArrayEquals(one.history().loss(), r.history().loss(), 0.0);
    }

    @Test
    void aFailingRankIsNamed() {
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            assertThrows(RankFailedException.class, () -> Training.localWrapped(DATA,
                linear(ExchangeSpec.SHARED).withEpochs(2000).withNodes(3), TrainingControl.none(),
                firstCall(2, () -> {
                    throw new IllegalStateException("failure injected on purpose");
                }))));
        assertEquals(2, e.rank());
        assertTrue(e.getMessage().contains("rank 2") && e.getMessage().contains("failure injected"), e.getMessage());
    }

    /** The fault tests' injection counts the trainer's epochs, not the blocks a rank happens to compute. */
    @Test
    void anInjectedFailureNamesItsRankAndEpoch() {
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            assertThrows(RankFailedException.class, () -> Training.local(DATA,
                linear(ExchangeSpec.SHARED).withEpochs(40).withNodes(3), TrainingControl.none(),
                new FailureInjection(1, 5, false))));
        assertEquals(1, e.rank());
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("epoch 5"), e.getMessage());
    }

    /**
     * Rank 1 hangs (until the job interrupts it): the others run on as far as the ring of sums
     * lets them, then wait for it and give up at the deadline, naming it.
     */
    @Test
    void aHungRankIsNamedAtTheDeadline() {
        TrainingControl control = new TrainingControl(null, null, null, Duration.ofSeconds(1));
        RankFailedException e = assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
            assertThrows(RankFailedException.class, () -> Training.localWrapped(DATA,
                linear(ExchangeSpec.SHARED).withEpochs(5000).withNodes(2), control, firstCall(1, () -> {
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("hang injected on purpose, ended by the job");
                    }
                }))));
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("stopped answering"), e.getMessage());
    }

    /**
     * Models in which rank {@code acting} runs {@code action} at its first call for blocks, and
     * every other rank waits in its own first call until then (at most 10 s), so that the
     * acting rank surely claims a chunk: a rank that arrives late may find every block done.
     */
    private static java.util.function.BiFunction<Model, Integer, Model> firstCall(int acting, Runnable action) {
        CountDownLatch acted = new CountDownLatch(1);
        return (m, rank) -> {
            AtomicBoolean first = new AtomicBoolean(true);
            return new Holding(m, () -> {
                if (!first.getAndSet(false)) {
                    return;
                }
                if (rank == acting) {
                    acted.countDown();
                    action.run();
                } else {
                    await(acted);
                }
            });
        };
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A model that runs {@code before} at each call for blocks, then the model's own. */
    private static final class Holding extends ForwardingModel {
        private final Runnable before;

        Holding(Model inner, Runnable before) {
            super(inner);
            this.before = before;
        }

        @Override
        public void blocks(Dataset data, int from, int to, int size, double[] params, double[] losses, int lossAt,
                           int lossStride, double[] grad, int gradAt, int gradStride) {
            before.run();
            inner.blocks(data, from, to, size, params, losses, lossAt, lossStride, grad, gradAt, gradStride);
        }
    }
}
