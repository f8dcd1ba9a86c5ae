package org.paratrain.data;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.paratrain.io.CFunctions;

/**
 * The C library's {@code log}, called through the FFM API, with {@link StrictMath#log} where
 * no C library is found.
 *
 * <p>Why not {@code Math.log}: numpy's Box-Muller calls glibc's {@code log}, which is not
 * correctly rounded (it differs from the exact logarithm's rounding on about one input in
 * 1,200), and neither {@code Math.log} nor {@code StrictMath.log} makes the same errors. To
 * draw numpy's normal deviates bit for bit we call the very function numpy calls. The
 * handle is made on first use, since building a downcall costs tens of milliseconds.
 */
final class LibmLog {
    private LibmLog() { }

    private static final class Holder {
        static final MethodHandle LOG = CFunctions.find("log",
            FunctionDescriptor.of(ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_DOUBLE), Linker.Option.critical(false));
    }

    static double log(double x) {
        MethodHandle h = Holder.LOG;
        if (h == null) {
            return StrictMath.log(x);
        }
        try {
            return (double) h.invokeExact(x);
        } catch (Throwable t) {
            throw new IllegalStateException("calling the C library's log failed", t);
        }
    }
}
