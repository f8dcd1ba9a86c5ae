package org.paratrain.data;

import java.util.Locale;

/**
 * Data that would not fit in the Java heap, found before trying to allocate it, so that the
 * user learns how much memory it needs instead of seeing the JVM's "Java heap space".
 */
public final class NotEnoughMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** Bytes the data needs. */
    private final long bytesNeeded;
    /** A heap that would hold what was held then and the data besides. */
    private final long heapNeeded;

    /**
     * @param what        what needs the memory, e.g. "file.svm: 200000 samples x 80000 features"
     * @param bytesNeeded bytes it needs
     * @param free        bytes the heap can still give
     * @param max         the heap's limit
     */
    NotEnoughMemoryException(String what, long bytesNeeded, long free, long max) {
        super(what + ": " + size(bytesNeeded) + " of memory needed, more than the Java heap can give ("
            + size(free) + " free of at most " + size(max) + ")");
        this.bytesNeeded = bytesNeeded;
        this.heapNeeded = max - free + bytesNeeded;
    }

    /** {@return the bytes the data needs} */
    public long bytesNeeded() {
        return bytesNeeded;
    }

    /** {@return a heap size in bytes that would hold what was held then and the data besides, for -Xmx} */
    public long heapNeeded() {
        return heapNeeded;
    }

    /**
     * {@return a size for people: KB, MB or GB with one decimal, e.g. "3.5 GB"}
     * @param bytes a size in bytes
     */
    public static String size(long bytes) {
        if (bytes < 1L << 20) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        if (bytes < 1L << 30) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%.1f GB", bytes / (double) (1L << 30));
    }
}
