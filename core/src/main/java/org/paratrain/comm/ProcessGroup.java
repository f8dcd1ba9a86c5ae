package org.paratrain.comm;

/**
 * The ranks that are threads of one process, where some ranks of a job share a process (MPI
 * with {@code --ranks-per-process} above 1): a capability of their {@link Communicator}s,
 * offered by {@link Communicator#processGroup()}, for collectives that combine in shared
 * memory first and send only one vector per process (a hierarchical allreduce).
 *
 * <p>A job's rank {@code r} is local rank {@code r % localSize()} of process
 * {@code r / localSize()}; every process has the same number of ranks.
 */
public interface ProcessGroup {

    /** {@return this rank's number among its process's ranks, {@code 0 <= localRank < localSize}} */
    int localRank();

    /** {@return how many ranks this process holds} */
    int localSize();

    /**
     * Collective over the process's ranks: each passes its buffer; once all have, one of them
     * (whichever arrived last, so that no thread is woken only to do it) runs {@code step} with
     * every rank's buffer, and then every rank returns. While the step runs every other rank of
     * the process waits here, so the step may call the backend between processes (one thread of
     * the process at a time, as {@code MPI_THREAD_SERIALIZED} asks) and may write every buffer.
     * What the step wrote is visible to every rank when it returns.
     *
     * @param buf    this rank's buffer ({@code double[]} or {@code long[]}, the same kind on every local rank), or null
     * @param offset where this rank's values begin
     * @param step   the work on all the buffers; every local rank passes the same
     * @throws PeerFailedException if another rank of the process failed, here or before it arrived
     * @throws CommTimeoutException if a rank of the process did not arrive within the deadline
     */
    void meet(Object buf, int offset, Step step);

    /**
     * {@return nanoseconds this rank's thread spent, over every {@link #meet} so far, between the
     * end of the step it waited for and its own return: the wait for a core that another rank of
     * the process keeps while it computes, where ranks are virtual threads sharing a carrier (0 for
     * other threads)} Not the exchange's time: a trainer takes it out of the exchange it measures
     * without waits. Read by this rank's own thread.
     */
    default long lateNanos() {
        return 0L;
    }

    /**
     * {@return the part of {@link #lateNanos} from this rank's most recent {@link #meet} alone}
     * At a run's edges it is the wait for a core while a sibling rank went on past the last
     * collective (into its final pass, say): not the run's time. Read by this rank's own thread.
     */
    default long lastLateNanos() {
        return 0L;
    }

    /** The work done once all of a process's ranks have met. */
    @FunctionalInterface
    interface Step {
        /**
         * Runs on one rank of the process, while the others wait.
         *
         * @param buffers the buffers, by local rank
         * @param offsets where each buffer's values begin, by local rank
         * @param leaders the processes, one rank each, numbered by process: for the step between processes
         */
        void run(Object[] buffers, int[] offsets, Communicator leaders);
    }
}
