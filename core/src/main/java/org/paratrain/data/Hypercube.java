package org.paratrain.data;

import java.util.HashSet;
import java.util.Set;

/**
 * Distinct vertices of the unit hypercube drawn as scikit-learn's
 * {@code _generate_hypercube} draws them, and the {@code sample_without_replacement} it
 * draws them with: the method depends on the ratio of samples to population (a permutation
 * between 1% and 99%, else tracking selection below 20%, else reservoir sampling), so each
 * is here, in scikit-learn's order of draws.
 */
final class Hypercube {
    private Hypercube() { }

    /**
     * {@code count} distinct 0/1 vectors of length {@code dims}: above 30 dimensions the
     * leading {@code dims - 30} coordinates are plain random bits drawn first, as in
     * scikit-learn, and only the last 30 are kept distinct.
     */
    static double[][] vertices(NumpyRandomState rng, int count, int dims) {
        double[][] out = new double[count][dims];
        int lead = Math.max(0, dims - 30);
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < lead; j++) {
                out[i][j] = rng.randomInterval(1);
            }
        }
        int bits = dims - lead;
        long[] codes = sampleWithoutReplacement(rng, 1L << bits, count);
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < bits; c++) {
                out[i][lead + c] = (codes[i] >>> (bits - 1 - c)) & 1;   // most significant bit first
            }
        }
        return out;
    }

    /** {@code sample_without_replacement(population, count, method="auto")}. */
    static long[] sampleWithoutReplacement(NumpyRandomState rng, long population, int count) {
        double ratio = (double) count / population;
        long[] out = new long[count];
        if (ratio > 0.01 && ratio < 0.99) {
            int[] perm = identity((int) population);
            rng.shuffle(perm);
            for (int i = 0; i < count; i++) {
                out[i] = perm[i];
            }
        } else if (ratio < 0.2) {
            Set<Long> selected = new HashSet<>();
            for (int i = 0; i < count; i++) {
                long j;
                do {
                    j = rng.randomInterval(population - 1);
                } while (!selected.add(j));
                out[i] = j;
            }
        } else {
            for (int i = 0; i < count; i++) {
                out[i] = i;
            }
            for (long i = count; i < population; i++) {
                long j = rng.randomInterval(i);
                if (j < count) {
                    out[(int) j] = i;
                }
            }
        }
        return out;
    }

    static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }
}
