package org.paratrain.comm;

/**
 * A parallel job ended because one of its ranks threw. The message names the rank; the
 * cause is what that rank threw.
 */
public final class RankFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The first rank that failed. */
    private final int rank;

    /**
     * The job's failure, blamed on its first failing rank.
     *
     * @param rank  the first rank that failed
     * @param cause what it threw; its message (or class name) becomes part of this message
     */
    public RankFailedException(int rank, Throwable cause) {
        super("rank " + rank + " failed: " + describe(cause), cause);
        this.rank = rank;
    }

    /** {@return the rank that failed first} */
    public int rank() {
        return rank;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
