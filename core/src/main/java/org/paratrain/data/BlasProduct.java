package org.paratrain.data;

/**
 * {@code C = X[:, :k] @ B} summed in the order numpy 1.24's {@code np.dot} sums it through
 * Debian's OpenBLAS 0.3.21 on an AVX-512 (SkylakeX kernel) machine, the library scikit-learn
 * used to make the make_classification fixtures. A product of doubles is exact only up to
 * its summation order, so matching scikit-learn bit for bit means repeating that order:
 *
 * <ul>
 *   <li>A matrix times a matrix (cblas_dgemm, row-major, so OpenBLAS computes {@code C^T} with
 *       M' = the columns of C, N' = its rows). When M'·N'·K is at most 10^6 the small-matrix
 *       kernel runs: each element is one fused multiply-add chain over k, except in the last
 *       1 to 4 columns past a multiple of 8 when K is 16 or more, where the kernel takes dot
 *       products of 8 lanes (lane q sums k = q mod 8) and reduces the lanes either as
 *       {@code ((0+1)+(2+3))+((4+5)+(6+7))} (groups of four) or as GCC's
 *       {@code _mm512_reduce_add_pd}, {@code ((0+4)+(2+6))+((1+5)+(3+7))} (the rest).</li>
 *   <li>A matrix times one column (cblas_dgemv, which OpenBLAS runs as dgemv_t): rows in
 *       groups of 4 take four FMA lanes over the first K - K mod 4 terms, reduced as
 *       {@code (0+2)+(1+3)}; a pair of leftover rows two plain (unfused) lanes, a single
 *       leftover row four plain lanes; the last K mod 4 terms are added by compiled C whose
 *       multiplies GCC fused.</li>
 * </ul>
 * Outside these cases (more than 10^6 multiply-adds in one product, or a product with a
 * single row) the plain FMA chain is used; OpenBLAS's large kernel and its matrix-vector
 * kernel for one row sum some elements in other orders, so those may differ from
 * scikit-learn in the last bits.
 */
final class BlasProduct {
    private static final double SMALL_KERNEL_LIMIT = 100.0 * 100.0 * 100.0;

    private BlasProduct() { }

    /**
     * Writes {@code X[rows, 0:k] @ B} into columns {@code [to, to + n)} of the same rows of
     * {@code x}; {@code b} is k x n row-major. The result is computed into a buffer first, as
     * numpy does, since the output columns may overlap the input ones.
     */
    static void multiply(double[] x, int stride, int from, int rows, int k, double[] b, int n, int to) {
        if (rows == 0) {
            return;
        }
        double[] c = new double[rows * n];
        boolean column = n == 1 && k > 1 && rows > 1;
        boolean small = (double) n * rows * k <= SMALL_KERNEL_LIMIT;
        double[] xi = new double[k];
        double[] bj = new double[k];
        for (int j = 0; j < n; j++) {
            for (int l = 0; l < k; l++) {
                bj[l] = b[l * n + j];
            }
            for (int i = 0; i < rows; i++) {
                System.arraycopy(x, (from + i) * stride, xi, 0, k);
                c[i * n + j] = column ? gemvT(xi, bj, i, rows)
                    : small && rows > 1 ? smallKernel(xi, bj, i, j, rows, n) : chain(xi, bj, 0, k, 0.0);
            }
        }
        for (int i = 0; i < rows; i++) {
            System.arraycopy(c, i * n, x, (from + i) * stride + to, n);
        }
    }

    /** Element (i, j) as the small-matrix kernel computes it (see the class comment). */
    private static double smallKernel(double[] xi, double[] bj, int i, int j, int rows, int n) {
        int k = xi.length;
        int tail = n & 7;
        int first = n - tail;
        if (j < first || tail > 4 || k < 16) {
            return chain(xi, bj, 0, k, 0.0);
        }
        double[] s = lanes(xi, bj, 8, k, true);
        boolean groupOfFour = j - first < (tail & ~3) || i < (rows & ~3);
        return groupOfFour ? ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
            : ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    }

    /** Row i's dot product as dgemv_t computes it (see the class comment). */
    private static double gemvT(double[] xi, double[] b, int i, int rows) {
        int k = xi.length;
        int rest = k & 3;
        int body = k - rest;
        double y = 0.0;
        if (body > 0) {
            int fours = rows & ~3;
            if (i < fours) {
                double[] s = lanes(xi, b, 4, body, true);
                y = (s[0] + s[2]) + (s[1] + s[3]);
            } else if ((rows & 2) != 0 && i < fours + 2) {
                double[] s = lanes(xi, b, 2, body, false);
                y = s[0] + s[1];
            } else {
                double[] s = lanes(xi, b, 4, body, false);
                y = (s[0] + s[2]) + (s[1] + s[3]);
            }
        }
        if (rest == 0) {
            return y;           // no tail: reading it would run past the row (k = 4, 8, ...)
        }
        if (rest == 1) {
            return Math.fma(xi[body], b[body], y);
        }
        double t = Math.fma(xi[body], b[body], xi[body + 1] * b[body + 1]);
        if (rest == 3) {
            t = Math.fma(xi[body + 2], b[body + 2], t);
        }
        return y + t;
    }

    /** Lane q accumulates the terms l = q mod {@code count} of the first {@code k}, fused or not. */
    private static double[] lanes(double[] x, double[] b, int count, int k, boolean fused) {
        double[] s = new double[count];
        for (int l = 0; l < k; l++) {
            s[l % count] = fused ? Math.fma(x[l], b[l], s[l % count]) : s[l % count] + x[l] * b[l];
        }
        return s;
    }

    private static double chain(double[] x, double[] b, int from, int to, double acc) {
        for (int l = from; l < to; l++) {
            acc = Math.fma(x[l], b[l], acc);
        }
        return acc;
    }
}
