package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.local.LocalCluster;

/**
 * The ring reduce-scatter leaves each rank's own chunk equal to the exact sum over the ranks
 * (integer words, so exact), and the ring allgather then gives every rank every chunk; at
 * node counts 1-9, 12, 16, 17, 33, lengths 0, 1, p-1, p and 1000, in units of 1 and 2 words,
 * with and without a trailing word, as the fixed-point sums lay them out.
 */
class RingReduceScatterTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33})
    void eachRankHoldsTheExactSumOfItsChunkAndTheAllgatherGivesAll(int p) {
        for (int unit : new int[] {1, 2}) {
            for (int values : new int[] {0, 1, p - 1, p, 1000}) {
                check(p, unit, values, values * unit);
                check(p, unit, values, values * unit + 1);
            }
        }
    }

    private static void check(int p, int unit, int values, int length) {
        long[] expected = new long[length];
        for (int r = 0; r < p; r++) {
            long[] v = words(r, length);
            for (int i = 0; i < length; i++) {
                expected[i] += v[i];
            }
        }
        Chunks chunks = new Chunks(values, unit, p, length);
        List<long[]> out = LocalCluster.run(p, comm -> {
            long[] v = words(comm.rank(), length);
            new RingReduceScatter().reduceScatter(comm, v, 0, chunks, Reduction.WORD_SUM);
            int c = chunks.owned(comm.rank());
            for (int i = chunks.start(c); i < chunks.start(c + 1); i++) {
                assertEquals(expected[i], v[i], "rank " + comm.rank() + " word " + i);
            }
            new RingAllgather().allgather(comm, v, 0, chunks, Reduction.WORD_SUM);
            return v;
        });
        for (long[] v : out) {
            assertArrayEquals(expected, v, p + " ranks, unit " + unit + ", " + values + " values");
        }
    }

    private static long[] words(int rank, int length) {
        SplittableRandom rnd = new SplittableRandom(31L * rank + length);
        long[] v = new long[length];
        for (int i = 0; i < length; i++) {
            v[i] = rnd.nextLong(1L << 50) - (1L << 49);
        }
        return v;
    }
}
