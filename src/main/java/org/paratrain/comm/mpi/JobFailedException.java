package org.paratrain.comm.mpi;

/**
 * An MPI job ended with a non-zero status, and its ranks or the launching process have already
 * said why in one line: whoever catches it prints nothing more and exits with {@link #status()}.
 */
public final class JobFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    /** @param status the exit status to end with */
    public JobFailedException(int status) {
        super("the MPI job ended with status " + status);
        this.status = status;
    }

    /** The exit status to end with. */
    public int status() {
        return status;
    }
}
