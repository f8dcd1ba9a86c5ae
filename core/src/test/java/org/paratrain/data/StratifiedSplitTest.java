package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The validation split: disjoint parts that together are the data, ceil(f n) held out, and
 * each class held out in its own proportion (within one sample), counted independently here.
 */
class StratifiedSplitTest {
    @Property(tries = 200)
    void partsAreDisjointCompleteAndStratified(@ForAll @IntRange(min = 4, max = 300) int n,
                                               @ForAll @IntRange(min = 2, max = 5) int classes,
                                               @ForAll @DoubleRange(min = 0.05, max = 0.5) double f,
                                               @ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 4294967295L) long seed) {
        double[] x = new double[n];
        double[] y = new double[n];
        java.util.Random r = new java.util.Random(seed);
        for (int i = 0; i < n; i++) {
            x[i] = i;                                   // each sample's feature is its index
            y[i] = i < classes ? i : r.nextInt(classes);   // every class present
        }
        int[] perClass = new int[classes];
        for (double v : y) {
            perClass[(int) v]++;
        }
        // A class of one sample cannot give one away; such data is refused (the refusal is the other test).
        net.jqwik.api.Assume.that(Arrays.stream(perClass).allMatch(k -> k >= 2));
        TrainTestSplit s = TrainTestSplit.stratified(new Dataset(x, y, n, 1), f, seed, true, "--val-fraction");
        int held = (int) Math.ceil(f * n);
        assertEquals(n, s.train().samples() + s.test().samples());
        double[] all = new double[n];
        System.arraycopy(s.train().x(), 0, all, 0, s.train().samples());
        System.arraycopy(s.test().x(), 0, all, s.train().samples(), s.test().samples());
        Arrays.sort(all);
        for (int i = 0; i < n; i++) {
            assertEquals(i, all[i], 0.0, "every sample once");
        }
        assertTrue(s.test().samples() <= held, s.test().samples() + " > " + held);
        for (int c = 0; c < classes; c++) {
            int total = 0;
            int out = 0;
            for (double v : y) {
                total += v == c ? 1 : 0;
            }
            for (double v : s.test().y()) {
                out += v == c ? 1 : 0;
            }
            assertTrue(Math.abs(out - f * total) <= 1.0 + 1e-9, "class " + c + ": " + out + " of " + total);
            assertTrue(out < total, "class " + c + " keeps a training sample");
        }
    }

    @org.junit.jupiter.api.Test
    void classesOfOneSampleEachCannotBeSplit() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> TrainTestSplit.stratified(new Dataset(new double[3], new double[] {0, 1, 2}, 3, 1), 0.3, 1, true,
                "--val-fraction"));
        assertTrue(e.getMessage().startsWith("--val-fraction 0.3 holds out no sample"), e.getMessage());
    }

    @Property(tries = 50)
    void theSameSeedGivesTheSameSplit(@ForAll @IntRange(min = 4, max = 200) int n, @ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 4294967295L) long seed) {
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i;
            y[i] = i % 3;
        }
        Dataset d = new Dataset(x, y, n, 1);
        assertTrue(Arrays.equals(TrainTestSplit.stratified(d, 0.3, seed, true, "v").test().x(),
            TrainTestSplit.stratified(d, 0.3, seed, true, "v").test().x()));
    }
}
