package org.paratrain.train;

/**
 * The block-order sums of the exchanges: the rows of a table (one row a block) added into a
 * vector, row after row.
 *
 * <p>Each element of the result gets the same additions in the same order, row 0 first, however
 * the loops are nested, so the bits never depend on how this adds. What it changes is the time:
 * for narrow rows (the paper's model has one gradient element, 20,000 x 10 has ten) adding row
 * by row into the vector in memory chains every addition through a store and a load of the same
 * element, about 10 cycles a row; here the columns are added four at a time in registers down
 * the rows, four independent chains of one addition each. On the paper's run this sum was a
 * quarter of a 1-rank epoch. Wide rows (a network's parameters) are added row by row, which
 * reads the table once, in order.
 */
final class RowSum {
    /** Rows up to this many elements wide are added down the columns. */
    static final int COLUMN_WISE_MAX = 16;

    private RowSum() { }

    /**
     * Adds {@code rows} rows of {@code n} elements into {@code out[at .. at + n)}: row {@code r}
     * starts at {@code src[start + r * stride]}; rows are added in order, to what {@code out}
     * holds already.
     */
    static void add(double[] src, int start, int stride, int rows, double[] out, int at, int n) {
        if (n > COLUMN_WISE_MAX) {
            for (int r = 0; r < rows; r++) {
                int base = start + r * stride;
                for (int j = 0; j < n; j++) {
                    out[at + j] += src[base + j];
                }
            }
            return;
        }
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            double a0 = out[at + j];
            double a1 = out[at + j + 1];
            double a2 = out[at + j + 2];
            double a3 = out[at + j + 3];
            for (int r = 0, i = start + j; r < rows; r++, i += stride) {
                a0 += src[i];
                a1 += src[i + 1];
                a2 += src[i + 2];
                a3 += src[i + 3];
            }
            out[at + j] = a0;
            out[at + j + 1] = a1;
            out[at + j + 2] = a2;
            out[at + j + 3] = a3;
        }
        for (; j < n; j++) {
            double a = out[at + j];
            for (int r = 0, i = start + j; r < rows; r++, i += stride) {
                a += src[i];
            }
            out[at + j] = a;
        }
    }

    /** {@code 0.0 + src[start] + src[start + stride] + ...}, {@code rows} values, in that order. */
    static double sum(double[] src, int start, int stride, int rows) {
        double a = 0.0;
        for (int r = 0, i = start; r < rows; r++, i += stride) {
            a += src[i];
        }
        return a;
    }
}
