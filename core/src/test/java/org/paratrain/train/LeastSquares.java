package org.paratrain.train;

import org.paratrain.data.Dataset;

/** Closed-form least squares by the normal equations and Gaussian elimination: a test reference. */
final class LeastSquares {
    private LeastSquares() { }

    static double[] solve(Dataset data, boolean intercept) {
        int d = data.features();
        int m = d + (intercept ? 1 : 0);
        double[][] a = new double[m][m + 1];
        double[] row = new double[m];
        for (int i = 0; i < data.samples(); i++) {
            for (int j = 0; j < d; j++) {
                row[j] = data.x(i, j);
            }
            if (intercept) {
                row[d] = 1.0;
            }
            for (int j = 0; j < m; j++) {
                for (int k = 0; k < m; k++) {
                    a[j][k] += row[j] * row[k];
                }
                a[j][m] += row[j] * data.y()[i];
            }
        }
        for (int c = 0; c < m; c++) {
            int pivot = c;
            for (int r = c + 1; r < m; r++) {
                if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) {
                    pivot = r;
                }
            }
            double[] t = a[c];
            a[c] = a[pivot];
            a[pivot] = t;
            for (int r = 0; r < m; r++) {
                if (r != c) {
                    double f = a[r][c] / a[c][c];
                    for (int k = c; k <= m; k++) {
                        a[r][k] -= f * a[c][k];
                    }
                }
            }
        }
        double[] w = new double[m];
        for (int j = 0; j < m; j++) {
            w[j] = a[j][m] / a[j][j];
        }
        return w;
    }
}
