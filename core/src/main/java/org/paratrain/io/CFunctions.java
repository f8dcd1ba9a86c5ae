package org.paratrain.io;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * Functions of the C library, reached through the FFM API, for the callers that work without
 * them: CPU placement, the order in which processes end, the C library's {@code log}. Each
 * caller falls back on its own when a function is missing (not Linux, no C library found).
 */
public final class CFunctions {
    private CFunctions() { }

    /**
     * {@return a downcall handle to the C library's {@code name}, or null if it is not there or
     * cannot be linked as {@code descriptor} says}
     *
     * @param name       the function's symbol, e.g. {@code sched_getcpu}
     * @param descriptor its signature
     * @param options    linker options, e.g. {@link Linker.Option#critical(boolean)}
     */
    public static MethodHandle find(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name).map(s -> linker.downcallHandle(s, descriptor, options))
                .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }
}
