package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * Every reduce-scatter and allgather of {@link AllreduceHalves} on the local backend, at 1-9,
 * 16 and 17 ranks, for lengths 0, 1, fewer than the ranks, p, p + 1 and long odd ones (the
 * longest beyond the local backend's 64 KB rendezvous), against an exact reference: 64-bit
 * words (in units of 1 and 2 words, with and without a trailing word, as the fixed-point sums
 * lay them out) against their sum modulo 2^64, so the same bits for every algorithm and rank
 * count; doubles against a BigDecimal sum, within the bound of any order of p - 1 additions,
 * and with every rank ending with the same bits once the allgather has copied the owners'.
 */
class ReduceScatterTest {
    static final int[] RANKS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17};

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String name : AllreduceHalves.portableNames()) {
            for (int p : RANKS) {
                out.add(Arguments.of(name, p));
            }
        }
        return out.stream();
    }

    static int[] lengths(int p) {
        return new int[] {0, 1, Math.max(0, p - 1), p, p + 1, 1001, 9001};
    }

    /** Rank r's word i of a case: random over the whole range (sums wrap), the extremes first. */
    static long word(int length, int rank, int i) {
        if (i < 2) {
            return i == 0 ? Long.MAX_VALUE - rank : Long.MIN_VALUE + rank;
        }
        return new SplittableRandom(length * 1_000_003L + rank * 65_537L + i).nextLong();
    }

    /** Rank r's double i: both signs, magnitudes over twelve decades, so that sums cancel. */
    static double value(int length, int rank, int i) {
        SplittableRandom rnd = new SplittableRandom(length * 7_919L + rank * 104_729L + i);
        return (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-6, 6));
    }

    @ParameterizedTest(name = "{0} halves on {1} ranks")
    @MethodSource("cases")
    void wordsAreExactAndEveryRankGetsEveryChunk(String name, int p) {
        // A rank that finds a wrong word throws, which ends every rank at once (one that
        // returned instead would leave the others waiting for its messages).
        LocalCluster.run(p, comm -> {
            AllreduceHalves halves = AllreduceHalves.create(name);
            for (int unit : new int[] {1, 2}) {
                for (int values : lengths(p)) {
                    for (int extra : new int[] {0, 1}) {
                        words(comm, halves, new Chunks(values, unit, p, values * unit + extra));
                    }
                }
            }
            return null;
        });
    }

    /** One case on one rank. */
    private static void words(Communicator comm, AllreduceHalves halves, Chunks chunks) {
        int n = chunks.length();
        long[] expected = new long[n + 2];
        long[] buf = new long[n + 2];          // sentinels either side: only the range is touched
        buf[0] = 17;
        buf[n + 1] = 19;
        expected[0] = 17;
        expected[n + 1] = 19;
        for (int i = 0; i < n; i++) {
            buf[1 + i] = word(n, comm.rank(), i);
            for (int r = 0; r < comm.size(); r++) {
                expected[1 + i] += word(n, r, i);
            }
        }
        halves.reduceScatter().reduceScatter(comm, buf, 1, chunks, Reduction.WORD_SUM);
        int r = comm.rank();
        assertArrayEquals(java.util.Arrays.copyOfRange(expected, 1 + chunks.start(r), 1 + chunks.start(r + 1)),
            java.util.Arrays.copyOfRange(buf, 1 + chunks.start(r), 1 + chunks.start(r + 1)),
            chunks + ": rank " + r + "'s chunk");
        halves.allgather().allgather(comm, buf, 1, chunks, Reduction.WORD_SUM);
        assertArrayEquals(expected, buf, chunks + ": gathered on rank " + r);
    }

    @ParameterizedTest(name = "{0} halves on {1} ranks")
    @MethodSource("cases")
    void doublesAreCorrectlyBoundedSumsWithTheSameBitsOnEveryRank(String name, int p) {
        for (int length : lengths(p)) {
            Chunks chunks = new Chunks(length, p);
            List<double[]> out = LocalCluster.run(p, comm -> {
                AllreduceHalves halves = AllreduceHalves.create(name);
                double[] buf = new double[length];
                for (int i = 0; i < length; i++) {
                    buf[i] = value(length, comm.rank(), i);
                }
                halves.reduceScatter().reduceScatter(comm, buf, 0, chunks, Reduction.DOUBLE_SUM);
                halves.allgather().allgather(comm, buf, 0, chunks, Reduction.DOUBLE_SUM);
                return buf;
            });
            for (int r = 1; r < p; r++) {
                assertArrayEquals(out.get(0), out.get(r), 0.0, name + ", " + length + " values: rank " + r);
            }
            for (int i = 0; i < length; i++) {
                assertWithinBound(out.get(0)[i], length, p, i);
            }
        }
    }

    /** Any order of p - 1 additions errs by at most gamma(p-1) times the sum of magnitudes. */
    private static void assertWithinBound(double got, int length, int p, int i) {
        BigDecimal exact = BigDecimal.ZERO;
        double magnitudes = 0;
        for (int r = 0; r < p; r++) {
            double x = value(length, r, i);
            exact = exact.add(new BigDecimal(x));
            magnitudes += Math.abs(x);
        }
        double u = Math.ulp(1.0) / 2;
        double bound = (p - 1) * u / (1 - (p - 1) * u) * magnitudes * (1 + 1e-12);
        double error = new BigDecimal(got).subtract(exact).abs().doubleValue();
        assertEquals(0.0, error > bound ? error : 0.0, "value " + i + " of " + length + " at " + p + " ranks: " + got
            + " against " + exact + ", bound " + bound);
    }

    @Test
    void chunksCutForAnotherGroupAreRefused() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
            new RecursiveHalvingReduceScatter().reduceScatter(comm, new long[6], 0, new Chunks(6, 3),
                Reduction.WORD_SUM);
            return null;
        }));
        assertEquals(IllegalArgumentException.class, e.getCause().getClass());
    }

    /**
     * After the first call sizes their scratch space, the halves allocate nothing of their own
     * (what the local backend allocates inside its calls is metered apart and not counted), at
     * 1 and 2 ranks: ranks run as platform threads only where each has a core, and the JVM
     * meters the allocation of platform threads only.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void nothingIsAllocatedAfterTheFirstCall(int p) {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= p,
            "fewer cores than ranks: the ranks are virtual threads");
        Chunks words = new Chunks(1001, 2, p, 2003);
        Chunks doubles = new Chunks(1001, p);
        for (String name : AllreduceHalves.portableNames()) {
            List<Long> allocated = LocalCluster.run(p, comm -> {
                MeteredCommunicator c = new MeteredCommunicator(comm);
                AllreduceHalves h = AllreduceHalves.create(name);
                long[] w = new long[words.length()];
                double[] d = new double[doubles.length()];
                long before = 0;
                long backend = 0;
                for (int round = 0; round < 21; round++) {
                    if (round == 1) {
                        before = MeteredCommunicator.allocated();
                        backend = c.backendBytes();
                    }
                    h.reduceScatter().reduceScatter(c, w, 0, words, Reduction.WORD_SUM);
                    h.allgather().allgather(c, w, 0, words, Reduction.WORD_SUM);
                    h.reduceScatter().reduceScatter(c, d, 0, doubles, Reduction.DOUBLE_SUM);
                    h.allgather().allgather(c, d, 0, doubles, Reduction.DOUBLE_SUM);
                }
                return MeteredCommunicator.allocated() - before - (c.backendBytes() - backend);
            });
            assertEquals(java.util.Collections.nCopies(p, 0L), allocated, name + ": bytes each rank allocated in 20 calls");
        }
    }
}
