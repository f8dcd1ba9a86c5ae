package org.paratrain.comm;

/**
 * A rank's thread was interrupted while it waited in a call: a scheduler cancelled the rank (a
 * Spark task killed, a stage cancelled). The interrupt stays set, so the code above sees it too.
 */
public final class CommInterruptedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An interrupted wait.
     *
     * @param rank      the interrupted rank
     * @param operation what it was doing ("send", "receive")
     * @param peer      the rank it waited on
     */
    public CommInterruptedException(int rank, String operation, int peer) {
        super("rank " + rank + " was interrupted in a " + operation + " with rank " + peer + " (cancelled)");
    }
}
