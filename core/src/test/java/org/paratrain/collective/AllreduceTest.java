package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.comm.local.LocalCluster;

/**
 * Every algorithm at every rank count the issue names, for vectors of length 0, 1, p-1, p,
 * 1000 and 1,000,000, against a sequential sum. The values are integers, so every order of
 * addition gives the exact sum and any difference is a bug, not rounding.
 */
class AllreduceTest {
    static final int[] RANKS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 32, 33};

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String name : Allreduces.portableNames()) {
            for (int p : RANKS) {
                out.add(Arguments.of(name, p));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @MethodSource("cases")
    void sumsExactlyAtEveryLength(String name, int p) {
        int[] lengths = {0, 1, Math.max(0, p - 1), p, 1000, 1_000_000};
        List<String> failures = LocalCluster.run(p, comm -> {
            Allreduce algorithm = Allreduces.create(name);
            for (int length : lengths) {
                // Sentinels around the range check that only [offset, offset + length) is touched.
                double[] buf = new double[length + 2];
                buf[0] = -1;
                buf[length + 1] = -2;
                for (int i = 0; i < length; i++) {
                    buf[1 + i] = comm.rank() * 7.0 + i % 1000;
                }
                algorithm.allreduce(comm, buf, 1, length);
                for (int i = 0; i < length; i++) {
                    double expected = 7.0 * p * (p - 1) / 2 + (double) p * (i % 1000);
                    if (buf[1 + i] != expected) {
                        return "length " + length + ", element " + i + " on rank " + comm.rank() + ": " + buf[1 + i]
                            + " instead of " + expected;
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

    /** Every portable algorithm, drawn from the registry so that a new one is tested too. */
    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> algorithms() {
        return net.jqwik.api.Arbitraries.of(Allreduces.portableNames());
    }

    /** Arbitrary doubles: every rank ends with the same bits, close to the sequential sum. */
    @Property(tries = 60)
    void everyRankGetsTheSameBits(@ForAll @IntRange(min = 1, max = 11) int p,
                                  @ForAll @IntRange(min = 0, max = 300) int length,
                                  @ForAll("algorithms") String name,
                                  @ForAll long seed) {
        double[][] inputs = new double[p][length];
        Random rnd = new Random(seed);
        double[] expected = new double[length];
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < length; i++) {
                inputs[r][i] = rnd.nextGaussian() * Math.pow(10, rnd.nextInt(6));
                expected[i] += inputs[r][i];
            }
        }
        List<double[]> results = LocalCluster.run(p, comm -> {
            double[] buf = inputs[comm.rank()].clone();
            Allreduces.create(name).allreduce(comm, buf, 0, length);
            return buf;
        });
        for (int r = 1; r < p; r++) {
            assertArrayEquals(results.get(0), results.get(r), 0.0, name + ": rank " + r + " differs from rank 0");
        }
        for (int i = 0; i < length; i++) {
            assertEquals(expected[i], results.get(0)[i], 1e-9 * (1 + Math.abs(expected[i])) * 1e6);
        }
    }
}
