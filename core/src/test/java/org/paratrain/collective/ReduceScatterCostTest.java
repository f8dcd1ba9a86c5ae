package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.local.LocalCluster;

/**
 * The Hockney formulas of the reduce-scatters and allgathers: by hand where Thakur et al. give
 * them (powers of two), the ring's halves adding up to the ring allreduce and recursive halving
 * and doubling to Rabenseifner's; and against the messages each algorithm really sends, counted
 * on the rank that receives the most: as many messages and words as the formula's alpha and
 * beta terms at a power of two, no more than them otherwise.
 */
class ReduceScatterCostTest {
    static final Allreduce.Machine M = new Allreduce.Machine(2e-6, 1e-10, 3e-11);
    static final Allreduce.Machine ALPHA = new Allreduce.Machine(1, 0, 0);
    static final Allreduce.Machine BETA = new Allreduce.Machine(0, 1, 0);

    @Test
    void powersOfTwoByHand() {
        double bytes = 8.0 * 1000;
        double part = 7.0 / 8 * bytes;
        assertEquals(3 * M.alpha() + part * (M.beta() + M.gamma()), new RecursiveHalvingReduceScatter().cost(8, 1000, M),
            1e-18);
        assertEquals(3 * M.alpha() + part * M.beta(), new RecursiveDoublingAllgather().cost(8, 1000, M), 1e-18);
        assertEquals(7 * M.alpha() + part * (M.beta() + M.gamma()), new RingReduceScatter().cost(8, 1000, M), 1e-18);
        assertEquals(7 * M.alpha() + part * M.beta(), new RingAllgather().cost(8, 1000, M), 1e-18);
        for (int p : new int[] {1, 2, 4, 8, 16, 64}) {
            assertEquals(new RabenseifnerAllreduce().cost(p, 1000, M), AllreduceHalves.create("rabenseifner")
                .cost(p, 1000, M), 1e-15, p + " ranks");
        }
    }

    @Test
    void threeRanksByHand() {
        double chunk = 8.0 * 999 / 3;
        // One round between the power of two, in which the rank that stands for two receives
        // its two chunks; the fold in (the whole vector) and out (one chunk, or the whole).
        double rs = M.alpha() + 2 * chunk * (M.beta() + M.gamma()) + 2 * M.alpha() + 3 * chunk * (M.beta()
            + M.gamma()) + chunk * M.beta();
        assertEquals(rs, new RecursiveHalvingReduceScatter().cost(3, 999, M), 1e-18);
        double ag = M.alpha() + 2 * chunk * M.beta() + 2 * M.alpha() + (chunk + 3 * chunk) * M.beta();
        assertEquals(ag, new RecursiveDoublingAllgather().cost(3, 999, M), 1e-18);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17})
    void ringHalvesAddUpToTheRingAllreduce(int p) {
        assertEquals(new RingAllreduce().cost(p, 12345, M), AllreduceHalves.create("ring").cost(p, 12345, M), 1e-15);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17})
    void theFormulasCountTheMessagesAndWordsOfTheBusiestRank(int p) {
        int n = 5 * 7 * 9 * 16 * 17;          // chunks of equal size at every p tested
        for (String name : AllreduceHalves.portableNames()) {
            AllreduceHalves h = AllreduceHalves.create(name);
            long[][] rs = counted(p, n, true, name);
            long[][] ag = counted(p, n, false, name);
            check(h.reduceScatter().cost(p, n, ALPHA), h.reduceScatter().cost(p, n, BETA) / 8, rs, p, name + " rs");
            check(h.allgather().cost(p, n, ALPHA), h.allgather().cost(p, n, BETA) / 8, ag, p, name + " ag");
        }
    }

    private static void check(double messages, double words, long[][] counts, int p, String what) {
        long mostMessages = 0;
        long mostWords = 0;
        for (long[] c : counts) {
            mostMessages = Math.max(mostMessages, c[0]);
            mostWords = Math.max(mostWords, c[1]);
        }
        if (Integer.bitCount(p) == 1) {
            assertEquals(messages, mostMessages, 0.0, what + " messages at " + p);
            assertEquals(words, mostWords, 1e-9, what + " words at " + p);
        } else {
            assertTrue(mostMessages <= messages, what + " messages at " + p + ": " + mostMessages + " > " + messages);
            assertTrue(mostWords <= words + 1e-9, what + " words at " + p + ": " + mostWords + " > " + words);
        }
    }

    /** Messages and words each rank received in one reduce-scatter or allgather of n words. */
    private static long[][] counted(int p, int n, boolean reduceScatter, String name) {
        List<long[]> out = LocalCluster.run(p, comm -> {
            MeteredCommunicator c = new MeteredCommunicator(comm);
            AllreduceHalves h = AllreduceHalves.create(name);
            if (reduceScatter) {
                h.reduceScatter().reduceScatter(c, new long[n], 0, new Chunks(n, p), Reduction.WORD_SUM);
            } else {
                h.allgather().allgather(c, new long[n], 0, new Chunks(n, p), Reduction.WORD_SUM);
            }
            return new long[] {c.messages(), c.words()};
        });
        return out.toArray(long[][]::new);
    }
}
