package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduce;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.EpochModel;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;
import org.paratrain.experiment.ConversionTiming;

/**
 * The planner's choice on synthetic machines whose right answer follows by arithmetic from
 * facts about the schemes (recursive doubling takes log2 p messages, master-worker 3(p-1),
 * a fixed sum one more allreduce for its grid), not from the cost classes themselves.
 */
class PlanTest {
    static final double ALPHA = 1e-5;
    /** 16,384 samples: 256 default blocks of 64, which 1..256 ranks share evenly. */
    static final int SAMPLES = 16_384;

    /** Latency only, and a gradient of 6 alpha at one rank: T(p) = 6 alpha / p + messages(p) alpha. */
    static EpochModel latencyOnly() {
        return new EpochModel(new Allreduce.Machine(ALPHA, 0, 0), 6 * ALPHA / SAMPLES, 1024, 0, ConversionRates.NONE);
    }

    /**
     * Summed by block, recursive doubling sends log2 p messages, fewest of all: 6/p + log2 p is
     * 6, 4, 3.5, 3.75 at p = 1, 2, 4, 8, so 4 ranks. The fixed sum, whose grid is the last step's
     * checked in the same message, sends as many: the same answer, where an agreement round (2 log2 p:
     * 6, 5, 5.5) would have made it 2 ranks.
     */
    @Test
    void latencyBoundPlanFollowsTheMessagesOfEachSum() {
        List<Plan.Row> blocks = Plan.rows(latencyOnly(), SAMPLES, 0, 1, Plan.candidates(false, Sum.BLOCKS, false), 64);
        Plan.Row best = Plan.fastest(blocks);
        assertEquals(4, best.nodes());
        assertEquals(ExchangeSpec.parse("recursive-doubling", Sum.BLOCKS), best.best());
        assertEquals(3.5 * ALPHA, best.bestSeconds(), 1e-12 * ALPHA);

        List<Plan.Row> fixed = Plan.rows(latencyOnly(), SAMPLES, 0, 1, Plan.candidates(false, null, false), 64);
        Plan.Row chosen = Plan.fastest(fixed);
        assertEquals(4, chosen.nodes());
        assertEquals(ExchangeSpec.parse("recursive-doubling", Sum.FIXED_1), chosen.best());
        assertEquals(3.5 * ALPHA, chosen.bestSeconds(), 1e-12 * ALPHA);
        assertEquals(6 * ALPHA, fixed.get(0).bestSeconds(), 1e-12 * ALPHA);
    }

    /**
     * Bandwidth-bound at 2 ranks with the block table of 256 rows of 10: master-worker receives
     * only the 128 rows rank 1 owns and sends 10 doubles back, 8 x 10 x 129 bytes; every
     * allreduce moves the whole table at least once, 8 x 10 x 256 bytes or more.
     */
    @Test
    void bandwidthBoundTablePrefersMasterWorker() {
        EpochModel m = new EpochModel(new Allreduce.Machine(1e-9, 1e-9, 0), 1e-9, 1024, 0, ConversionRates.NONE);
        BlockSharding sharding = Plan.sharding(SAMPLES, 0);
        Plan.Row two = Plan.row(m, sharding, 9, Plan.candidates(false, Sum.BLOCKS, false), 2);
        assertEquals(ExchangeSpec.parse("master-worker", Sum.BLOCKS), two.best());
        assertEquals(3e-9 + 8 * 10 * 129 * 1e-9, two.bestSeconds() - m.computeSeconds(sharding, 9, 2), 1e-15);
    }

    /** Costly conversions make the float sum the fastest; free ones, on a wire without latency, tie it with fixed:1. */
    @Test
    void conversionCostComesFromTheRates() {
        ConversionRates slow = new ConversionRates(new ConversionRates.Conversion(1e-6, 1e-6, 0),
            new ConversionRates.Conversion(2e-6, 2e-6, 0), new ConversionRates.Conversion(1e-6, 1e-6, 0));
        EpochModel m = new EpochModel(new Allreduce.Machine(1e-6, 1e-9, 1e-10), 1e-9, 1024, 0, slow);
        BlockSharding sharding = Plan.sharding(SAMPLES, 0);
        List<ExchangeSpec> sums = List.of(ExchangeSpec.parse("ring", Sum.FIXED_2), ExchangeSpec.parse("ring",
            Sum.FIXED_1), ExchangeSpec.parse("ring", Sum.FLOAT));
        Plan.Row r = Plan.row(m, sharding, 1000, sums, 4);
        assertEquals(Sum.FLOAT, r.best().sum());
        assertTrue(r.seconds()[0] > r.seconds()[1] && r.seconds()[1] > r.seconds()[2]);
        // 64 own rows of 1001 deposited and 1001 read back at 1 us: the difference the rates alone make
        EpochModel free = new EpochModel(m.machine(), 1e-9, 1024, 0, ConversionRates.NONE);
        ExchangeSpec one = ExchangeSpec.parse("ring", Sum.FIXED_1);
        assertEquals(65 * 1001 * 1e-6, m.exchangeSeconds(one, 4, sharding, 1000)
            - free.exchangeSeconds(one, 4, sharding, 1000), 1e-12);
    }

    @Test
    void candidatesCarryTheirSum() {
        List<ExchangeSpec> none = Plan.candidates(false, null, true);
        assertEquals(ExchangeSpec.MASTER_WORKER, none.get(0));
        assertEquals(7, none.size(), none.toString());
        assertTrue(none.subList(1, 6).stream().allMatch(e -> e.sum() == Sum.FIXED_1), none.toString());
        assertEquals(ExchangeSpec.Scheme.SHARDED, none.get(6).scheme());
        List<ExchangeSpec> blocks = Plan.candidates(true, Sum.BLOCKS, true);
        assertEquals(7, blocks.size(), "master-worker and six allreduces, native included; no sharded table");
        assertTrue(blocks.stream().allMatch(e -> e.sum() == Sum.BLOCKS));
        List<ExchangeSpec> two = Plan.candidates(false, Sum.FIXED_2, false);
        assertEquals(ExchangeSpec.parse("master-worker", Sum.FIXED_2), two.get(0), "master-worker takes every sum");
        assertTrue(two.stream().allMatch(e -> e.sum() == Sum.FIXED_2));
        assertEquals("ring+shard/fixed:2", Plan.label(ExchangeSpec.parse("ring", Sum.FIXED_2).sharded()));
        assertEquals("master-worker/fixed:1", Plan.label(ExchangeSpec.MASTER_WORKER));
        assertEquals("master-worker/blocks", Plan.label(ExchangeSpec.parse("master-worker", Sum.BLOCKS)));
        assertEquals("--allreduce ring --sum float --shard-optimizer",
            Plan.options(ExchangeSpec.parse("ring", Sum.FLOAT).sharded()));
        assertEquals("--allreduce master-worker", Plan.options(ExchangeSpec.MASTER_WORKER));
    }

    @Test
    void conversionIsMeasuredOnThisMachine() {
        ConversionRates r = ConversionTiming.rates();
        List<ConversionRates.Conversion> all = new java.util.ArrayList<>(List.of(r.oneWord(), r.twoWords(), r.halfWord()));
        for (org.paratrain.train.spec.ExchangeSpec.Sum s : List.of(org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_1,
            org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_2, org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_HALF)) {
            ConversionTiming.StepConversion step = ConversionTiming.stepConversion(s);
            all.add(step.median());
            all.add(step.mean());
        }
        assertEquals(ConversionRates.Conversion.FREE,
            ConversionTiming.stepConversion(org.paratrain.train.spec.ExchangeSpec.Sum.FLOAT).median());
        for (ConversionRates.Conversion c : all) {
            assertTrue(c.depositSeconds() > 0 && c.depositSeconds() < 1e-6, c.toString());
            assertTrue(c.readoutSeconds() > 0 && c.readoutSeconds() < 1e-6, c.toString());
            assertTrue(c.observeSeconds() > 0 && c.observeSeconds() < 1e-6, c.toString());
        }
    }

    /**
     * On the latency-only machine, star and ring both send 2(p-1) messages of one value and
     * tree and Rabenseifner 2 log2 p: the plot must draw each pair as one line, and keep every
     * exchange whose cost differs on its own.
     */
    @Test
    void exchangesThatCostTheSameShareOneLineOfThePlot() {
        List<ExchangeSpec> exchanges = Plan.candidates(false, Sum.BLOCKS, false);
        List<Plan.Row> rows = Plan.rows(latencyOnly(), SAMPLES, 0, 1, exchanges, 64);
        List<List<Integer>> groups = PlanPlot.coinciding(rows, exchanges.size());
        assertEquals(exchanges.size(), groups.stream().mapToInt(List::size).sum(), "every exchange drawn once");
        for (List<Integer> g : groups) {
            for (Plan.Row r : rows) {
                for (int k : g) {
                    assertEquals(r.seconds()[g.get(0)], r.seconds()[k], 0.01 * r.seconds()[g.get(0)], g.toString());
                }
            }
        }
        for (int a = 0; a < groups.size(); a++) {
            for (int b = a + 1; b < groups.size(); b++) {
                int i = groups.get(a).get(0);
                int j = groups.get(b).get(0);
                assertTrue(rows.stream().anyMatch(r -> Math.abs(r.seconds()[i] - r.seconds()[j])
                    > 0.01 * Math.max(r.seconds()[i], r.seconds()[j])), "groups " + a + " and " + b + " coincide");
            }
        }
        assertTrue(groups.size() < exchanges.size(), "some exchanges cost the same here: " + groups);
    }
}
