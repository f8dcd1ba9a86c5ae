package org.paratrain.comm;

/**
 * A job whose ranks are separate processes (an MPI job) ended with a non-zero status, and its
 * ranks or the launching process have already said why in one line: whoever catches it prints
 * nothing more and exits with {@link #status()}.
 */
public final class JobFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The exit status of the job's launcher. */
    private final int status;

    /**
     * A failed job.
     *
     * @param status the exit status to end with
     */
    public JobFailedException(int status) {
        super("the MPI job ended with status " + status);
        this.status = status;
    }

    /** {@return the exit status to end with} */
    public int status() {
        return status;
    }
}
