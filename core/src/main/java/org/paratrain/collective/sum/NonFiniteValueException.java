package org.paratrain.collective.sum;

/**
 * A NaN or an infinity was given to a fixed-point sum, which has no word for it. Raised on
 * every rank alike when the grid is agreed (the non-finite value travels in the maximum of the
 * exponents), so that all ranks stop together; a trainer takes it for divergence.
 */
public final class NonFiniteValueException extends ArithmeticException {
    private static final long serialVersionUID = 1L;

    /**
     * A non-finite value, explained.
     *
     * @param message which value (NaN or infinite) and where
     */
    public NonFiniteValueException(String message) {
        super(message);
    }
}
