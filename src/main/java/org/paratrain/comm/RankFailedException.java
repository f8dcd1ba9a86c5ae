package org.paratrain.comm;

/**
 * A parallel job ended because one of its ranks threw. The message names the rank; the
 * cause is what that rank threw.
 */
public final class RankFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int rank;

    /** @param rank the first rank that failed @param cause what it threw */
    public RankFailedException(int rank, Throwable cause) {
        super("rank " + rank + " failed: " + describe(cause), cause);
        this.rank = rank;
    }

    /** The rank that failed first. */
    public int rank() {
        return rank;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
