package org.paratrain.comm;

/**
 * A backend could not be started or one of its calls failed: the MPI library cannot be
 * loaded, no {@code mpirun} is installed, an MPI call returned an error. The message says what
 * to do where it can; the command line prints it as one line and exits with status 1.
 */
public final class BackendException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure of the backend.
     *
     * @param message what went wrong, and what to do where that is known
     */
    public BackendException(String message) {
        super(message);
    }
}
