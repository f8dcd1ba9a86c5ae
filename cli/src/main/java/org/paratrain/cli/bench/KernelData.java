package org.paratrain.cli.bench;


import org.paratrain.data.Dataset;

/**
 * What {@code bench kernels} runs on, made the same way as its C reference does
 * (resources/c/kernels.c), so both sides train on the same numbers: x uniform in [-1, 1) from
 * splitmix64 of the value's index, {@code y_i = 0.1 u(n d + i) + sum_j x_ij (j + 1) / d}.
 */
final class KernelData {
    private KernelData() { }

    /** {@return the data set of {@code n} samples and {@code d} features} */
    static Dataset generate(int n, int d) {
        double[] x = new double[n * d];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            double s = 0.1 * uniform((long) n * d + i);
            for (int j = 0; j < d; j++) {
                x[i * d + j] = uniform((long) i * d + j);
                s += x[i * d + j] * (double) (j + 1) / (double) d;
            }
            y[i] = s;
        }
        return new Dataset(x, y, n, d);
    }

    /** splitmix64 of {@code k}, the top 53 bits as a double in [-1, 1): the C program's formula. */
    static double uniform(long k) {
        long z = (k + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (double) (z >>> 11) * 0x1.0p-52 - 1.0;
    }

    /**
     * The read bandwidth of this core in GB/s, measured in Java where gcc is missing: the best of
     * five sums over {@code mb} megabytes, eight independent partial sums so that memory, not
     * the adder, sets the speed.
     */
    static double javaReadGbs(int mb) {
        double[] a = new double[mb * 125_000];
        for (int i = 0; i < a.length; i++) {
            a[i] = i & 1023;
        }
        double best = 0;
        double check = 0;
        for (int r = 0; r < 5; r++) {
            long t = System.nanoTime();
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
            for (int i = 0; i + 7 < a.length; i += 8) {
                s0 += a[i];
                s1 += a[i + 1];
                s2 += a[i + 2];
                s3 += a[i + 3];
                s4 += a[i + 4];
                s5 += a[i + 5];
                s6 += a[i + 6];
                s7 += a[i + 7];
            }
            long ns = System.nanoTime() - t;
            check += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
            best = Math.max(best, 8.0 * a.length / ns);
        }
        return check < 0 ? 0 : best;
    }
}
