package org.paratrain.model;

/**
 * The arithmetic the linear models share, on rows of the row-major sample matrix: the dot
 * product of a row with a weight vector, and the update of a gradient row by rows of samples.
 *
 * <p>Every product is fused with its addition ({@link Math#fma}: one rounding, the same bits
 * on every JVM and every machine). A dot product is one chain, feature after feature, so the
 * prediction of a sample is the same number wherever it is computed: in a kernel that
 * interleaves four rows, or alone for {@code predict}.
 *
 * <p>Why plain loops and not vectors: C2 (JDK 25) does not vectorize a loop that stores into
 * one {@code double[]} at one offset and loads from another at a different offset, since
 * the two may be the same array; and a floating-point sum it does vectorize, it vectorizes
 * in strict order, which measured slower here than scalar chains. Throughput comes instead
 * from independent chains (four rows at once) and, for memory, from four streams (see
 * {@link LinearRegression}). On a CPU without FMA instructions the JDK computes
 * {@code Math.fma} in software: the same bits, much slower.
 */
final class Rows {
    private Rows() { }

    /**
     * Whether the gradient updates run through the Vector API ({@code VectorRows}, the same bits):
     * when the JVM was started with {@code --add-modules jdk.incubator.vector} (the launcher passes
     * {@code PARATRAIN_JAVA_OPTS} on), unless the system property {@code paratrain.scalar} is true.
     * Off by default, since with the module every JVM start prints a warning that it is incubating.
     */
    static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
        && !Boolean.getBoolean("paratrain.scalar");

    /**
     * {@return {@code z} plus the dot product of {@code w[wAt, wAt + d)} and {@code x[at, at + d)}:
     * one fused chain that starts from {@code z} (a bias, or 0)}
     */
    static double dot(double z, double[] w, int wAt, double[] x, int at, int d) {
        for (int j = 0; j < d; j++) {
            z = Math.fma(w[wAt + j], x[at + j], z);
        }
        return z;
    }

    /**
     * Adds {@code c0 x_0 + c1 x_1 + c2 x_2 + c3 x_3} to {@code g[at, at + d)}, where row
     * {@code x_k} starts at {@code a + k * stride}, in that order: one chain of four fused
     * operations per feature (a chain only across rows; the features are independent).
     */
    static void addRows4(double[] g, int at, double[] x, int a, int stride, int d,
                         double c0, double c1, double c2, double c3) {
        if (VECTOR) {
            VectorRows.addRows4(g, at, x, a, stride, d, c0, c1, c2, c3);
            return;
        }
        int a1 = a + stride;
        int a2 = a1 + stride;
        int a3 = a2 + stride;
        for (int j = 0; j < d; j++) {
            g[at + j] = Math.fma(c3, x[a3 + j], Math.fma(c2, x[a2 + j], Math.fma(c1, x[a1 + j],
                Math.fma(c0, x[a + j], g[at + j]))));
        }
    }

    /** Adds {@code c} times the row at {@code x[a, a + d)} to {@code g[at, at + d)}. */
    static void addRow(double[] g, int at, double[] x, int a, int d, double c) {
        for (int j = 0; j < d; j++) {
            g[at + j] = Math.fma(c, x[a + j], g[at + j]);
        }
    }
}
