package org.paratrain.comm.mpi;

/** MPI could not be loaded or a call failed; the message says what to do where it can. */
public final class MpiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong */
    public MpiException(String message) {
        super(message);
    }
}
