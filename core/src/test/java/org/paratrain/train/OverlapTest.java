package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.GradientReady;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.optim.GradientDescent;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The gradient sent in buckets while the backward pass runs: against the same run with the
 * whole gradient sent after backward (bucket size 0), the same bits at every bucket size, node
 * count, fixed sum and algorithm; and the buckets do leave before the backward pass ends.
 */
class OverlapTest {
    private static Dataset images(int n, int side, int classes, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[n * side * side];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            y[i] = r.nextInt(classes);
            for (int j = 0; j < side * side; j++) {
                x[i * side * side + j] = r.nextGaussian() * 0.5 + ((j % side) == y[i] ? 1.0 : 0.0);
            }
        }
        return new Dataset(x, y, n, side * side);
    }

    private static TrainSpec mlp(MultilayerPerceptron.Precision precision, Sum sum, String algorithm) {
        ModelSpec m = new ModelSpec.Mlp(List.of(24, 12), MultilayerPerceptron.Activation.RELU,
            MultilayerPerceptron.Head.SOFTMAX, 4).withPrecision(precision);
        return TrainSpec.paper().withModel(m).withEpochs(4).withLearningRate(0.01).withLossReduction(LossReduction.MEAN)
            .withMethod(OptimizerSpec.Method.ADAM).withBatches(60, 3).withExchange(ExchangeSpec.parse(algorithm, sum));
    }

    private static TrainSpec cnn(Sum sum, String algorithm) {
        ModelSpec m = new ModelSpec.Cnn(ModelNames.cnnLayers("conv:4:3,pool:2,conv:6:3,dense:10,dropout:0.25"), null, 4)
            .withPrecision(MultilayerPerceptron.Precision.FLOAT32);
        // Blocks of 40 samples: chunks of 16, 16 and 8 go stage by stage in the last block.
        TrainSpec s = TrainSpec.paper().withModel(m).withEpochs(3).withLearningRate(0.01)
            .withLossReduction(LossReduction.MEAN).withMethod(OptimizerSpec.Method.ADAM).withBatches(120, 3)
            .withExchange(ExchangeSpec.parse(algorithm, sum));
        return s.withRun(s.run().withBlockSize(40));
    }

    private static void assertSameRun(TrainingResult expected, TrainingResult got, String what) {
        // Whether a step's guessed grid holds depends on its values alone: the same misses every way.
        assertEquals(expected.guessMisses(), got.guessMisses(), what + ": grid guesses that failed");
        assertArrayEquals(expected.params(), got.params(), 0.0, what);
        assertArrayEquals(expected.history().loss(), got.history().loss(), 0.0, what);
        assertEquals(Double.doubleToRawLongBits(expected.finalLoss()), Double.doubleToRawLongBits(got.finalLoss()), what);
    }

    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"FIXED_1", "FIXED_2", "FIXED_HALF"})
    void mlpBucketsGiveTheBitsOfTheWholeGradientAtAnyBucketSizeAndNodeCount(Sum sum) {
        Dataset d = images(240, 6, 4, 3);
        for (MultilayerPerceptron.Precision precision : MultilayerPerceptron.Precision.values()) {
            TrainSpec spec = mlp(precision, sum, "ring");
            TrainingResult whole = Training.local(d, spec.withRun(spec.run().withBucketSize(0)));
            // 4 blocks a batch of 60: at 5 ranks one rank holds none and still sends every bucket.
            for (int p : new int[] {1, 2, 3, 5}) {
                for (int bucket : new int[] {1, 100, 300, -1}) {
                    String algorithm = p == 3 ? "recursive-doubling" : "ring";
                    TrainSpec s = mlp(precision, sum, algorithm).withNodes(p);
                    TrainingResult r = Training.local(d, s.withRun(s.run().withBucketSize(bucket)));
                    assertSameRun(whole, r, precision + " " + sum + " p=" + p + " bucket " + bucket);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Sum.class, names = {"FIXED_1", "FIXED_HALF"})
    void cnnBucketsGiveTheBitsOfTheWholeGradient(Sum sum) {
        Dataset d = images(360, 10, 4, 5);
        TrainSpec spec = cnn(sum, "ring");
        TrainingResult whole = Training.local(d, spec.withRun(spec.run().withBucketSize(0)));
        for (int p : new int[] {1, 2, 3, 4}) {      // 3 blocks a batch: at 4 ranks one holds none
            for (int bucket : new int[] {1, 50, -1}) {
                TrainSpec s = spec.withNodes(p);
                TrainingResult r = Training.local(d, s.withRun(s.run().withBucketSize(bucket)));
                assertSameRun(whole, r, sum + " p=" + p + " bucket " + bucket);
                if (bucket == 1 && p > 1) {
                    // Each last block of 3 chunks (16, 16, 8) stages 1, 2 or 3 of them, the mean over the steps
                    // told; a rank without blocks stages nothing and is left out.
                    double staged = r.rankTimes().stagedShare();
                    assertTrue(staged >= 1.0 / 3 - 1e-12 && staged <= 1.0, "p=" + p + ": staged share " + staged);
                    if (p == 4) {
                        assertEquals(1, java.util.Arrays.stream(r.rankTimes().staged()).filter(Double::isNaN).count(),
                            "one rank holds no block: " + java.util.Arrays.toString(r.rankTimes().staged()));
                    }
                }
            }
        }
        assertTrue(Double.isNaN(whole.rankTimes().stagedShare()), "without buckets nothing is staged");
    }

    /**
     * A bucket is summed while the blocks are still being computed: each rank tells the top layer,
     * then waits (up to 20 s) until the communication thread has summed its bucket with the other
     * ranks' before telling the rest. Without overlap it would wait in vain. The sum is the bits
     * of the plain exchange's, also over a step whose largest gradient grows (the guess fails).
     */
    @Test
    void aBucketIsSummedBeforeTheBackwardPassEnds() {
        int params = 50;
        int[] ranges = {30, 50, 10, 30, 0, 10};          // three layers, the top one first
        int blocks = 6;
        BlockSharding sharding = new BlockSharding(blocks, 1);
        for (int p : new int[] {2, 3}) {
            List<double[][]> ranks = LocalCluster.run(p, comm -> {
                BlockRanges ranges0 = new BlockRanges(sharding, comm.size());
                SumExchange bucketed = new SumExchange(comm, ranges0, params, Allreduces.create("ring"), Sum.FIXED_1);
                SumExchange plain = new SumExchange(comm, new BlockRanges(sharding, comm.size()), params,
                    Allreduces.create("ring"), Sum.FIXED_1);
                assertEquals(3, bucketed.overlapBuckets(ranges, 15), "buckets [30, 50), [10, 30), and the rest");
                double[] w1 = new double[params];
                double[] w2 = new double[params];
                double[][] out = new double[4][];
                try {
                    for (int step = 0; step < 4; step++) {
                        GradientReady ready = bucketed.overlap();
                        assertTrue(step == 0 ? ready == null : ready != null, "a guess from the second step on");
                        fill(bucketed, ranges0.first(comm.rank()), ranges0.end(comm.rank()), step, params);
                        fill(plain, ranges0.first(comm.rank()), ranges0.end(comm.rank()), step, params);
                        if (ready != null) {
                            long before = bucketed.overlapped().summed();
                            ready.ready(30, 50);
                            long until = System.nanoTime() + 20_000_000_000L;
                            while (bucketed.overlapped().summed() == before && System.nanoTime() < until) {
                                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                            }
                            assertEquals(before + 1, bucketed.overlapped().summed(),
                                "the top bucket was summed while the rest was not yet told");
                            assertTrue(ready.waiting(), "the bucket [10, 30) is still to be sent");
                            ready.ready(10, 30);
                            assertFalse(ready.waiting(), "every early bucket sent: the pass may stop telling");
                            ready.ready(0, 10);
                        }
                        double l1 = bucketed.step(w1, new GradientDescent(1.0), 1.0);
                        double l2 = plain.step(w2, new GradientDescent(1.0), 1.0);
                        assertEquals(Double.doubleToRawLongBits(l2), Double.doubleToRawLongBits(l1));
                        out[step] = w1.clone();
                        assertArrayEquals(w2, w1, 0.0, "step " + step);
                    }
                } finally {
                    bucketed.close();
                }
                return out;
            });
            for (int r = 1; r < p; r++) {
                assertArrayEquals(ranks.get(0)[3], ranks.get(r)[3], 0.0);
            }
        }
    }

    /**
     * The last bucket, the loss and the check words go from the thread that ends the step, not
     * from the exchange thread: where ranks share a process and its core, the rank that meets
     * its peers last then goes straight on, as without buckets (see {@code OverlappedSum.finish}).
     * Every message a rank sends inside its step, once its early bucket is summed, is recorded
     * with the thread that sent it.
     */
    @Test
    void theStepsLastWordsGoFromTheThreadThatEndsIt() {
        int params = 50;
        int[] ranges = {30, 50, 0, 30};
        BlockSharding sharding = new BlockSharding(4, 1);
        LocalCluster.run(2, inner -> {
            java.util.Queue<Thread> senders = new java.util.concurrent.ConcurrentLinkedQueue<>();
            Communicator comm = new SenderRecording(inner, senders);
            BlockRanges own = new BlockRanges(sharding, comm.size());
            SumExchange bucketed = new SumExchange(comm, own, params, Allreduces.create("ring"), Sum.FIXED_1);
            assertEquals(2, bucketed.overlapBuckets(ranges, 15));
            double[] w = new double[params];
            try {
                for (int step = 0; step < 3; step++) {
                    GradientReady ready = bucketed.overlap();
                    fill(bucketed, own.first(comm.rank()), own.end(comm.rank()), step, params);
                    if (ready != null) {
                        long before = bucketed.overlapped().summed();
                        ready.ready(30, 50);
                        long until = System.nanoTime() + 20_000_000_000L;
                        while (bucketed.overlapped().summed() == before && System.nanoTime() < until) {
                            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                        }
                        assertEquals(before + 1, bucketed.overlapped().summed(), "the early bucket was summed");
                        ready.ready(0, 30);
                        senders.clear();
                    }
                    bucketed.step(w, new GradientDescent(1.0), 1.0);
                    if (ready != null) {
                        assertFalse(senders.isEmpty(), "step " + step + " sent its last words");
                        for (Thread t : senders) {
                            assertEquals(Thread.currentThread(), t, "step " + step + ": sent by " + t.getName());
                        }
                    }
                }
            } finally {
                bucketed.close();
            }
            return null;
        });
    }

    /** A rank's communicator that records the thread of every message it sends. */
    private static final class SenderRecording extends org.paratrain.comm.ForwardingCommunicator {
        private final java.util.Queue<Thread> senders;

        SenderRecording(Communicator inner, java.util.Queue<Thread> senders) {
            super(inner);
            this.senders = senders;
        }

        @Override
        protected void sending() {
            senders.add(Thread.currentThread());
        }

        @Override
        public boolean callsFromAnotherThread() {
            return inner.callsFromAnotherThread();
        }
    }

    /**
     * The network stages one chunk fewer after a step whose early bucket was summed a chunk's time
     * or more before its blocks ended, the same after one summed just in time, and one more after
     * one not summed: here each step "computes" 200 ms before telling its bucket (a chunk: 50 ms
     * of the 4), steps 1 and 2 then wait 250 ms more, step 3 none, and in step 4 rank 1 tells its
     * bucket 300 ms late while rank 0 ends its blocks at once. The sums stay the plain
     * exchange's bits whatever the count.
     */
    @Test
    void theStagedChunksFollowHowEarlyTheBucketWasSummed() {
        int params = 50;
        int[] ranges = {30, 50, 0, 30};
        BlockSharding sharding = new BlockSharding(4, 1);
        List<int[]> counts = LocalCluster.run(2, comm -> {
            BlockRanges own = new BlockRanges(sharding, comm.size());
            SumExchange bucketed = new SumExchange(comm, own, params, Allreduces.create("ring"), Sum.FIXED_1);
            SumExchange plain = new SumExchange(comm, new BlockRanges(sharding, comm.size()), params,
                Allreduces.create("ring"), Sum.FIXED_1);
            assertEquals(2, bucketed.overlapBuckets(ranges, 15));
            double[] w1 = new double[params];
            double[] w2 = new double[params];
            int[] staged = new int[6];
            try {
                for (int step = 0; step < 6; step++) {
                    GradientReady ready = bucketed.overlap();
                    fill(bucketed, own.first(comm.rank()), own.end(comm.rank()), step == 2 ? 0 : step, params);
                    fill(plain, own.first(comm.rank()), own.end(comm.rank()), step == 2 ? 0 : step, params);
                    if (ready != null) {
                        staged[step] = ready.stagedChunks(4);
                        boolean late = step == 4;
                        Thread.sleep(late && comm.rank() == 0 ? 0 : late ? 500 : 200);
                        long before = bucketed.overlapped().summed();
                        ready.ready(30, 50);
                        if (!late || comm.rank() == 1) {
                            long until = System.nanoTime() + 20_000_000_000L;
                            while (bucketed.overlapped().summed() == before && System.nanoTime() < until) {
                                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                            }
                            assertEquals(before + 1, bucketed.overlapped().summed(), "the bucket was summed");
                        }
                        if (step == 1 || step == 2) {
                            Thread.sleep(250);
                        }
                        ready.ready(0, 30);
                    }
                    bucketed.step(w1, new GradientDescent(1.0), 1.0);
                    plain.step(w2, new GradientDescent(1.0), 1.0);
                    assertArrayEquals(w2, w1, 0.0, "step " + step);
                }
            } finally {
                bucketed.close();
            }
            return staged;
        });
        // Step 0 agrees its grid (no buckets); 4, then 3 and 2 after the early ones, 2 after one just in time;
        // rank 0's bucket in step 4 waits for rank 1's: one more chunk after it.
        assertArrayEquals(new int[] {0, 4, 3, 2, 2, 3}, counts.get(0), "rank 0");
        assertArrayEquals(new int[] {0, 4, 3, 2, 2, 2}, counts.get(1), "rank 1, in time every step");
    }

    /** Rows of this rank's blocks: loss then gradient; at step 2 the largest value grows (the guess fails). */
    private static void fill(SumExchange e, int first, int end, int step, int params) {
        for (int b = first; b < end; b++) {
            int k = b - first;
            SplittableRandom r = new SplittableRandom(100L * step + b);
            e.losses()[e.lossIndex(k)] = 1 + r.nextDouble();
            for (int j = 0; j < params; j++) {
                e.gradients()[e.gradientOffset(k) + j] = r.nextGaussian() * (step == 2 ? 1000 : 1);
            }
        }
    }

    @Test
    void nothingToOverlapIsNoBuckets() {
        LocalCluster.run(1, comm -> {
            SumExchange e = new SumExchange(comm, new BlockRanges(new BlockSharding(4, 1), 1), 20,
                Allreduces.create("ring"), Sum.FIXED_1);
            assertEquals(0, e.overlapBuckets(null, 1), "a model that tells nothing");
            assertEquals(0, e.overlapBuckets(new int[] {10, 20, 0, 10}, 100), "one bucket");
            assertEquals(0, e.overlapBuckets(new int[] {0, 10, 10, 20}, 1), "not from the top down");
            assertNull(e.overlap());
            SumExchange f = new SumExchange(comm, new BlockRanges(new BlockSharding(4, 1), 1), 20,
                Allreduces.create("ring"), Sum.FLOAT);
            assertEquals(0, f.overlapBuckets(new int[] {10, 20, 0, 10}, 1), "a float sum adds rows in order first");
            return null;
        });
    }
}
