package org.paratrain.train;

/** Training stopped because the loss became NaN or infinite, or kept growing. */
public final class DivergenceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A divergence, with advice.
     *
     * @param message what happened and what to try instead, e.g. a smaller learning rate
     */
    public DivergenceException(String message) {
        super(message);
    }
}
