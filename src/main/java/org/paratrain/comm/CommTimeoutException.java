package org.paratrain.comm;

/**
 * A rank waited longer than the job's communication timeout for a peer: the peer is hung,
 * stopped, or far slower than it should be. The message names the peer and the operation.
 */
public final class CommTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int peer;

    /**
     * @param peer      the rank waited for
     * @param operation what was waited on: receive, send, barrier, allreduce, ...
     * @param tag       the message tag, or a negative number when none applies
     * @param seconds   how long the rank waited
     */
    public CommTimeoutException(int peer, String operation, int tag, double seconds) {
        this(peer, peer, operation, tag, seconds);
    }

    /**
     * As above, when the rank waited for ({@code direct}) was itself waiting, in a chain that
     * ends at {@code peer}: the rank that is hung.
     */
    public CommTimeoutException(int peer, int direct, String operation, int tag, double seconds) {
        super(String.format(java.util.Locale.ROOT, "rank %d stopped answering: waited %s for rank %d (%s%s)%s; it "
            + "is hung, stopped or much slower (raise --comm-timeout if it is only slow)", peer, seconds(seconds),
            direct, operation, tag >= 0 ? ", tag " + tag : "",
            direct == peer ? "" : ", which was waiting for rank " + peer));
        this.peer = peer;
    }

    /** The rank that did not answer in time. */
    public int peer() {
        return peer;
    }

    private static String seconds(double s) {
        return s == Math.rint(s) ? (long) s + " s" : String.format(java.util.Locale.ROOT, "%.3g s", s);
    }
}
