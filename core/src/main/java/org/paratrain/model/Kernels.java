package org.paratrain.model;

/**
 * Which gradient kernels this JVM runs: the scalar loops, or, when the JVM was started with
 * {@code --add-modules jdk.incubator.vector}, the same loops with their gradient updates done
 * several features at a time by the Vector API. Both give the same bits; results record which ran.
 */
public final class Kernels {
    /** {@link #name()} when the Vector API's kernels run. */
    public static final String VECTOR_API = "Vector API";

    private Kernels() { }

    /** {@return {@link #VECTOR_API} or {@code "scalar"}} */
    public static String name() {
        return Rows.VECTOR ? VECTOR_API : "scalar";
    }
}
