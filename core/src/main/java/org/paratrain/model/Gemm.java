package org.paratrain.model;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Row-major matrix products {@code C = alpha op(A) op(B) + beta C} on slices of Java arrays,
 * through OpenBLAS's {@code cblas_dgemm} (FFM, arrays passed without a copy) when it is
 * installed, else through plain Java loops.
 *
 * Single precision ({@link #sgemm}) goes through {@code cblas_sgemm} the same way.
 *
 * <p>OpenBLAS is told to use one thread: ranks are already one per core, and one thread
 * keeps each product's summation order fixed, so a block's gradient is the same bits
 * whatever else runs. {@code PARATRAIN_BLAS=java} forces the loops.
 */
final class Gemm {
    private static final int ROW_MAJOR = 101;
    private static final int NO_TRANS = 111;
    private static final int TRANS = 112;
    /** Set by {@link #load()}, so declared before {@link #DGEMM}: static fields are initialised in order. */
    private static volatile String coreName = "none (products in Java)";
    private static final MethodHandle DGEMM = load();
    private static final MethodHandle SGEMM = loadSingle();

    private Gemm() { }

    /**
     * {@return the OpenBLAS kernel the products run ({@code openblas_get_corename}: e.g.
     * {@code SkylakeX}, or what {@code OPENBLAS_CORETYPE} forced), or a note that they run in Java}
     */
    static String coreName() {
        return coreName;
    }

    private static MethodHandle load() {
        if ("java".equals(System.getenv("PARATRAIN_BLAS"))) {
            return null;
        }
        for (String lib : new String[] {"libopenblas.so.0", "libopenblas.so"}) {
            try {
                SymbolLookup l = SymbolLookup.libraryLookup(lib, Arena.global());
                MemorySegment dgemm = l.find("cblas_dgemm").orElse(null);
                if (dgemm == null) {
                    continue;
                }
                Linker linker = Linker.nativeLinker();
                l.find("openblas_set_num_threads").ifPresent(f -> {
                    try {
                        linker.downcallHandle(f, FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT)).invokeExact(1);
                    } catch (Throwable t) {
                        // Leave OpenBLAS's own threading; products stay correct.
                    }
                });
                coreName = l.find("openblas_get_corename").map(f -> corename(linker, f)).orElse("OpenBLAS (" + lib + ")");
                ValueLayout i = ValueLayout.JAVA_INT;
                ValueLayout d = ValueLayout.JAVA_DOUBLE;
                ValueLayout p = ValueLayout.ADDRESS;
                return linker.downcallHandle(dgemm, FunctionDescriptor.ofVoid(i, i, i, i, i, i, d, p, i, p, i, d, p, i),
                    Linker.Option.critical(true));
            } catch (IllegalArgumentException | LinkageError e) {
                // Not installed under this name: try the next, then fall back to Java.
            }
        }
        return null;
    }

    /** {@code cblas_sgemm}, from the library {@link #load()} found, or null (then the float loops). */
    private static MethodHandle loadSingle() {
        if (DGEMM == null) {
            return null;
        }
        for (String lib : new String[] {"libopenblas.so.0", "libopenblas.so"}) {
            try {
                MemorySegment f = SymbolLookup.libraryLookup(lib, Arena.global()).find("cblas_sgemm").orElse(null);
                if (f != null) {
                    ValueLayout i = ValueLayout.JAVA_INT;
                    ValueLayout s = ValueLayout.JAVA_FLOAT;
                    ValueLayout p = ValueLayout.ADDRESS;
                    return Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.ofVoid(i, i, i, i, i, i, s, p, i, p,
                        i, s, p, i), Linker.Option.critical(true));
                }
            } catch (IllegalArgumentException | LinkageError e) {
                // Not under this name: try the next, then the loops.
            }
        }
        return null;
    }

    private static String corename(Linker linker, MemorySegment f) {
        try {
            MemorySegment name = (MemorySegment) linker.downcallHandle(f, FunctionDescriptor.of(ValueLayout.ADDRESS))
                .invokeExact();
            return name.reinterpret(64).getString(0);
        } catch (Throwable t) {
            return "OpenBLAS";
        }
    }

    /**
     * C[c..] (m x n) = alpha * op(A) * op(B) + beta * C, row-major, where op(A) is m x k
     * (A stored k x m when {@code ta}) and op(B) is k x n (B stored n x k when {@code tb}).
     */
    static void dgemm(boolean ta, boolean tb, int m, int n, int k, double alpha, double[] a, int ao, double[] b, int bo,
                      double beta, double[] c, int co) {
        if (m == 0 || n == 0) {
            return;
        }
        int lda = ta ? m : k;
        int ldb = tb ? k : n;
        if (DGEMM != null) {
            try {
                DGEMM.invokeExact(ROW_MAJOR, ta ? TRANS : NO_TRANS, tb ? TRANS : NO_TRANS, m, n, k, alpha,
                    slice(a, ao, (long) (ta ? k : m) * lda), lda, slice(b, bo, (long) (tb ? n : k) * ldb), ldb, beta,
                    slice(c, co, (long) m * n), n);
                return;
            } catch (Throwable t) {
                throw new IllegalStateException("cblas_dgemm failed", t);
            }
        }
        java(ta, tb, m, n, k, alpha, a, ao, lda, b, bo, ldb, beta, c, co);
    }

    /** As {@link #dgemm}, in single precision ({@code cblas_sgemm}, one thread). */
    static void sgemm(boolean ta, boolean tb, int m, int n, int k, float alpha, float[] a, int ao, float[] b, int bo,
                      float beta, float[] c, int co) {
        if (m == 0 || n == 0) {
            return;
        }
        int lda = ta ? m : k;
        int ldb = tb ? k : n;
        if (SGEMM != null) {
            try {
                SGEMM.invokeExact(ROW_MAJOR, ta ? TRANS : NO_TRANS, tb ? TRANS : NO_TRANS, m, n, k, alpha,
                    slice(a, ao, (long) (ta ? k : m) * lda), lda, slice(b, bo, (long) (tb ? n : k) * ldb), ldb, beta,
                    slice(c, co, (long) m * n), n);
                return;
            } catch (Throwable t) {
                throw new IllegalStateException("cblas_sgemm failed", t);
            }
        }
        for (int i = 0; i < m; i++) {
            int ci = co + i * n;
            for (int j = 0; j < n; j++) {
                c[ci + j] = beta == 0f ? 0f : beta * c[ci + j];
            }
            for (int p = 0; p < k; p++) {
                float aip = alpha * (ta ? a[ao + p * lda + i] : a[ao + i * lda + p]);
                for (int j = 0; j < n; j++) {
                    c[ci + j] += aip * (tb ? b[bo + j * ldb + p] : b[bo + p * ldb + j]);
                }
            }
        }
    }

    private static MemorySegment slice(float[] x, int offset, long length) {
        return MemorySegment.ofArray(x).asSlice(offset * 4L, Math.max(0, length) * 4L);
    }

    private static MemorySegment slice(double[] x, int offset, long length) {
        return MemorySegment.ofArray(x).asSlice(offset * 8L, Math.max(0, length) * 8L);
    }

    /** The loops: i, then p, then j, so the innermost runs along rows of B and C and vectorises. */
    private static void java(boolean ta, boolean tb, int m, int n, int k, double alpha, double[] a, int ao, int lda,
                             double[] b, int bo, int ldb, double beta, double[] c, int co) {
        for (int i = 0; i < m; i++) {
            int ci = co + i * n;
            if (beta != 1.0) {
                for (int j = 0; j < n; j++) {
                    c[ci + j] = beta == 0.0 ? 0.0 : beta * c[ci + j];
                }
            }
            for (int p = 0; p < k; p++) {
                double aip = alpha * (ta ? a[ao + p * lda + i] : a[ao + i * lda + p]);
                if (aip == 0.0) {
                    continue;
                }
                if (tb) {
                    for (int j = 0; j < n; j++) {
                        c[ci + j] += aip * b[bo + j * ldb + p];
                    }
                } else {
                    int bp = bo + p * ldb;
                    for (int j = 0; j < n; j++) {
                        c[ci + j] += aip * b[bp + j];
                    }
                }
            }
        }
    }
}
