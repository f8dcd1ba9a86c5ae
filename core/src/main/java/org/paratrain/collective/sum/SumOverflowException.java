package org.paratrain.collective.sum;

/**
 * A fixed-point sum could not give a right number, and says what overflowed: a value beyond
 * the agreed bound of its segment, more blocks than the headroom was sized for, or a sum
 * beyond the largest double. Never a wrong number instead.
 */
public final class SumOverflowException extends ArithmeticException {
    private static final long serialVersionUID = 1L;

    /**
     * An overflow, explained.
     *
     * @param message what overflowed, where, and the limit it passed
     */
    public SumOverflowException(String message) {
        super(message);
    }
}
