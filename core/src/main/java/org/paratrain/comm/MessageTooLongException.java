package org.paratrain.comm;

/** A received message did not fit the buffer given to receive it (MPI_ERR_TRUNCATE). */
public final class MessageTooLongException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Describes the message that did not fit.
     *
     * @param source   the sender
     * @param tag      the message's tag
     * @param length   doubles the message holds
     * @param capacity doubles the receiver had room for
     */
    public MessageTooLongException(int source, int tag, int length, int capacity) {
        super("message from rank " + source + " with tag " + tag + " holds " + length
            + " doubles, more than the " + capacity + " the receiver expected");
    }
}
