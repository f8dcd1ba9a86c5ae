package org.paratrain.collective;

import java.util.List;

/**
 * The Hockney model of a machine, fitted to measured allreduce times, and the predictions
 * built on it.
 *
 * <p>Every algorithm's cost is linear in alpha, beta and gamma, so its coefficients are read
 * off its own {@link Allreduce#cost} formula by evaluating it on unit machines: the formula
 * stays in the algorithm class, and the fit and the predictions use exactly that formula.
 * The fit minimises the squared relative error (a 1 microsecond latency counts as much as
 * a 10 millisecond transfer) by weighted least squares, keeping every parameter
 * non-negative.
 */
public final class CostModel {
    private CostModel() { }

    /**
     * One measurement.
     *
     * @param algorithm which allreduce
     * @param ranks     p
     * @param doubles   vector length n
     * @param seconds   measured time of one allreduce
     */
    public record Measurement(String algorithm, int ranks, long doubles, double seconds) { }

    /** The coefficients of alpha, beta and gamma in {@code a}'s cost for p ranks and n doubles. */
    static double[] coefficients(Allreduce a, int p, long n) {
        return new double[] {a.cost(p, n, new Allreduce.Machine(1, 0, 0)), a.cost(p, n, new Allreduce.Machine(0, 1, 0)),
            a.cost(p, n, new Allreduce.Machine(0, 0, 1))};
    }

    /**
     * Fits alpha, beta and gamma to the measurements by least squares on relative errors
     * (weights 1/t^2, so that 8-byte and 64 MB timings count alike), each formula's
     * coefficients read by evaluating it on unit machines.
     *
     * @param data timings of {@code bench collectives}, of any algorithms, rank counts and sizes
     * @return the fitted machine; a parameter that fits negative is pinned at 0 and the others refitted
     */
    public static Allreduce.Machine fit(List<Measurement> data) {
        boolean[] free = {true, true, true};
        double[] x = solve(data, free);
        for (int round = 0; round < 3; round++) {
            boolean changed = false;
            for (int k = 0; k < 3; k++) {
                if (free[k] && x[k] < 0) {
                    free[k] = false;      // pin at zero and refit the others
                    changed = true;
                }
            }
            if (!changed) {
                break;
            }
            x = solve(data, free);
        }
        return new Allreduce.Machine(Math.max(0, x[0]), Math.max(0, x[1]), Math.max(0, x[2]));
    }

    private static double[] solve(List<Measurement> data, boolean[] free) {
        double[][] a = new double[3][4];
        for (Measurement m : data) {
            double[] c = coefficients(Allreduces.create(m.algorithm()), m.ranks(), m.doubles());
            double w = 1.0 / (m.seconds() * m.seconds());
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    a[i][j] += w * c[i] * c[j];
                }
                a[i][3] += w * c[i] * m.seconds();
            }
        }
        for (int k = 0; k < 3; k++) {
            if (!free[k]) {
                java.util.Arrays.fill(a[k], 0.0);
                for (int i = 0; i < 3; i++) {
                    a[i][k] = 0.0;
                }
                a[k][k] = 1.0;
            }
        }
        return gauss(a);
    }

    private static double[] gauss(double[][] a) {
        int n = 3;
        for (int c = 0; c < n; c++) {
            int pivot = c;
            for (int r = c + 1; r < n; r++) {
                if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) {
                    pivot = r;
                }
            }
            double[] t = a[c];
            a[c] = a[pivot];
            a[pivot] = t;
            if (Math.abs(a[c][c]) < 1e-300) {
                continue;
            }
            for (int r = 0; r < n; r++) {
                if (r != c) {
                    double f = a[r][c] / a[c][c];
                    for (int k = c; k <= n; k++) {
                        a[r][k] -= f * a[c][k];
                    }
                }
            }
        }
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = Math.abs(a[i][i]) < 1e-300 ? 0.0 : a[i][n] / a[i][i];
        }
        return x;
    }
}
