package org.paratrain.cli;

/** An MPI job ended with a non-zero status; its ranks have already said why. */
final class JobFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    JobFailedException(int status) {
        super("the MPI job ended with status " + status);
        this.status = status;
    }

    int status() {
        return status;
    }
}
