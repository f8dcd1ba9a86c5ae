package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.paratrain.data.BlockSharding;
import org.paratrain.cli.experiment.Plan;
import org.paratrain.train.EpochModel;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.train.spec.ExchangeSpec;

class CostModelTest {
    static final Allreduce.Machine KNOWN = new Allreduce.Machine(2e-6, 1e-10, 3e-11);

    /** Times made by the algorithms' own formulas on a known machine: the fit must give that machine back. */
    @Test
    void fitRecoversTheMachineThatMadeTheTimes() {
        List<CostModel.Measurement> data = new ArrayList<>();
        for (String name : Allreduces.portableNames()) {
            for (int p : new int[] {2, 3, 4, 8}) {
                for (long n : new long[] {1, 100, 10_000, 1_000_000}) {
                    data.add(new CostModel.Measurement(name, p, n, Allreduces.create(name).cost(p, n, KNOWN)));
                }
            }
        }
        Allreduce.Machine fitted = CostModel.fit(data);
        assertEquals(KNOWN.alpha(), fitted.alpha(), 1e-6 * KNOWN.alpha());
        assertEquals(KNOWN.beta(), fitted.beta(), 1e-6 * KNOWN.beta());
        assertEquals(KNOWN.gamma(), fitted.gamma(), 1e-6 * KNOWN.gamma());
    }

    @Test
    void fitNeverReturnsNegativeParameters() {
        // Times that fall with size would need a negative beta; the fit pins it at zero instead.
        List<CostModel.Measurement> data = List.of(new CostModel.Measurement("ring", 2, 1, 5e-6),
            new CostModel.Measurement("ring", 2, 1_000_000, 1e-6), new CostModel.Measurement("star", 2, 1000, 3e-6));
        Allreduce.Machine m = CostModel.fit(data);
        assertTrue(m.alpha() >= 0 && m.beta() >= 0 && m.gamma() >= 0, m.toString());
    }

    /** Hand-computed: the ring at p = 4 and n = 1000 doubles. */
    @Test
    void ringCostByHand() {
        double bytes = 8000;
        double expected = 6 * KNOWN.alpha() + 2 * 0.75 * bytes * KNOWN.beta() + 0.75 * bytes * KNOWN.gamma();
        assertEquals(expected, new RingAllreduce().cost(4, 1000, KNOWN), 1e-18);
        // The formulas rank the algorithms as theory does: latency-bound short vectors favour
        // recursive doubling over the star, bandwidth-bound long ones favour Rabenseifner.
        assertTrue(Allreduces.create("recursive-doubling").cost(8, 1, KNOWN) < Allreduces.create("star").cost(8, 1,
            KNOWN));
        double rabenseifner = Allreduces.create("rabenseifner").cost(8, 10_000_000, KNOWN);
        for (String name : Allreduces.portableNames()) {
            assertTrue(rabenseifner <= Allreduces.create(name).cost(8, 10_000_000, KNOWN), name);
        }
    }

    /** The planner: no speedup for the paper's 500 x 1, a near-ideal one for 1,000,000 x 100. */
    @Test
    void planFindsWhereParallelismPays() {
        EpochModel m = new EpochModel(new Allreduce.Machine(4e-7, 1e-10, 1e-10), 1e-9, 2, 1e-7, ConversionRates.NONE);
        List<ExchangeSpec> ex = Plan.candidates(false, null, false);
        Plan.Row paper = Plan.fastest(Plan.rows(m, 500, 0, 1, ex, 1024));
        assertEquals(1, paper.nodes());
        List<Plan.Row> big = Plan.rows(m, 1_000_000, 0, 100, ex, 1024);
        Plan.Row best = Plan.fastest(big);
        assertEquals(2, best.nodes(), "2 cores: more ranks share them and gain nothing");
        assertTrue(big.get(0).bestSeconds() / best.bestSeconds() > 1.9);
        int even = (int) Plan.breakEven(m, 1, ex, 1024);
        assertTrue(even > 500 && even < 1_000_000, "break-even " + even);
        double t2 = m.epochSeconds(ExchangeSpec.MASTER_WORKER, 2, BlockSharding.byDefault(even), 1);
        double t1 = m.epochSeconds(ExchangeSpec.MASTER_WORKER, 1, BlockSharding.byDefault(even), 1);
        assertTrue(Math.min(t2, m.epochSeconds(ExchangeSpec.parse("recursive-doubling"), 2,
            BlockSharding.byDefault(even), 1)) < t1);
    }
}
