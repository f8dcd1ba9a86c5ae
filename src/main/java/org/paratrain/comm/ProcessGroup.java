package org.paratrain.comm;

/**
 * The ranks that are threads of one process, where some ranks of a job share a process (MPI
 * with {@code --ranks-per-process} above 1): a capability of their {@link Communicator}s,
 * offered by {@link Communicator#processGroup()}, for collectives that combine in shared
 * memory first and send only one vector per process (a hierarchical allreduce).
 *
 * <p>A job's rank {@code r} is local rank {@code r % localSize()} of process
 * {@code r / localSize()}; every process has the same number of ranks.
 *
 * <p>Every method is collective over the process's ranks: each of them calls it, in the same
 * order.
 */
public interface ProcessGroup {

    /** {@return this rank's number among its process's ranks, {@code 0 <= localRank < localSize}} */
    int localRank();

    /** {@return how many ranks this process holds} */
    int localSize();

    /**
     * {@return the group of processes: one rank per process, numbered by process}
     * Only local rank 0 (the process's leader) may use it, and only between two
     * {@link #localBarrier()}s that the other local ranks are waiting in, so that one thread a
     * process calls the backend at a time.
     */
    Communicator leaders();

    /**
     * Shows {@code buf} (from {@code offset}) to the process's other ranks until the next
     * {@link #localBarrier()} after they have all read it: call it, then {@link #localBarrier()}, then read the
     * others' with {@link #buffer} and {@link #offset}.
     *
     * @param buf    {@code double[]} or {@code long[]}, the same kind on every local rank
     * @param offset where this rank's values begin
     */
    void publish(Object buf, int offset);

    /**
     * {@return the buffer local rank {@code localRank} published last}
     * @param localRank a rank of this process
     */
    Object buffer(int localRank);

    /**
     * {@return the offset local rank {@code localRank} published last}
     * @param localRank a rank of this process
     */
    int offset(int localRank);

    /** Returns once every rank of this process has called it; what each wrote before is then visible to all. */
    void localBarrier();
}
