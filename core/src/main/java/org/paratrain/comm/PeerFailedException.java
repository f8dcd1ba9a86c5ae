package org.paratrain.comm;

/** Thrown on a rank that was waiting for, or talking to, a group in which another rank failed. */
public final class PeerFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Ends a rank's wait because the group is failing.
     *
     * @param message says which rank failed, if known
     */
    public PeerFailedException(String message) {
        super(message);
    }
}
