package org.paratrain.train.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.train.spec.ExchangeSpec;

/** {@code --allreduce auto} measured on the ranks: every rank the same choice, the fastest of what it timed. */
class ExchangeProbeTest {

    @ParameterizedTest(name = "{0} ranks, {1}")
    @CsvSource({"2, fixed:1", "3, fixed:half", "4, float", "2, blocks"})
    void everyRankTakesTheSameFastestCandidate(int p, String sumName) {
        ExchangeSpec.Sum sum = ExchangeSpec.Sum.parse(sumName);
        int params = 20_000;
        int blocks = 8;
        List<ExchangeProbe.Result> results = LocalCluster.run(p, comm -> ExchangeProbe.run(comm,
            ExchangeProbe.candidates(comm, sum), params, blocks));
        ExchangeProbe.Result first = results.get(0);
        for (ExchangeProbe.Result r : results) {
            assertEquals(first, r, "rank 0 and another rank chose from different figures");
        }
        // The local backend has no MPI: master-worker and the portable allreduces, all with the sum asked.
        assertEquals(1 + Allreduces.portableNames().size(), first.timings().size());
        double least = Double.POSITIVE_INFINITY;
        for (ExchangeProbe.Timing t : first.timings()) {
            assertEquals(sum, t.exchange().sum());
            assertEquals(t.exchange().scheme() == ExchangeSpec.Scheme.ALLREDUCE, t.measured(), t.toString());
            assertTrue(t.seconds() > 0 && Double.isFinite(t.seconds()), t.toString());
            least = Math.min(least, t.seconds());
        }
        double chosen = first.timings().stream().filter(t -> t.exchange().equals(first.chosen())).findFirst()
            .orElseThrow().seconds();
        assertEquals(least, chosen, 0.0);
        // The words are the sum's: one a value, half a value, or the block table's B rows.
        long n = params + 1L;
        long words = switch (sum) {
            case FIXED_1 -> n + 3;
            case FIXED_HALF -> (n + 1) / 2 + 3;
            case FLOAT -> n;
            case BLOCKS -> n * blocks;
            case FIXED_2 -> 2 * n + 3;
        };
        assertEquals(words, first.words());
        assertEquals(p, first.processes());
        assertTrue(first.link().alpha() >= 0 && first.link().beta() >= 0, first.link().toString());
    }

    /** A longer message takes longer: the probe times the step's size, not a fixed one. */
    @Test
    void theTimesFollowTheStepsSize() {
        ExchangeSpec ring = ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1);
        double small = LocalCluster.run(2, comm -> ExchangeProbe.run(comm, List.of(ring), 100, 1)).get(0)
            .timings().get(0).seconds();
        double large = LocalCluster.run(2, comm -> ExchangeProbe.run(comm, List.of(ring), 4_000_000, 1)).get(0)
            .timings().get(0).seconds();
        // 32 MB through memory against 800 bytes: far more than any noise of a shared machine.
        assertTrue(large > 20 * small, small + " s for 101 values, " + large + " s for 4,000,001");
    }
}
