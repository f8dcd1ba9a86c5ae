package org.paratrain.model;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One copy of {@link LinearKernel} per feature count, each a hidden class defined from the
 * template's own bytes with the count as class data (see there why), made on first use and
 * kept for the life of the JVM: one small class per feature count in use.
 *
 * <p>A copy is reached through a method handle, which costs a few nanoseconds a call: a call
 * is a whole block of samples.
 */
final class KernelCopies {
    /** {@code double block(x, y, from, to, features, w, intercept, grad, off)}. */
    static final MethodType TYPE = MethodType.methodType(double.class, double[].class, double[].class, int.class,
        int.class, int.class, double[].class, boolean.class, double[].class, int.class);
    private static final ConcurrentHashMap<Integer, MethodHandle> COPIES = new ConcurrentHashMap<>();

    private KernelCopies() { }

    /** {@return {@link LinearKernel#block} compiled for {@code features} features} */
    static MethodHandle linear(int features) {
        return COPIES.computeIfAbsent(features, KernelCopies::define);
    }

    private static MethodHandle define(int features) {
        MethodHandles.Lookup here = MethodHandles.lookup();
        try (InputStream in = LinearKernel.class.getResourceAsStream("LinearKernel.class")) {
            if (in != null) {
                MethodHandles.Lookup copy = here.defineHiddenClassWithClassData(in.readAllBytes(), features, true);
                return copy.findStatic(copy.lookupClass(), "block", TYPE);
            }
        } catch (IOException | ReflectiveOperationException | LinkageError e) {
            // the template below computes the same bits, only slower
        }
        try {
            return here.findStatic(LinearKernel.class, "block", TYPE);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
