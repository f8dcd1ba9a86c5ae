package org.paratrain.comm;

/**
 * A rank waited longer than the job's communication timeout for a peer: the peer is hung,
 * stopped, or far slower than it should be. The message names the peer and the operation.
 */
public final class CommTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The rank that did not answer in time. */
    private final int peer;

    /**
     * A timeout waiting for {@code peer} itself.
     *
     * @param peer      the rank waited for
     * @param operation what was waited on: receive, send, barrier, allreduce, ...
     * @param tag       the message tag, or a negative number when none applies
     * @param seconds   how long the rank waited
     */
    public CommTimeoutException(int peer, String operation, int tag, double seconds) {
        this(peer, peer, operation, tag, seconds);
    }

    /**
     * A timeout waiting for a rank ({@code direct}) that was itself waiting, in a chain that
     * ends at {@code peer}: the rank that is hung, which the message blames.
     *
     * @param peer      the rank at the end of the chain of waits
     * @param direct    the rank this one waited for
     * @param operation what was waited on: receive, send, barrier, allreduce, ...
     * @param tag       the message tag, or a negative number when none applies
     * @param seconds   how long the rank waited
     */
    public CommTimeoutException(int peer, int direct, String operation, int tag, double seconds) {
        super(String.format(java.util.Locale.ROOT, "rank %d stopped answering: waited %s for rank %d (%s%s)%s; it "
            + "is hung, stopped or much slower (raise --comm-timeout if it is only slow)", peer, seconds(seconds),
            direct, operation, tag >= 0 ? ", tag " + tag : "",
            direct == peer ? "" : ", which was waiting for rank " + peer));
        this.peer = peer;
    }

    /** {@return the rank that did not answer in time} */
    public int peer() {
        return peer;
    }

    private static String seconds(double s) {
        return s == Math.rint(s) ? (long) s + " s" : String.format(java.util.Locale.ROOT, "%.3g s", s);
    }
}
