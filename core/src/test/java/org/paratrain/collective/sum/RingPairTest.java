package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.RecursiveDoublingAllreduce;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * The pair path of {@link FixedSum#ringInto} (two ranks of one row each: the values travel, and
 * the owner adds the two roundings as doubles and scales them, never storing a word) at the
 * edge of what it can meet: on a grid carried from the step before, values just under its
 * bound {@code 2^E} round to words up to {@code 2^61 - 2^8}, whose sums of two come within
 * {@code 2^9} of {@code 2^62} and need rounding to a double (above {@code 2^53}). Its result is checked, value by value, against
 * an exact sum in {@link BigInteger} of the roundings {@code rint(x 2^-G)} converted once, and
 * against the careful path (words deposited, summed, read back).
 */
class RingPairTest {
    private static final int N = 4_096;

    @Test
    void twoRowsAtTheBoundGiveTheExactSumRoundedOnce() {
        var results = LocalCluster.run(2, comm -> {
            FixedSum sum = new FixedSum(FixedFormat.ONE_WORD, N);
            var tail = new RecursiveDoublingAllreduce();
            double[] out = new double[N];
            // Step 1 places a grid: magnitudes about 1.
            double[] first = new double[N];
            java.util.Arrays.fill(first, 1.5);
            sum.begin(2);
            if (!sum.guessGrid() || !sum.ringInto(comm, tail, first, 0, N, 1, 1, out, 0)) {
                sum.retry();
                sum.observe(0, first, 0, N);
                sum.agree(comm, tail);
                assertTrue(sum.ringInto(comm, tail, first, 0, N, 1, 1, out, 0));
            }
            int e = sum.grids[0].exponent();
            // Step 2: values just under 2^E, most of each pair of one sign, so that the words' sums reach 2^62.
            SplittableRandom rnd = new SplittableRandom(17 + comm.rank());
            double top = Math.scalb(1.0, e);
            double[] values = new double[N];
            for (int i = 0; i < N; i++) {
                // Below 2^(E-8) values have bits under the grid's unit (61 bits under 2^E): they round.
                double v = i % 8 == 7 ? Math.scalb(rnd.nextDouble(), e - rnd.nextInt(1, 4))
                    : i % 8 == 6 ? Math.scalb(rnd.nextDouble(), e - rnd.nextInt(40, 64))
                    : i % 8 == 5 ? (comm.rank() == 0 ? Math.scalb(rnd.nextDouble(), e - 1) : Math.scalb(0.7, e - 61))
                    : top - Math.ulp(top) * (1 + rnd.nextLong(1L << 20)) * (i % 3 == 0 ? 1 : 1L << 20);
                values[i] = i % 5 == 4 ? -v : v;
            }
            values[0] = Math.nextDown(top);      // the largest word the grid holds, 2^61 - 2^8, on both ranks
            sum.begin(2);
            assertTrue(sum.guessGrid(), "the grid is carried");
            assertTrue(sum.ringInto(comm, tail, values, 0, N, 1, 1, out, 0), "values under 2^E keep the carried grid");
            assertEquals(e, sum.grids[0].exponent());
            double unit = sum.grids[0].unit();
            // The careful path on the same grid: each rank's words deposited, summed, read back.
            FixedSum careful = new FixedSum(FixedFormat.ONE_WORD, N);
            var tree = Allreduces.create("tree");
            careful.begin(2);
            careful.observe(0, first, 0, N);
            careful.agree(comm, tree);
            careful.deposit(0, first, 0, N);
            careful.endBlock();
            careful.reduce(comm, tree);
            careful.begin(2);
            assertTrue(careful.guessGrid());
            careful.deposit(0, values, 0, N);
            careful.endBlock();
            careful.reduce(comm, tree);
            assertTrue(careful.guessHeld());
            double[] slow = new double[N];
            careful.get(0, slow, 0, N);
            assertEquals(e, careful.grids[0].exponent());
            return new Object[] {values, out, slow, unit};
        });
        double[] a = (double[]) results.get(0)[0];
        double[] b = (double[]) results.get(1)[0];
        double unit = (double) results.get(0)[3];
        BigDecimal u = new BigDecimal(unit);
        int above53 = 0;
        for (int i = 0; i < N; i++) {
            BigInteger w = new BigDecimal(Math.rint(a[i] / unit)).toBigIntegerExact()
                .add(new BigDecimal(Math.rint(b[i] / unit)).toBigIntegerExact());
            assertTrue(w.abs().compareTo(BigInteger.ONE.shiftLeft(62)) <= 0, "a sum of two words within 2^62");
            above53 += w.abs().bitLength() > 53 ? 1 : 0;
            double exact = new BigDecimal(w).multiply(u).doubleValue();
            for (Object[] r : results) {
                assertEquals(exact, ((double[]) r[1])[i], 0.0, "value " + i + " in one ring");
                assertEquals(exact, ((double[]) r[2])[i], 0.0, "value " + i + " the careful way");
            }
        }
        assertTrue(above53 > N / 2, "most sums need rounding: " + above53);
        assertEquals(2 * a[0], ((double[]) results.get(0)[1])[0], 0.0, "the largest sum, 2^62 - 2^9 words");
    }

    /**
     * A value the grid was not agreed on (rank 1 leaves it out of what it observes, a misuse) is
     * refused by the rank that owns its chunk, though its own values are all within the bound and
     * the loop has summed the received values in place: beyond the bound, a range of the previous
     * rank's values is named; not finite, the index.
     */
    @Test
    void aValueOfThePreviousRankBeyondTheGridIsRefused() {
        for (double bad : new double[] {1e6, Double.NaN}) {
            RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
                double[] v = new double[16];
                java.util.Arrays.fill(v, 0.25);
                FixedSum sum = new FixedSum(FixedFormat.ONE_WORD, 16);
                sum.begin(2);
                sum.observe(0, v, 0, 16);          // before the bad value: the grid fits 0.25
                sum.agree(comm, new RecursiveDoublingAllreduce());
                if (comm.rank() == 1) {
                    v[3] = bad;                     // in chunk 0, which rank 0 owns and sums
                }
                sum.ringInto(comm, new RecursiveDoublingAllreduce(), v, 0, 16, 1, 1, new double[16], 0);
                return null;
            }));
            Throwable cause = e.getCause();
            if (Double.isNaN(bad)) {
                assertTrue(cause instanceof NonFiniteValueException && cause.getMessage().contains("index 3"),
                    String.valueOf(cause));
            } else {
                assertTrue(cause instanceof SumOverflowException && cause.getMessage().contains("previous rank")
                    && cause.getMessage().contains("indices 0 to 7"), String.valueOf(cause));
            }
        }
    }
}
