package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.comm.local.LocalCluster;

/**
 * Every algorithm on 64-bit words, at every rank count of {@link AllreduceTest} that the
 * issue names, for lengths 0, 1, p-1, p and 1000, against the sum computed here (modulo 2^64,
 * as Java's {@code long} addition) and the maximum. The words are random over the whole range,
 * so partial sums wrap: the result must still be exact, whatever the order of the additions.
 */
class WordAllreduceTest {
    static final int[] RANKS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33};

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String name : Allreduces.portableNames()) {
            for (int p : RANKS) {
                for (Reduction<long[]> op : List.of(Reduction.WORD_SUM, Reduction.WORD_MAX)) {
                    out.add(Arguments.of(name, p, op));
                }
            }
        }
        return out.stream();
    }

    /** Rank r's word i: random, with the extremes at the first indices. */
    static long word(long seed, int rank, int i) {
        if (i < 3) {
            return i == 0 ? Long.MAX_VALUE - rank : i == 1 ? Long.MIN_VALUE + rank : -rank;
        }
        return new SplittableRandom(seed * 1_000_003L + rank * 65_537L + i).nextLong();
    }

    static long[] expected(long seed, int p, int length, Reduction<long[]> op) {
        long[] e = new long[length];
        for (int i = 0; i < length; i++) {
            e[i] = op == Reduction.WORD_SUM ? 0 : Long.MIN_VALUE;
            for (int r = 0; r < p; r++) {
                e[i] = op == Reduction.WORD_SUM ? e[i] + word(seed, r, i) : Math.max(e[i], word(seed, r, i));
            }
        }
        return e;
    }

    @ParameterizedTest(name = "{0} on {1} ranks, {2}")
    @MethodSource("cases")
    void combinesExactlyAtEveryLength(String name, int p, Reduction<long[]> op) {
        int[] lengths = {0, 1, Math.max(0, p - 1), p, 1000};
        List<String> failures = LocalCluster.run(p, comm -> {
            Allreduce algorithm = Allreduces.create(name);
            for (int length : lengths) {
                // Sentinels around the range check that only [offset, offset + length) is touched.
                long[] buf = new long[length + 2];
                buf[0] = -1;
                buf[length + 1] = -2;
                for (int i = 0; i < length; i++) {
                    buf[1 + i] = word(length, comm.rank(), i);
                }
                algorithm.allreduce(comm, buf, 1, length, op);
                long[] want = expected(length, p, length, op);
                for (int i = 0; i < length; i++) {
                    if (buf[1 + i] != want[i]) {
                        return "length " + length + ", word " + i + " on rank " + comm.rank() + ": " + buf[1 + i]
                            + " instead of " + want[i];
                    }
                }
                if (buf[0] != -1 || buf[length + 1] != -2) {
                    return "length " + length + ": wrote outside the range";
                }
            }
            return null;
        });
        for (String f : failures) {
            assertEquals(null, f);
        }
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> algorithms() {
        return net.jqwik.api.Arbitraries.of(Allreduces.portableNames());
    }

    /** Any algorithm, any rank count: the same words as the sequential sum, on every rank. */
    @Property(tries = 60)
    void everyAlgorithmGivesTheSequentialWords(@ForAll @IntRange(min = 1, max = 11) int p,
                                               @ForAll @IntRange(min = 0, max = 300) int length,
                                               @ForAll("algorithms") String name,
                                               @ForAll long seed) {
        long[] want = expected(seed, p, length, Reduction.WORD_SUM);
        List<long[]> results = LocalCluster.run(p, comm -> {
            long[] buf = new long[length];
            for (int i = 0; i < length; i++) {
                buf[i] = word(seed, comm.rank(), i);
            }
            Allreduces.create(name).allreduce(comm, buf, 0, length, Reduction.WORD_SUM);
            return buf;
        });
        for (int r = 0; r < p; r++) {
            assertArrayEquals(want, results.get(r), name + ": rank " + r);
        }
    }

    /** The double path through the generic code still sums, and the double maximum takes maxima. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("algorithmNames")
    void doubleMaximum(String name) {
        List<double[]> results = LocalCluster.run(5, comm -> {
            double[] buf = {comm.rank(), -comm.rank(), comm.rank() == 3 ? Double.NaN : 0.0};
            Allreduces.create(name).allreduce(comm, buf, 0, 3, Reduction.DOUBLE_MAX);
            return buf;
        });
        for (double[] r : results) {
            assertArrayEquals(new double[] {4, 0, Double.NaN}, r, 0.0);
        }
    }

    static Stream<String> algorithmNames() {
        return Allreduces.portableNames().stream();
    }
}
