package org.paratrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RowSum} against the plain row-by-row loop the exchanges used before: the same bits for
 * every width (both sides of {@link RowSum#COLUMN_WISE_MAX}), row count, stride and offset, on
 * values chosen so that the order of additions shows (cancelling magnitudes, signed zeros,
 * subnormals, infinities and NaN). Bits are compared as {@link java.util.Arrays#equals(double[], double[])}
 * compares them, every NaN alike, as the exchanges' same-bits tests do.
 */
class RowSumTest {
    private static final double[] SPECIAL = {0.0, -0.0, 1e308, -1e308, 1e-310, -1e-310, 1.0, -1.0,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 1e16, -1e16, 3.0};

    @Test
    void addGivesTheBitsOfTheRowByRowLoop() {
        Random rnd = new Random(12);
        for (int n = 0; n <= 2 * RowSum.COLUMN_WISE_MAX + 3; n++) {
            for (int rows = 0; rows <= 9; rows++) {
                for (int extra = 0; extra <= 2; extra++) {
                    int stride = n + extra;
                    int start = rnd.nextInt(3);
                    double[] src = values(rnd, start + rows * stride + n + 2);
                    int at = rnd.nextInt(3);
                    double[] out = values(rnd, at + n + 1);
                    double[] expected = out.clone();
                    for (int r = 0; r < rows; r++) {
                        for (int j = 0; j < n; j++) {
                            expected[at + j] += src[start + r * stride + j];
                        }
                    }
                    RowSum.add(src, start, stride, rows, out, at, n);
                    for (int k = 0; k < out.length; k++) {
                        // Any NaN counts as one: which operand's NaN an addition keeps is the JIT's choice.
                        assertEquals(Double.doubleToLongBits(expected[k]), Double.doubleToLongBits(out[k]),
                            "n " + n + ", rows " + rows + ", stride " + stride + ", element " + k);
                    }
                }
            }
        }
    }

    @Test
    void sumStartsAtPositiveZeroAndAddsInOrder() {
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(RowSum.sum(new double[] {-0.0}, 0,
            1, 1)), "0.0 + -0.0 is 0.0");
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(RowSum.sum(new double[0], 0, 1, 0)));
        // (1e16 + 1) - 1e16 is 0 in doubles, 1e16 - 1e16 + 1 is 1: the order shows.
        assertEquals(0.0, RowSum.sum(new double[] {1e16, 9, 1.0, 9, -1e16}, 0, 2, 3));
        assertEquals(1.0, RowSum.sum(new double[] {1e16, 9, -1e16, 9, 1.0}, 0, 2, 3));
    }

    private static double[] values(Random rnd, int length) {
        double[] v = new double[length];
        for (int i = 0; i < length; i++) {
            v[i] = rnd.nextInt(4) == 0 ? SPECIAL[rnd.nextInt(SPECIAL.length)] : rnd.nextGaussian() * Math.pow(10,
                rnd.nextInt(33) - 16);
        }
        return v;
    }
}
