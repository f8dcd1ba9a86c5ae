package org.paratrain.model;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One copy of {@link LinearKernel} per feature count, each a hidden class defined from the
 * template's own bytes with the count as class data (see there why), made on first use and
 * kept for the life of the JVM: one small class per feature count in use. A copy is called
 * through the {@link LinearBlock} interface: where one feature count is in use the
 * call site sees one class, and C2 inlines it.
 */
final class KernelCopies {
    /** A copy of the linear kernel, called through an interface so that C2 can inline the copy in use. */
    interface LinearBlock {
        /**
         * The summed squared error of samples {@code [from, to)}; unless {@code grad} is null,
         * their gradient is added to {@code grad[off, off + features + (intercept ? 1 : 0))}.
         */
        double sums(double[] x, double[] y, int from, int to, int features, double[] w, boolean intercept,
                    double[] grad, int off);
    }

    private static final ConcurrentHashMap<Integer, LinearBlock> COPIES = new ConcurrentHashMap<>();

    private KernelCopies() { }

    /** {@return {@link LinearKernel} compiled for {@code features} features} */
    static LinearBlock linear(int features) {
        return COPIES.computeIfAbsent(features, KernelCopies::define);
    }

    private static LinearBlock define(int features) {
        try (InputStream in = LinearKernel.class.getResourceAsStream("LinearKernel.class")) {
            if (in != null) {
                MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClassWithClassData(in.readAllBytes(),
                    features, true);
                return (LinearBlock) copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class))
                    .invoke();
            }
        } catch (Throwable e) {      // IOException, ReflectiveOperationException, LinkageError from defining it
            // the template computes the same bits, only slower
        }
        return new LinearKernel();
    }
}
