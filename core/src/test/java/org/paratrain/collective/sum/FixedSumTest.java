package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The fixed-point sum against the exact sum (BigDecimal): values of very different
 * magnitudes, cancellation, zeros and -0.0, subnormals and the largest finite values, in both
 * formats. Each step is summed once whole and once as ranks would: the blocks permuted, split
 * into groups, each group an accumulator of its own, the exponents agreed by maximum, the
 * groups merged in a random order. The words, and so the doubles, must be identical; the
 * result must be the correct rounding of the words' exact value and within the bound that
 * {@link FixedFormat} states.
 */
class FixedSumTest {
    /** How the values of a step are drawn. */
    enum Kind { WIDE, NARROW, CANCEL, SUBNORMAL, EXTREME }

    /** The partials of a step: {@code blocks[b][i]}, NaN where block b deposits nothing at i. */
    record Step(FixedFormat format, int[] segments, double[][] blocks) {
        int length() {
            return blocks[0].length;
        }
    }

    static final double[] EXTREMES = {0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL,
        Double.MAX_VALUE, -Double.MAX_VALUE, Math.nextDown(Double.MAX_VALUE), 1.0, -1.0, 0x1p-1060, 3e-320};

    static double value(Kind kind, SplittableRandom rnd, double[][] blocks, int b, int i) {
        double sign = rnd.nextBoolean() ? 1 : -1;
        return switch (kind) {
            case WIDE -> sign * (1 + rnd.nextDouble()) * Math.scalb(1.0, rnd.nextInt(-1074, 1015));
            case NARROW -> rnd.nextGaussian() * Math.pow(10, rnd.nextInt(-3, 4));
            case CANCEL -> b % 2 == 1 && !Double.isNaN(blocks[b - 1][i]) ? -blocks[b - 1][i] + (rnd.nextInt(4) == 0
                ? sign * 1e-20 * rnd.nextDouble() : 0.0) : sign * Math.scalb(1 + rnd.nextDouble(), rnd.nextInt(-60, 60));
            case SUBNORMAL -> rnd.nextInt(5) == 0 ? sign * Double.MIN_NORMAL * (1 + rnd.nextDouble())
                : sign * Double.MIN_VALUE * rnd.nextLong(1L << 52);
            case EXTREME -> EXTREMES[rnd.nextInt(EXTREMES.length)];
        };
    }

    static Step step(long seed, FixedFormat format, Kind kind, int blocks, int length) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] v = new double[blocks][length];
        for (int b = 0; b < blocks; b++) {
            for (int i = 0; i < length; i++) {
                v[b][i] = rnd.nextInt(6) == 0 ? Double.NaN : value(kind, rnd, v, b, i);
            }
        }
        int first = rnd.nextInt(length + 1);
        int second = rnd.nextInt(length - first + 1);
        return new Step(format, new int[] {first, second, length - first - second}, v);
    }

    /** Sums the blocks in {@code order}, split into {@code groups} accumulators merged in a random order. */
    static FixedSum sum(Step st, List<Integer> order, int groups, SplittableRandom rnd) {
        int n = st.blocks().length;
        List<FixedSum> parts = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            FixedSum part = new FixedSum(st.format(), st.segments());
            part.begin(n);
            forEachBlock(st, order, g, groups, (index, x) -> part.observe(index, x));
            parts.add(part);
        }
        long[] max = parts.get(0).exponentWords().clone();
        for (FixedSum part : parts) {
            long[] e = part.exponentWords();
            for (int s = 0; s < e.length; s++) {
                max[s] = Math.max(max[s], e[s]);
            }
        }
        for (int g = 0; g < groups; g++) {
            FixedSum part = parts.get(g);
            System.arraycopy(max, 0, part.exponentWords(), 0, max.length);   // what the maximum allreduce leaves
            part.fixGrid();
            deposit(st, order, g, groups, part);
        }
        Collections.shuffle(parts, new java.util.Random(rnd.nextLong()));
        for (int g = 1; g < groups; g++) {
            parts.get(0).merge(parts.get(g));
        }
        return parts.get(0);
    }

    interface Visit {
        void at(int index, double x);
    }

    /** Group g's blocks: the g-th contiguous share of {@code order}, as ranks own blocks. */
    static void forEachBlock(Step st, List<Integer> order, int g, int groups, Visit visit) {
        int n = order.size();
        for (int k = n * g / groups; k < n * (g + 1) / groups; k++) {
            double[] block = st.blocks()[order.get(k)];
            for (int i = 0; i < block.length; i++) {
                if (!Double.isNaN(block[i])) {
                    visit.at(i, block[i]);
                }
            }
        }
    }

    static void deposit(Step st, List<Integer> order, int g, int groups, FixedSum part) {
        int n = order.size();
        for (int k = n * g / groups; k < n * (g + 1) / groups; k++) {
            double[] block = st.blocks()[order.get(k)];
            for (int i = 0; i < block.length; i++) {
                if (!Double.isNaN(block[i])) {
                    part.deposit(i, block[i]);
                }
            }
            part.endBlock();
        }
    }

    @Property(tries = 400)
    void sameBitsForEverySplitAndWithinTheBound(@ForAll long seed, @ForAll FixedFormat format, @ForAll Kind kind,
                                               @ForAll @IntRange(min = 1, max = 40) int blocks,
                                               @ForAll @IntRange(min = 1, max = 12) int length) {
        Step st = step(seed, format, kind, blocks, length);
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
        List<Integer> identity = new ArrayList<>();
        for (int b = 0; b < blocks; b++) {
            identity.add(b);
        }
        FixedSum whole = sum(st, identity, 1, rnd);
        List<Integer> shuffled = new ArrayList<>(identity);
        Collections.shuffle(shuffled, new java.util.Random(seed));
        FixedSum split = sum(st, shuffled, 1 + rnd.nextInt(blocks), rnd);
        assertArrayEquals(whole.words(), split.words(), "the words depend on the split");
        assertEquals(blocks, split.blocksDeposited());
        for (int i = 0; i < length; i++) {
            checkIndex(st, whole, i);
        }
    }

    /** The result at i: the correct rounding of the words, within the bound of the exact sum. */
    static void checkIndex(Step st, FixedSum sum, int i) {
        int s = segment(st.segments(), i);
        int g = sum.gridExponent(s);
        int lowBits = FixedFormat.lowBits(st.blocks().length);
        long[] w = sum.words();
        BigDecimal words = switch (st.format()) {
            case ONE_WORD -> Exact.of(w[i], g);
            case TWO_WORDS -> Exact.of(w[2 * i], w[2 * i + 1], lowBits, g);
            case HALF_WORD -> roundedDeposits(st, i, g);     // lanes are not read apart here: from the deposits
        };
        double expected = Exact.round(words);
        if (Double.isInfinite(expected)) {
            assertThrows(SumOverflowException.class, () -> sum.get(i));
            return;
        }
        double r = sum.get(i);
        assertEquals(Double.doubleToRawLongBits(expected == 0 ? 0.0 : expected), Double.doubleToRawLongBits(r));
        double[] bulk = new double[1];
        sum.get(i, bulk, 0, 1);
        assertEquals(Double.doubleToRawLongBits(r), Double.doubleToRawLongBits(bulk[0]));
        BigDecimal exact = BigDecimal.ZERO;
        int n = 0;
        double max = 0;
        for (int b = 0; b < st.blocks().length; b++) {
            for (int j = segmentStart(st.segments(), s); j < segmentStart(st.segments(), s + 1); j++) {
                double x = st.blocks()[b][j];
                max = Double.isNaN(x) ? max : Math.max(max, Math.abs(x));
            }
            double x = st.blocks()[b][i];
            if (!Double.isNaN(x)) {
                exact = exact.add(Exact.of(x));
                n++;
            }
        }
        BigDecimal bound = Exact.pow2(g - 1).multiply(BigDecimal.valueOf(n)).add(Exact.halfUlp(r));
        BigDecimal error = Exact.of(r).subtract(exact).abs();
        assertTrue(error.compareTo(bound) <= 0, "index " + i + ": error " + error + " above the bound " + bound);
        // The same bound relative to the largest magnitude: 2^(G-1) <= 2^(QUANTUM-1-(E-G)) M, E a multiple of
        // the quantum at most QUANTUM binades above M's.
        int fraction = st.format().fractionBits(st.blocks().length);
        assertTrue(max == 0 || Exact.pow2(g - 1).compareTo(Exact.of(max).multiply(Exact.pow2(FixedPoint.QUANTUM - 1
            - fraction))) <= 0,
            "grid 2^" + g + " is coarser than the largest magnitude " + max + " allows");
    }

    /** The sum of every block's value at {@code i}, each rounded to nearest even on the grid {@code 2^g}, exactly. */
    static BigDecimal roundedDeposits(Step st, int i, int g) {
        BigDecimal total = BigDecimal.ZERO;
        for (double[] block : st.blocks()) {
            if (!Double.isNaN(block[i])) {
                BigDecimal units = Exact.of(block[i]).divide(Exact.pow2(g)).setScale(0, java.math.RoundingMode.HALF_EVEN);
                total = total.add(units.multiply(Exact.pow2(g)));
            }
        }
        return total;
    }

    static int segment(int[] lengths, int i) {
        int s = 0;
        while (i >= segmentStart(lengths, s + 1)) {
            s++;
        }
        return s;
    }

    static int segmentStart(int[] lengths, int s) {
        int start = 0;
        for (int k = 0; k < s; k++) {
            start += lengths[k];
        }
        return start;
    }

    /** 100,000 deposits at each of three indices, of magnitudes over 40 binades, summed exactly enough. */
    @Test
    void manyDeposits() {
        for (FixedFormat format : FixedFormat.values()) {
            if (format == FixedFormat.HALF_WORD) {
                continue;       // at most 2^14 blocks: HalfWordTest
            }
            Step st = step(42, format, Kind.CANCEL, 100_000, 3);
            FixedSum whole = sum(st, java.util.stream.IntStream.range(0, 100_000).boxed().toList(), 7,
                new SplittableRandom(1));
            for (int i = 0; i < 3; i++) {
                checkIndex(st, whole, i);
            }
        }
    }
}
