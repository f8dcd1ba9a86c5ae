package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * {@link FixedSum#reduceInto}, the sum by halves (check words first, the value words
 * reduce-scattered, each rank converting its own chunk, the doubles allgathered): over the
 * steps of {@link GuessedGridTest}, guessed and agreed, it gives on every rank the bits one rank
 * gets by the whole allreduce and the whole conversion; a conversion that fails on one rank's
 * chunk fails every rank alike, and a failed guess sends the check words only.
 */
class ByHalvesTest {
    static final int SIZE = 1 + GuessedGridTest.PARAMS;

    /** Every step's sums on this rank by halves, guessing as training does; and how many guesses failed. */
    static double[][] run(Communicator comm, FixedFormat format, String algorithm, int[] failed) {
        return algorithm.equals("one ring") ? inOneRing(comm, format, failed) : byHalves(comm, format, algorithm, failed);
    }

    /** As {@link #byHalves}, by {@link FixedSum#ringInto}: the rank's blocks as a table of rows, deposited by the ring. */
    static double[][] inOneRing(Communicator comm, FixedFormat format, int[] failed) {
        int p = comm.size();
        int first = GuessedGridTest.BLOCKS * comm.rank() / p;
        int end = GuessedGridTest.BLOCKS * (comm.rank() + 1) / p;
        FixedSum sum = new FixedSum(format, 1, GuessedGridTest.PARAMS);
        var tail = Allreduces.create("tree");
        int stride = SIZE + 3;                        // rows with a gap after each, from index 2
        int q = Math.floorMod(comm.rank() - 1, p);
        int previous = GuessedGridTest.BLOCKS * (q + 1) / p - GuessedGridTest.BLOCKS * q / p;
        double[][] out = new double[GuessedGridTest.STEPS][SIZE + 2];
        for (int t = 0; t < GuessedGridTest.STEPS; t++) {
            double[] rows = new double[2 + (end - first) * stride];
            for (int b = first; b < end; b++) {
                System.arraycopy(GuessedGridTest.block(t, b), 0, rows, 2 + (b - first) * stride, SIZE);
            }
            sum.begin(GuessedGridTest.BLOCKS);
            if (sum.guessGrid()) {
                if (sum.ringInto(comm, tail, rows, 2, stride, end - first, previous, out[t], 1)) {
                    continue;
                }
                failed[0]++;
                sum.retry();
            }
            for (int b = first; b < end; b++) {
                sum.observe(0, rows, 2 + (b - first) * stride, SIZE);
            }
            sum.agree(comm, tail);
            assertTrue(sum.ringInto(comm, tail, rows, 2, stride, end - first, previous, out[t], 1), "an agreed grid always holds");
        }
        return out;
    }

    static double[][] byHalves(Communicator comm, FixedFormat format, String algorithm, int[] failed) {
        int p = comm.size();
        int first = GuessedGridTest.BLOCKS * comm.rank() / p;
        int end = GuessedGridTest.BLOCKS * (comm.rank() + 1) / p;
        FixedSum sum = new FixedSum(format, 1, GuessedGridTest.PARAMS);
        AllreduceHalves halves = AllreduceHalves.create(algorithm);
        var tail = Allreduces.create(algorithm);
        double[][] out = new double[GuessedGridTest.STEPS][SIZE + 2];
        for (int t = 0; t < GuessedGridTest.STEPS; t++) {
            sum.begin(GuessedGridTest.BLOCKS);
            boolean guessing = sum.guessGrid();
            if (guessing) {
                deposit(sum, t, first, end);
                long before = sum.words()[0];
                if (sum.reduceInto(comm, tail, halves, out[t], 1)) {
                    continue;
                }
                failed[0]++;
                assertEquals(before, sum.words()[0], "a failed guess leaves the value words unsent");
                sum.retry();
            }
            for (int b = first; b < end; b++) {
                sum.observe(0, GuessedGridTest.block(t, b), 0, SIZE);
            }
            sum.agree(comm, tail);
            deposit(sum, t, first, end);
            assertTrue(sum.reduceInto(comm, tail, halves, out[t], 1), "an agreed grid always holds");
        }
        return out;
    }

    private static void deposit(FixedSum sum, int t, int first, int end) {
        for (int b = first; b < end; b++) {
            sum.deposit(0, GuessedGridTest.block(t, b), 0, SIZE);
            sum.endBlock();
        }
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void byHalvesGivesTheWholeAllreducesBitsOnEveryRank(FixedFormat format) {
        double[][] whole = LocalCluster.run(1, c -> GuessedGridTest.run(c, format, Allreduces.create("star"), false))
            .get(0).sums();
        List<String> ways = new java.util.ArrayList<>(AllreduceHalves.portableNames());
        ways.add("one ring");
        for (int p : new int[] {1, 2, 3, 5, 8, 13, 16, 30}) {
            for (String name : ways) {
                int[][] failed = new int[p][1];
                List<double[][]> ranks = LocalCluster.run(p, c -> run(c, format, name, failed[c.rank()]));
                for (int r = 0; r < p; r++) {
                    for (int t = 0; t < GuessedGridTest.STEPS; t++) {
                        double[] got = ranks.get(r)[t];
                        assertEquals(0.0, got[0], "nothing written before the offset");
                        assertEquals(0.0, got[SIZE + 1], "nothing written after the values");
                        assertArrayEquals(whole[t], java.util.Arrays.copyOfRange(got, 1, SIZE + 1), 0.0,
                            name + " p=" + p + " rank " + r + " step " + t);
                    }
                    assertEquals(GuessedGridTest.changes(), failed[r][0], "guesses fail where a binade moved");
                }
            }
        }
    }

    /**
     * One rank that holds no row this step after one that held some: the sum is zero, not the
     * step before's words; and on a guessed grid a deposit after the words left is refused (the
     * check words, already written, would not count it).
     */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aRankWithoutRowsSumsZeroAndNoDepositFollowsTheWords(FixedFormat format) {
        LocalCluster.run(1, comm -> {
            FixedSum sum = new FixedSum(format, 1, 4);
            double[] v = {3.0, 0.5, -0.25, 0.125, 7.0};     // on every grid: the sum of one row is the row
            double[] out = new double[5];
            for (int t = 0; t < 2; t++) {
                sum.begin(2);
                if (!sum.guessGrid()) {
                    sum.observe(0, v, 0, 5);
                    sum.fixGrid();
                }
                assertTrue(sum.ringInto(comm, Allreduces.create("ring"), v, 0, 5, 1, 1, out, 0));
            }
            assertArrayEquals(v, out, 0.0);
            sum.begin(2);
            assertTrue(sum.guessGrid());
            // No value at all: no rank at the guessed bound, so the guess fails and the agreement follows.
            assertFalse(sum.ringInto(comm, Allreduces.create("ring"), v, 0, 5, 0, 0, out, 0));
            sum.retry();
            sum.fixGrid();
            assertTrue(sum.ringInto(comm, Allreduces.create("ring"), v, 0, 5, 0, 0, out, 0));
            assertArrayEquals(new double[5], out, 0.0, "no row: zero, not the step before's words");
            sum.begin(2);
            sum.observe(0, v, 0, 5);
            sum.fixGrid();
            sum.deposit(0, v, 0, 5);
            sum.endBlock();
            sum.begin(2);
            assertTrue(sum.guessGrid());
            sum.words();
            assertThrows(IllegalStateException.class, () -> sum.deposit(0, v, 0, 5));
            assertThrows(IllegalStateException.class, () -> sum.deposit(1, 0.5));
            return null;
        });
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aSumBeyondTheDoublesInOneRingFailsEveryRank(FixedFormat format) {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(3, comm -> {
            FixedSum sum = new FixedSum(format, 7);
            double[] v = new double[7];
            v[6] = 1.5 * Math.scalb(1.0, 1022);
            sum.begin(3);
            sum.observe(0, v, 0, 7);
            sum.agree(comm, Allreduces.create("ring"));
            sum.ringInto(comm, Allreduces.create("ring"), v, 0, 7, 1, 1, new double[7], 0);
            return null;
        }));
        assertTrue(e.getCause() instanceof SumOverflowException, String.valueOf(e.getCause()));
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aSumBeyondTheDoublesOnOneRanksChunkFailsEveryRank(FixedFormat format) {
        // Three ranks each deposit 1.5 * 2^1022 at the last index only: the sum, 4.5 * 2^1022, is
        // beyond the largest double, and only the last rank's chunk holds it.
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(3, comm -> {
            FixedSum sum = new FixedSum(format, 7);
            double[] v = new double[7];
            v[6] = 1.5 * Math.scalb(1.0, 1022);
            sum.begin(3);
            sum.observe(0, v, 0, 7);
            sum.agree(comm, Allreduces.create("ring"));
            sum.deposit(0, v, 0, 7);
            sum.endBlock();
            sum.reduceInto(comm, Allreduces.create("ring"), AllreduceHalves.create("ring"), new double[7], 0);
            return null;
        }));
        assertTrue(e.getCause() instanceof SumOverflowException, String.valueOf(e.getCause()));
    }

    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aLargeVectorByHalvesIsTheExactSumRounded(FixedFormat format) {
        // 10,007 values over 4 ranks and 2 segments: chunks cut across the segment boundary.
        int n = 10_007;
        List<double[]> ranks = LocalCluster.run(4, comm -> {
            FixedSum sum = new FixedSum(format, 3, n - 3);
            double[] v = values(comm.rank(), n);
            double[] out = new double[n];
            for (int t = 0; t < 2; t++) {
                sum.begin(4);
                if (!sum.guessGrid()) {
                    sum.observe(0, v, 0, n);
                    sum.agree(comm, Allreduces.create("ring"));
                }
                sum.deposit(0, v, 0, n);
                sum.endBlock();
                assertTrue(sum.reduceInto(comm, Allreduces.create("ring"), AllreduceHalves.create("rabenseifner"),
                    out, 0));
            }
            return out;
        });
        double[] segmentLargest = new double[2];
        for (int r = 0; r < 4; r++) {
            double[] v = values(r, n);
            for (int i = 0; i < n; i++) {
                segmentLargest[i < 3 ? 0 : 1] = Math.max(segmentLargest[i < 3 ? 0 : 1], Math.abs(v[i]));
            }
        }
        for (int i = 0; i < n; i++) {
            BigDecimal exact = BigDecimal.ZERO;
            for (int r = 0; r < 4; r++) {
                exact = exact.add(new BigDecimal(values(r, n)[i]));
            }
            // One word rounds each of the 4 deposits onto its segment's grid, far below the largest's ulp.
            double largest = segmentLargest[i < 3 ? 0 : 1];
            double got = ranks.get(0)[i];
            double error = exact.subtract(new BigDecimal(got)).abs().doubleValue();
            double bound = switch (format) {
                case ONE_WORD -> Math.ulp(exact.doubleValue()) + 4 * Math.ulp(largest);
                case TWO_WORDS -> Math.ulp(exact.doubleValue());
                case HALF_WORD -> Math.ulp(exact.doubleValue()) + 4 * Math.scalb(largest, FixedFormat.headroom(4) - 27);
            };
            assertTrue(error <= bound, i + ": error " + error + " > " + bound);
            for (int r = 1; r < 4; r++) {
                assertEquals(got, ranks.get(r)[i], 0.0, "rank " + r + " value " + i);
            }
        }
        assertFalse(ranks.get(0)[n - 1] == 0.0);
    }

    private static double[] values(int rank, int n) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(17 + rank);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-12, 6));
        }
        return v;
    }
}
