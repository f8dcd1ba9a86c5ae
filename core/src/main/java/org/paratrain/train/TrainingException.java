package org.paratrain.train;

/** A failure inside the training loop; the message starts with the epoch it happened in. */
public final class TrainingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Wraps a failure of one epoch.
     *
     * @param message where and what: {@code epoch E: ...}
     * @param cause   the original failure
     */
    public TrainingException(String message, Throwable cause) {
        super(message, cause);
    }
}
