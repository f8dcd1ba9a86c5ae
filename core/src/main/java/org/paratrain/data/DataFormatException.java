package org.paratrain.data;

/** Input data that cannot be used; the message names the file, the line and what was expected. */
public final class DataFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An error for the user, shown as it is.
     *
     * @param message {@code file:line: what is wrong, what was expected}
     */
    public DataFormatException(String message) {
        super(message);
    }
}
