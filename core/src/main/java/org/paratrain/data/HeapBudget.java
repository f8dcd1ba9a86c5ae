package org.paratrain.data;

/**
 * Checks, before a large allocation, that the Java heap can hold it. Allocating first and
 * catching {@link OutOfMemoryError} would also work, but by then the JVM may have spent seconds
 * collecting and the error no longer says how much was asked for.
 */
public final class HeapBudget {
    /** The largest Java array (a little below 2^31 elements, as the JVM's own limit). */
    public static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private HeapBudget() { }

    /**
     * Throws {@link NotEnoughMemoryException} when {@code bytes} more would not fit in the heap.
     * {@code what} names what needs them (the message continues ": N MB of memory needed").
     *
     * @param bytes the size of the allocation about to be made
     * @param what  what needs them, for the message, e.g. {@code "X.in: 500 samples x 1 values"}
     * @throws NotEnoughMemoryException if the heap cannot hold them even after a collection
     */
    public static void require(long bytes, String what) {
        Runtime rt = Runtime.getRuntime();
        if (bytes <= free(rt)) {
            return;
        }
        // What looks used may be garbage; collect once before refusing.
        System.gc();
        long free = free(rt);
        if (bytes > free) {
            throw new NotEnoughMemoryException(what, bytes, free, rt.maxMemory());
        }
    }

    private static long free(Runtime rt) {
        return rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    }
}
