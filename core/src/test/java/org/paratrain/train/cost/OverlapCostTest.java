package org.paratrain.train.cost;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.model.ConvNet;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * The overlapped exchange's exposed time against a timeline worked out by hand, and its limits:
 * with no computation to hide behind it is every bucket's allreduce one after the other, with
 * endless computation only the last bucket's; the layers' shares against multiply-adds counted
 * on paper; the bucket plan's cuts.
 */
class OverlapCostTest {
    /** A link of latency only: every allreduce of the ring at p = 2 costs 2 alpha, whatever its size. */
    static final Allreduce.Machine LATENCY = new Allreduce.Machine(1e-3, 0, 0);
    static final Allreduce.Machine LINK = new Allreduce.Machine(50e-6, 8e-9, 1e-11);
    static final ConversionRates.Conversion HALF = new ConversionRates.Conversion(2e-9, 1e-9, 0.5e-9);
    static final OverlapCost RING = new OverlapCost(Allreduces.create("ring"), new SumCost(Sum.FIXED_HALF, HALF));

    /** Three layers of 100, 400 and 500 parameters in backward order (the top first), as a model tells them. */
    static final int[] RANGES = {900, 1000, 500, 900, 0, 500};

    @Test
    void planCutsAfterTheLayerThatFillsABucket() {
        Buckets b = Buckets.plan(1000, RANGES, 300);
        assertArrayEquals(new int[] {500}, b.lo());         // 100 is short of 300; with the next, 500
        assertArrayEquals(new int[] {1000}, b.hi());
        assertArrayEquals(new int[] {1}, b.layer());
        assertEquals(500, b.rest());
        Buckets each = Buckets.plan(1000, RANGES, 1);
        assertArrayEquals(new int[] {900, 500}, each.lo());
        assertArrayEquals(new int[] {1, 1}, new int[] {each.early() - 1, each.layer()[0] + 1});
        assertNull(Buckets.plan(1000, RANGES, 1000), "one bucket: nothing to overlap");
        assertNull(Buckets.plan(1000, new int[] {900, 1000, 0, 800}, 1), "a gap between layers");
        assertNull(Buckets.plan(1000, null, 1));
    }

    /**
     * By hand, latency only (each allreduce 2 ms), buckets of at least 1 parameter: layers take
     * 0.1, 0.2, 0.3 of a 10 ms block, one own row, deposits at 2 ns: layer 0 done at
     * 1 ms + 100 x 2 ns, bucket 0 sent then, done 2 ms later; layer 1 done at 3 ms + 500 x 2 ns,
     * bucket 1 (waits for it) done 2 ms later; layer 2 done at 6 ms + 1,000 x 2 ns; then the rest
     * and the checks, 4 ms, and 1,001 values read back at 1 ns. Half words share no word across a
     * cut (the sum's layout is cut at each bucket's edge), odd or even.
     */
    @Test
    void timelineByHand() {
        Buckets b = Buckets.plan(1000, RANGES, 1);
        double[] shares = {0.1, 0.2, 0.3};
        double exposed = RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1, RANGES, LATENCY);
        double bucket1Done = 3e-3 + 500 * 2e-9 + 2e-3;
        double end = 6e-3 + 1000 * 2e-9;
        assertTrue(bucket1Done < end);
        assertEquals(4e-3 + 1001 * 1e-9, exposed, 1e-12);
        // Cut at an odd parameter: the same.
        int[] odd = {901, 1000, 500, 901, 0, 500};
        assertEquals(exposed, RING.exposedSeconds(2, 1000, Buckets.plan(1000, odd, 1), shares, 10e-3, 1, odd,
            LATENCY), 1e-12);
        // A block 10 times shorter: bucket 1 ends after the blocks, and the rest waits for it.
        double shortExposed = RING.exposedSeconds(2, 1000, b, shares, 1e-3, 1, RANGES, LATENCY);
        double t0 = 0.1e-3 + 100 * 2e-9;
        double f0 = t0 + 2e-3;
        double f1 = Math.max(f0, 0.3e-3 + 500 * 2e-9) + 2e-3;
        double t = 0.6e-3 + 1000 * 2e-9;
        assertEquals(f1 + 4e-3 - t + 1001 * 1e-9, shortExposed, 1e-12);
    }

    /**
     * Half the last block's chunks staged: each layer's backward on the timeline takes half its
     * share, which is the whole-block timeline of a block half as long (by hand: 0.5 ms, 1 ms and
     * 1.5 ms for the layers of a 10 ms block, deposits as before; bucket 1, sent at
     * 1.5 ms + 500 x 2 ns, ends at 3.5 ms + 500 x 2 ns, after the blocks' 3 ms + 1,000 x 2 ns).
     * Fewer staged chunks never hide more; all staged is the plain timeline; none is refused.
     */
    @Test
    void stagedChunksShortenTheTimeline() {
        Buckets b = Buckets.plan(1000, RANGES, 1);
        double[] shares = {0.1, 0.2, 0.3};
        double half = RING.exposedSeconds(2, 1000, b, shares, 10e-3, 0.5, 1, RANGES, LATENCY);
        assertEquals(RING.exposedSeconds(2, 1000, b, shares, 5e-3, 1, RANGES, LATENCY), half, 1e-15);
        double bucket1Done = Math.max(0.5e-3 + 100 * 2e-9 + 2e-3, 1.5e-3 + 500 * 2e-9) + 2e-3;
        double end = 3e-3 + 1000 * 2e-9;
        assertEquals(bucket1Done - end + 4e-3 + 1001 * 1e-9, half, 1e-12);
        assertEquals(RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1, RANGES, LATENCY),
            RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1, RANGES, LATENCY), 0.0);
        double before = 0;
        for (double staged = 1; staged > 0.05; staged -= 0.1) {
            double e = RING.exposedSeconds(2, 1000, b, shares, 2e-3, staged, 1, RANGES, LINK);
            assertTrue(e >= before - 1e-18, "fewer staged chunks never expose less: " + staged);
            before = e;
        }
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 1000, b, shares, 10e-3, 0.0, 1,
            RANGES, LATENCY));
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.5, 1,
            RANGES, LATENCY));
    }

    /**
     * The early buckets beside the computation at half an idle call's pace (latency 2 ms a call
     * there, 1 ms idle): by hand on the 10 ms block of {@link #timelineByHand}, bucket 0 from
     * 1 ms + 100 x 2 ns takes 4 ms; bucket 1 starts after it, is still in flight at the blocks'
     * end T = 6 ms + 1,000 x 2 ns, and does the rest of its call at the idle pace. Beside work as
     * fast as idle is the one-machine price; a bucket that starts after T pays the idle price.
     */
    @Test
    void bucketsBesideTheComputationUntilTheBlocksEnd() {
        Buckets b = Buckets.plan(1000, RANGES, 1);
        double[] shares = {0.1, 0.2, 0.3};
        Allreduce.Machine slow = new Allreduce.Machine(2e-3, 0, 0);
        double exposed = RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1, RANGES, LATENCY, slow);
        double f0 = 1e-3 + 100 * 2e-9 + 4e-3;
        double t = 6e-3 + 1000 * 2e-9;
        double f1 = t + (1 - (t - f0) / 4e-3) * 2e-3;
        assertEquals(f1 - t + 4e-3 + 1001 * 1e-9, exposed, 1e-12);
        assertEquals(RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1, RANGES, LATENCY),
            RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1, RANGES, LATENCY, LATENCY), 0.0);
        // No computation: every bucket starts at T, idle, whatever the pace beside work.
        assertEquals(RING.exposedSeconds(2, 1000, b, shares, 0, 1.0, 0, RANGES, LATENCY),
            RING.exposedSeconds(2, 1000, b, shares, 0, 1.0, 0, RANGES, LATENCY, slow), 1e-15);
        assertTrue(exposed > RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1, RANGES, LATENCY),
            "a slower pace beside work hides less");
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 1000, b, shares, 10e-3, 1.0, 1,
            RANGES, LATENCY, null));
    }

    /** No computation: every bucket after the other, as one call each; endless: the last bucket alone. */
    @Test
    void limits() {
        Buckets b = Buckets.plan(1000, RANGES, 1);
        double[] shares = {0.1, 0.2, 0.3};
        Allreduce ring = Allreduces.create("ring");
        SumCost sum = new SumCost(Sum.FIXED_HALF, HALF);
        double rest = ring.cost(2, sum.lossAndValueWords(501), LINK) + ring.cost(2, 3, LINK) + 1001 * 1e-9;
        double none = RING.exposedSeconds(2, 1000, b, shares, 0, 0, RANGES, LINK);
        assertEquals(ring.cost(2, sum.valueWords(100), LINK) + ring.cost(2, sum.valueWords(400), LINK) + rest, none,
            1e-15);
        assertEquals(rest, RING.exposedSeconds(2, 1000, b, shares, 10.0, 4, RANGES, LINK), 1e-15);
        double before = Double.MAX_VALUE;
        for (double block = 0; block < 2e-3; block += 1e-4) {
            double e = RING.exposedSeconds(2, 1000, b, shares, block, 2, RANGES, LINK);
            assertTrue(e <= before + 1e-18, "more computation never exposes more: " + block);
            assertTrue(e >= rest - 1e-18);
            before = e;
        }
    }

    @Test
    void refusesWhatItCannotPrice() {
        assertThrows(IllegalArgumentException.class, () -> new OverlapCost(Allreduces.create("ring"),
            new SumCost(Sum.FLOAT, ConversionRates.Conversion.FREE)));
        Buckets b = Buckets.plan(1000, RANGES, 1);
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 1000, b, new double[2], 1, 1, RANGES,
            LINK));
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 1000, b, new double[3], -1, 1,
            RANGES, LINK));
        assertThrows(IllegalArgumentException.class, () -> RING.exposedSeconds(2, 999, b, new double[3], 1, 1,
            RANGES, LINK), "a plan of other parameters");
        assertThrows(IllegalArgumentException.class, () -> new SumCost(Sum.FLOAT, HALF).valueWords(3));
        assertEquals(2, new SumCost(Sum.FIXED_HALF, HALF).valueWords(3));
        assertEquals(6, new SumCost(Sum.FIXED_2, HALF).valueWords(3));
        // A trainer's vector: the loss in a word of its own, as FixedSum(HALF_WORD, 1, n - 1) lays it out.
        assertEquals(new org.paratrain.collective.sum.FixedSum(org.paratrain.collective.sum.FixedFormat.HALF_WORD, 1, 9)
            .valueWords(), new SumCost(Sum.FIXED_HALF, HALF).lossAndValueWords(10));
        assertEquals(6, new SumCost(Sum.FIXED_HALF, HALF).lossAndValueWords(10));
        assertEquals(5, new SumCost(Sum.FIXED_HALF, HALF).lossAndValueWords(9));
        assertEquals(20, new SumCost(Sum.FIXED_2, HALF).lossAndValueWords(10));
    }

    /** 784-256-10: forward 200,704 and 2,560 multiply-adds; backward 200,704 (no input gradient) and 5,120. */
    @Test
    void perceptronSharesByHand() {
        MultilayerPerceptron m = new MultilayerPerceptron(784, new int[] {256}, 10,
            MultilayerPerceptron.Activation.RELU);
        double total = 200_704 + 2_560 + 200_704 + 5_120;
        assertArrayEquals(new double[] {5_120 / total, 200_704 / total}, m.backwardShares(), 1e-15);
        assertEquals(m.backwardRanges().length, 2 * m.backwardShares().length);
    }

    /**
     * 8x8x1, conv 4 of 3x3 (6x6x4 out, patch 9: 1,296), pool 2 (3x3x4), dense 16 (36 in: 576),
     * head 10 (16 in: 160); backward twice each but the first convolution's.
     */
    @Test
    void convolutionSharesByHand() {
        ConvNet net = new ConvNet(new ConvNet.Shape(8, 8, 1), List.of(new ConvNet.Conv(4, 3), new ConvNet.Pool(2),
            new ConvNet.Dense(16)), 10, MultilayerPerceptron.Precision.FLOAT32);
        double total = 1_296 * 2 + 576 * 3 + 160 * 3;
        assertArrayEquals(new double[] {320 / total, 1_152 / total, 1_296 / total}, net.backwardShares(), 1e-15);
        assertEquals(net.backwardRanges().length, 2 * net.backwardShares().length);
        // Pooled first (4x4x1), the convolution (2x2x4 out, patch 9: 144) is no longer the first stage: its
        // input's gradient is computed too.
        ConvNet pooled = new ConvNet(new ConvNet.Shape(8, 8, 1), List.of(new ConvNet.Pool(2), new ConvNet.Conv(4, 3),
            new ConvNet.Dense(16)), 10, MultilayerPerceptron.Precision.FLOAT32);
        double all = 3 * (144 + 256 + 160);
        assertArrayEquals(new double[] {320 / all, 512 / all, 288 / all}, pooled.backwardShares(), 1e-15);
        assertNull(new ConvNet(new ConvNet.Shape(8, 8, 1), List.of(new ConvNet.Conv(4, 3)), 10).backwardShares(),
            "float64 networks tell nothing during backward");
    }
}
