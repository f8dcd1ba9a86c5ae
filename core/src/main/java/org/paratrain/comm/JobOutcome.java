package org.paratrain.comm;

/**
 * How a job whose ranks are separate processes (an MPI job) ended, as the launching process
 * knows it: what a caller needs to decide (restart or not, which option to blame) and to record
 * (result.json's restarts) without reading the launcher's output again.
 *
 * @param status     the launcher's exit status (0, 1 for a failed job, 2 when the ranks refused an
 *                   option, 130 or 143 for a cancel, or whatever a launcher that failed returned)
 * @param kind       what kind of end it was
 * @param rank       the rank that died or failed (the first of its process's ranks), or -1 when not known
 * @param host       the host it ran on, or null
 * @param pid        its process id, or 0
 * @param signal     the signal that ended it, such as SIGKILL, or null
 * @param exitStatus its exit status when it ended without a signal, or -1 when not known
 * @param epoch      the epoch it was in, or 0 when not known
 * @param message    the one line that says it (already printed for {@link Kind#RANK_DIED} and
 *                   {@link Kind#RANK_FAILED}; the caller's to print for {@link Kind#LAUNCH_FAILED}), or null
 */
public record JobOutcome(int status, Kind kind, int rank, String host, long pid, String signal, int exitStatus,
                         long epoch, String message) {
    /** The kinds of end. */
    public enum Kind {
        /** Every rank succeeded. */
        SUCCEEDED,
        /** A rank said why the job ends (its line is the message). */
        RANK_FAILED,
        /** A rank died without saying why; the launching process named it. */
        RANK_DIED,
        /** The launcher failed before any rank started (a bad option, host or program); the message is its reason. */
        LAUNCH_FAILED,
        /** This process was asked to stop (SIGINT or SIGTERM) and ended the job. */
        CANCELLED
    }

    /**
     * {@return an end without a rank to name}
     * @param status  the launcher's exit status
     * @param kind    what kind of end it was
     * @param message the one line that says it, or null
     */
    public static JobOutcome of(int status, Kind kind, String message) {
        return new JobOutcome(status, kind, -1, null, 0, null, -1, 0, message);
    }

    /** {@return true when every rank succeeded} */
    public boolean succeeded() {
        return kind == Kind.SUCCEEDED;
    }
}
