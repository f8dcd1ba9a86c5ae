package org.paratrain.model;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The gradient updates of the kernels ({@link Rows#addRows4}, {@link LinearKernel}'s parts) with
 * the Vector API, used only when the JVM runs with {@code --add-modules jdk.incubator.vector}
 * ({@link Rows#VECTOR}). Each lane does, for its feature, the very chain of fused operations the
 * scalar loop does, in the same order, so the bits are the scalar loop's on any machine and at any
 * lane count: only the features are done several at a time, never a sum across them.
 *
 * <p>Compiled apart from the other sources (src/main/vector, with the incubator module), so that
 * neither the rest of the build nor the JVMs that run without the module need it: the class is
 * loaded only when {@link Rows#VECTOR} is true. C2 vectorizes no such loop by itself: it cannot
 * tell that {@code g} and {@code x} are different arrays.
 */
final class VectorRows {
    /**
     * Four lanes where the machine has them: on an AVX-512 machine eight lanes ran slower (20,000 x 10:
     * 71 against 65 us a pass, ten features being one vector and a tail of two; 1,000,000 x 100: 70
     * against 64 ms).
     */
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED.vectorBitSize() >= 256
        ? DoubleVector.SPECIES_256 : DoubleVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    private VectorRows() { }

    /** {@link Rows#addRows4}: {@code g[at + j] += c0 x_0[j] + ... + c3 x_3[j]}, as four chained fused operations. */
    static void addRows4(double[] g, int at, double[] x, int a, int stride, int d,
                         double c0, double c1, double c2, double c3) {
        int a1 = a + stride;
        int a2 = a1 + stride;
        int a3 = a2 + stride;
        DoubleVector v0 = DoubleVector.broadcast(S, c0);
        DoubleVector v1 = DoubleVector.broadcast(S, c1);
        DoubleVector v2 = DoubleVector.broadcast(S, c2);
        DoubleVector v3 = DoubleVector.broadcast(S, c3);
        int j = 0;
        for (int end = S.loopBound(d); j < end; j += L) {
            DoubleVector t = DoubleVector.fromArray(S, x, a + j).fma(v0, DoubleVector.fromArray(S, g, at + j));
            t = DoubleVector.fromArray(S, x, a1 + j).fma(v1, t);
            t = DoubleVector.fromArray(S, x, a2 + j).fma(v2, t);
            DoubleVector.fromArray(S, x, a3 + j).fma(v3, t).intoArray(g, at + j);
        }
        for (; j < d; j++) {
            g[at + j] = Math.fma(c3, x[a3 + j], Math.fma(c2, x[a2 + j], Math.fma(c1, x[a1 + j],
                Math.fma(c0, x[a + j], g[at + j]))));
        }
    }

    /** {@link LinearKernel}'s eight parts: the first four's chain, then the last four's, per feature. */
    static void addRows8(double[] g, int at, double[] x, int a, int s, int d, double c0, double c1, double c2,
                         double c3, double c4, double c5, double c6, double c7) {
        DoubleVector v0 = DoubleVector.broadcast(S, c0);
        DoubleVector v1 = DoubleVector.broadcast(S, c1);
        DoubleVector v2 = DoubleVector.broadcast(S, c2);
        DoubleVector v3 = DoubleVector.broadcast(S, c3);
        DoubleVector v4 = DoubleVector.broadcast(S, c4);
        DoubleVector v5 = DoubleVector.broadcast(S, c5);
        DoubleVector v6 = DoubleVector.broadcast(S, c6);
        DoubleVector v7 = DoubleVector.broadcast(S, c7);
        int a4 = a + 4 * s;
        int j = 0;
        for (int end = S.loopBound(d); j < end; j += L) {
            DoubleVector t = DoubleVector.fromArray(S, x, a + j).fma(v0, DoubleVector.fromArray(S, g, at + j));
            t = DoubleVector.fromArray(S, x, a + s + j).fma(v1, t);
            t = DoubleVector.fromArray(S, x, a + 2 * s + j).fma(v2, t);
            t = DoubleVector.fromArray(S, x, a + 3 * s + j).fma(v3, t);
            t = DoubleVector.fromArray(S, x, a4 + j).fma(v4, t);
            t = DoubleVector.fromArray(S, x, a4 + s + j).fma(v5, t);
            t = DoubleVector.fromArray(S, x, a4 + 2 * s + j).fma(v6, t);
            DoubleVector.fromArray(S, x, a4 + 3 * s + j).fma(v7, t).intoArray(g, at + j);
        }
        for (; j < d; j++) {
            double t = Math.fma(c3, x[a + 3 * s + j], Math.fma(c2, x[a + 2 * s + j], Math.fma(c1, x[a + s + j],
                Math.fma(c0, x[a + j], g[at + j]))));
            g[at + j] = Math.fma(c7, x[a4 + 3 * s + j], Math.fma(c6, x[a4 + 2 * s + j], Math.fma(c5, x[a4 + s + j],
                Math.fma(c4, x[a4 + j], t))));
        }
    }
}
