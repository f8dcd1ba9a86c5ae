package org.paratrain.train.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.collective.Allreduce;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * Each scheme's cost against the formula worked out by hand (bytes counted on paper for a few
 * p, parameter and block counts), and the properties any such formula must have: more ranks
 * never make master-worker cheaper, the block table grows with the blocks and a one-vector sum
 * does not, two words cost twice one word's traffic in the limit, one rank sends nothing.
 */
class ExchangeCostTest {
    static final double A = 1e-6;
    static final double B = 1e-9;
    static final double G = 1e-10;
    static final Allreduce.Machine M = new Allreduce.Machine(A, B, G);
    static final ConversionRates RATES = new ConversionRates(new ConversionRates.Conversion(2e-9, 1e-9, 0.5e-9),
        new ConversionRates.Conversion(5e-9, 4e-9, 1e-9), new ConversionRates.Conversion(3e-9, 1.5e-9, 0.7e-9));

    static double cost(String exchange, Sum sum, int p, int params, int blocks) {
        return ExchangeCost.of(ExchangeSpec.parse(exchange, sum), RATES).stepSeconds(p, params, blocks, M);
    }

    static double sharded(Sum sum, int p, int params, int blocks) {
        return ExchangeCost.of(ExchangeSpec.parse("ring", sum).sharded(), RATES).stepSeconds(p, params, blocks, M);
    }

    /** 9 parameters (10 values), by hand: rank 0 takes the rows it does not own and sends 10 doubles to each worker. */
    @Test
    void masterWorkerByHand() {
        // p 4, 8 blocks: 6 rows in + 3 weight messages = 9 x 80 bytes; 3 x 3 messages; 80 rows of 8 bytes added.
        assertEquals(9 * A + 720 * B + 640 * G, cost("master-worker", null, 4, 9, 8), 1e-18);
        // p 3, 7 blocks: rank 0 owns floor(7/3) = 2, so 5 rows in + 2 out = 560 bytes.
        assertEquals(6 * A + 560 * B + 560 * G, cost("master-worker", null, 3, 9, 7), 1e-18);
        assertEquals(640 * G, cost("master-worker", null, 1, 9, 8), 1e-20, "one rank: only the block sum");
    }

    /** The ring at p 4 moves 2 x 3/4 of the bytes and adds 3/4 of them: 6 alpha + 1.5 bytes beta + 0.75 bytes gamma. */
    @Test
    void ringAllreduceOfEachSumByHand() {
        // blocks: 80 doubles (640 bytes) reduced, then 80 added in block order.
        assertEquals(6 * A + 960 * B + (480 + 640) * G, cost("ring", Sum.BLOCKS, 4, 9, 8), 1e-18);
        // float: 2 own rows of 10 added (160 bytes), 10 doubles reduced.
        assertEquals(6 * A + 120 * B + (160 + 60) * G, cost("ring", Sum.FLOAT, 4, 9, 8), 1e-18);
        // fixed:1: 20 deposits at 2 ns, the last step's grid (no agreement), 13 words reduced (10 values, 2
        // checks, the count: 104 bytes), 10 read at 1 ns.
        assertEquals(6 * A + 156 * B + 78 * G + 40e-9 + 10e-9, cost("ring", Sum.FIXED_1, 4, 9, 8), 1e-18);
        // fixed:2: 20 deposits at 5 ns, 23 words reduced (184 bytes), 10 read at 4 ns.
        assertEquals(6 * A + 276 * B + 138 * G + 100e-9 + 40e-9, cost("ring", Sum.FIXED_2, 4, 9, 8), 1e-18);
        // p 3, 7 blocks: the busiest rank deposits 3 rows; ring factors 2(p-1) = 4 and (p-1)/p = 2/3.
        double fixed3 = 4 * A + 2 * (2.0 / 3) * 104 * B + (2.0 / 3) * 104 * G + 60e-9 + 10e-9;
        assertEquals(fixed3, cost("ring", Sum.FIXED_1, 3, 9, 7), 1e-18);
    }

    /**
     * A failed guess, by hand, ring at p 4, 8 blocks of 10 values: the busiest rank's 2 rows
     * observed (0.5 ns) and deposited (2 ns) again, the grid's 2 words agreed (6 alpha, 16 bytes
     * moved 1.5 times and added 0.75 times) and the 13 words reduced again; nothing for a float sum.
     */
    @Test
    void aFailedGuessByHand() {
        AllreduceCost ring = (AllreduceCost) ExchangeCost.of(ExchangeSpec.parse("ring", Sum.FIXED_1), RATES);
        double agree = 6 * A + 24 * B + 12 * G;
        double words = 6 * A + 156 * B + 78 * G;
        assertEquals(20 * 2.5e-9 + agree + words, ring.failedGuessSeconds(4, 9, 8, M), 1e-18);
        AllreduceCost half = (AllreduceCost) ExchangeCost.of(ExchangeSpec.parse("ring", Sum.FIXED_HALF), RATES);
        // Half words: the loss's word, 5 for the 9 gradient values, and 3 more (72 bytes), deposits at 3 ns
        // and observing at 0.7 ns.
        assertEquals(20 * 3.7e-9 + agree + 6 * A + 108 * B + 54 * G, half.failedGuessSeconds(4, 9, 8, M), 1e-18);
        assertEquals(0.0, ((AllreduceCost) ExchangeCost.of(ExchangeSpec.parse("ring", Sum.FLOAT), RATES))
            .failedGuessSeconds(4, 9, 8, M));
        // A run's first step agrees its grid: the steady step, 20 values observed at 0.5 ns, and the 2 words agreed.
        assertEquals(cost("ring", Sum.FIXED_1, 4, 9, 8) + 20 * 0.5e-9 + agree, ring.agreedStepSeconds(4, 9, 8, M), 1e-18);
        AllreduceCost plain = (AllreduceCost) ExchangeCost.of(ExchangeSpec.parse("ring", Sum.FLOAT), RATES);
        assertEquals(plain.stepSeconds(4, 9, 8, M), plain.agreedStepSeconds(4, 9, 8, M));
    }

    /**
     * Shared, p 4, 8 blocks of 10 values: one hand-off, the 6 blocks other ranks computed move
     * (480 bytes), and one thread observes (0.5 ns a value) and deposits (2 ns) all 80 values and
     * reads 10 back (1 ns): fixed sums agree their grid every step there.
     */
    @Test
    void sharedByHand() {
        assertEquals(A + 480 * B + 80 * 0.5e-9 + 80 * 2e-9 + 10e-9,
            ExchangeCost.of(ExchangeSpec.parse("shared", Sum.FIXED_1), RATES).stepSeconds(4, 9, 8, M), 1e-18);
    }

    /** Sharded: reduce-scatter (p-1) alpha + 3/4 bytes (beta + gamma), allgather (p-1) alpha + 3/4 bytes beta. */
    @Test
    void shardedRingByHand() {
        // fixed:1: the grid agreed (2 words, 16 bytes: the sharded exchange does not guess), RS of 13 words,
        // 3 values read (the largest chunk of 10 over 4), AG of 10; the 2 own rows of 10 observed before the
        // agreement (0.5 and 1 ns a value) and deposited (2 and 5 ns).
        assertEquals((6 + 3 + 3) * A + (24 + 78 + 60) * B + (12 + 78) * G + 10e-9 + 40e-9 + 3e-9,
            sharded(Sum.FIXED_1, 4, 9, 8), 1e-18);
        assertEquals((6 + 3 + 3) * A + (24 + 138 + 60) * B + (12 + 138) * G + 20e-9 + 100e-9 + 12e-9,
            sharded(Sum.FIXED_2, 4, 9, 8), 1e-18);
        // float: a ring allreduce is its reduce-scatter and allgather, so the two schemes cost the same.
        assertEquals(cost("ring", Sum.FLOAT, 4, 9, 8), sharded(Sum.FLOAT, 4, 9, 8), 1e-18);
        // Two words travel only one way, and each rank reads back a quarter: cheaper than the allreduce once
        // the bytes count more than the agreement's latency, which the allreduce saves by its guessed grid.
        assertTrue(sharded(Sum.FIXED_2, 4, 99_999, 8) < cost("ring", Sum.FIXED_2, 4, 99_999, 8));
        assertTrue(sharded(Sum.FIXED_1, 4, 9, 8) > cost("ring", Sum.FIXED_1, 4, 9, 8));
    }

    /** Another reduce-scatter and allgather plug in as formulas, without their classes. */
    @Test
    void shardedTakesAnyReduceScatterAndAllgather() {
        ShardedCost c = new ShardedCost((p, n, m) -> n * 1e-3, (p, n, m) -> n * 1e-6, (p, n, m) -> 7.0,
            new SumCost(Sum.FLOAT, ConversionRates.Conversion.FREE));
        assertEquals(10e-3 + 10e-6, c.stepSeconds(4, 9, 8, new Allreduce.Machine(0, 0, 0)), 1e-15);
        ShardedCost fixed = new ShardedCost((p, n, m) -> n * 1e-3, (p, n, m) -> n * 1e-6, (p, n, m) -> 7.0,
            new SumCost(Sum.FIXED_2, ConversionRates.Conversion.FREE));
        assertEquals(7.0 + 23e-3 + 10e-6, fixed.stepSeconds(4, 9, 8, new Allreduce.Machine(0, 0, 0)), 1e-12);
    }

    @Test
    void wordsOfEachSum() {
        assertEquals(8 * 10, SumCost.of(Sum.BLOCKS, RATES).words(10, 8));
        assertEquals(10, SumCost.of(Sum.FLOAT, RATES).words(10, 8));
        assertEquals(13, SumCost.of(Sum.FIXED_1, RATES).words(10, 8));
        assertEquals(23, SumCost.of(Sum.FIXED_2, RATES).words(10, 8));
        assertEquals(RATES.twoWords(), SumCost.of(Sum.FIXED_2, RATES).conversion());
        assertEquals(RATES.halfWord(), SumCost.of(Sum.FIXED_HALF, RATES).conversion());
        assertEquals(RATES.oneWord(), SumCost.of(Sum.FIXED_1, RATES).conversion());
        assertEquals(ConversionRates.Conversion.FREE, SumCost.of(Sum.FLOAT, RATES).conversion());
    }

    @Test
    void masterWorkerNeverGetsCheaperWithMoreRanks() {
        double last = 0;
        for (int p = 1; p <= 512; p++) {
            double t = cost("master-worker", null, p, 100, 256);
            assertTrue(t >= last, "p " + p);
            last = t;
        }
        Allreduce.Machine latency = new Allreduce.Machine(A, 0, 0);
        assertEquals(3 * 7 * A, new MasterWorkerCost().stepSeconds(8, 100, 256, latency), 1e-18);
    }

    /** The table's cost is linear in the blocks; a one-vector sum's traffic does not see them. */
    @ParameterizedTest
    @ValueSource(strings = {"star", "tree", "recursive-doubling", "ring", "rabenseifner"})
    void blocksGrowTheTableOnly(String algorithm) {
        double t1 = cost(algorithm, Sum.BLOCKS, 8, 50, 64);
        double t2 = cost(algorithm, Sum.BLOCKS, 8, 50, 128);
        double t3 = cost(algorithm, Sum.BLOCKS, 8, 50, 192);
        assertEquals(t2 - t1, t3 - t2, 1e-9 * t3);
        assertTrue(t2 > t1);
        Allreduce.Machine wire = new Allreduce.Machine(A, B, 0);     // no adding, no conversion: traffic alone
        for (Sum s : new Sum[] {Sum.FLOAT, Sum.FIXED_1, Sum.FIXED_2}) {
            ExchangeCost c = ExchangeCost.of(ExchangeSpec.parse(algorithm, s), ConversionRates.NONE);
            assertEquals(c.stepSeconds(8, 50, 64, wire), c.stepSeconds(8, 50, 4096, wire), 0.0, s.label());
        }
    }

    /** Without latency or adding, long vectors: one word costs what a double costs, two words twice as much. */
    @ParameterizedTest
    @ValueSource(strings = {"star", "tree", "recursive-doubling", "ring", "rabenseifner", "native"})
    void wordsSetTheBandwidthInTheLimit(String algorithm) {
        Allreduce.Machine wire = new Allreduce.Machine(0, B, 0);
        double f = ExchangeCost.of(ExchangeSpec.parse(algorithm, Sum.FLOAT), ConversionRates.NONE)
            .stepSeconds(6, 10_000_000, 6, wire);
        double one = ExchangeCost.of(ExchangeSpec.parse(algorithm, Sum.FIXED_1), ConversionRates.NONE)
            .stepSeconds(6, 10_000_000, 6, wire);
        double two = ExchangeCost.of(ExchangeSpec.parse(algorithm, Sum.FIXED_2), ConversionRates.NONE)
            .stepSeconds(6, 10_000_000, 6, wire);
        assertTrue(f < one && one < two);
        // By halves (ring, rabenseifner, native) the 3 check words go in a round of their own: 1e-6 more here.
        assertEquals(1.0, one / f, 1e-5);
        assertEquals(2.0, two / one, 1e-5);
    }

    /**
     * From 65,536 values, one or two words a value by ring, Rabenseifner or MPI's own between ranks
     * that are processes of their own go by halves, as the trainer sums them: the check words
     * and the count in a small allreduce of their own, priced on top of the step. By hand at p 4:
     * the ring's one-ring way sends them by recursive doubling, log2 4 = 2 exchanges of 3 words,
     * each alpha + 24 bytes beta + 24 bytes gamma; Rabenseifner by itself, a reduce-scatter and an
     * allgather of 2 steps each (4 alpha, 3/4 of 24 bytes moved twice and added once); MPI's own
     * is priced as the cheaper of recursive doubling and Rabenseifner, recursive doubling here.
     */
    @Test
    void byHalvesPaysTheCheckWordsRound() {
        int params = AllreduceCost.BY_HALVES;       // the loss makes it one more: by halves
        java.util.Map<String, Double> round = java.util.Map.of("ring", 2 * A + 48 * B + 48 * G,
            "rabenseifner", 4 * A + 36 * B + 18 * G, "native", 2 * A + 48 * B + 48 * G);
        for (String algorithm : new String[] {"ring", "rabenseifner", "native"}) {
            for (Sum s : new Sum[] {Sum.FIXED_1, Sum.FIXED_2}) {
                AllreduceCost flat = (AllreduceCost) ExchangeCost.of(ExchangeSpec.parse(algorithm, s), RATES);
                AllreduceCost twoLevels = new AllreduceCost(flat.algorithm(), flat.sum(), false);
                assertEquals(twoLevels.stepSeconds(4, params, 8, M) + round.get(algorithm),
                    flat.stepSeconds(4, params, 8, M), 1e-15, algorithm + " " + s.label());
                // One value fewer than the least: the plain way, no round more.
                assertEquals(twoLevels.stepSeconds(4, params - 2, 8, M), flat.stepSeconds(4, params - 2, 8, M), 0.0);
            }
        }
        // Half words share a word between two values of a range, and tree or recursive doubling has no halves.
        for (String spec : new String[] {"ring/" + Sum.FIXED_HALF.label(), "tree/" + Sum.FIXED_1.label(),
            "recursive-doubling/" + Sum.FIXED_1.label()}) {
            String[] parts = spec.split("/");
            AllreduceCost c = (AllreduceCost) ExchangeCost.of(ExchangeSpec.parse(parts[0], Sum.parse(parts[1])), RATES);
            assertEquals(new AllreduceCost(c.algorithm(), c.sum(), false).stepSeconds(4, params, 8, M),
                c.stepSeconds(4, params, 8, M), 0.0, spec);
        }
        assertTrue(AllreduceCost.goesByHalves(Sum.FIXED_1, AllreduceCost.BY_HALVES, "ring"));
        assertTrue(!AllreduceCost.goesByHalves(Sum.FIXED_1, AllreduceCost.BY_HALVES - 1, "ring"));
    }

    /** One rank sends nothing: what is left is the sum's own arithmetic, whatever the algorithm. */
    @ParameterizedTest
    @ValueSource(strings = {"star", "tree", "recursive-doubling", "ring", "rabenseifner", "native"})
    void oneRankPaysOnlyItsArithmetic(String algorithm) {
        // 8 rows of 10 deposited at 2 ns, 10 values read back at 1 ns.
        assertEquals(160e-9 + 10e-9, cost(algorithm, Sum.FIXED_1, 1, 9, 8), 1e-18);
        // 80 doubles added: the table in block order, or the one rank's rows.
        assertEquals(640 * G, cost(algorithm, Sum.BLOCKS, 1, 9, 8), 1e-20);
        assertEquals(640 * G, cost(algorithm, Sum.FLOAT, 1, 9, 8), 1e-20);
    }

    @ParameterizedTest
    @EnumSource(ExchangeSpec.Scheme.class)
    void eachSchemeHasItsClass(ExchangeSpec.Scheme scheme) {
        switch (scheme) {
            case MASTER_WORKER -> assertInstanceOf(MasterWorkerCost.class,
                ExchangeCost.of(ExchangeSpec.MASTER_WORKER, RATES));
            case ALLREDUCE -> assertInstanceOf(AllreduceCost.class, ExchangeCost.of(ExchangeSpec.parse("tree"), RATES));
            case SHARDED -> assertInstanceOf(ShardedCost.class,
                ExchangeCost.of(ExchangeSpec.parse("ring").sharded(), RATES));
            case AUTO -> assertThrows(IllegalArgumentException.class, () -> ExchangeCost.of(ExchangeSpec.AUTO, RATES));
        }
    }

    @Test
    void impossibleShapesAndSumsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> cost("ring", Sum.FIXED_1, 0, 9, 8));
        assertThrows(IllegalArgumentException.class, () -> cost("ring", Sum.FIXED_1, 2, -1, 8));
        assertThrows(IllegalArgumentException.class, () -> cost("master-worker", null, 2, 9, 0));
        assertThrows(IllegalArgumentException.class, () -> ShardedCost.of("ring", SumCost.of(Sum.BLOCKS, RATES)));
        assertThrows(IllegalArgumentException.class, () -> new ConversionRates.Conversion(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new ConversionRates.Conversion(0, Double.NaN, 0));
        assertThrows(IllegalArgumentException.class, () -> new ConversionRates.Conversion(0, 0, -1e-9));
    }
}
