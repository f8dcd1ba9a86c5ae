package org.paratrain.comm;

/**
 * Collectives a backend performs itself rather than through {@link Communicator#send} and
 * {@link Communicator#recv}: MPI's own {@code MPI_Allreduce} and {@code MPI_Bcast}, which pick
 * their algorithm by size and may use the hardware. A capability, offered by
 * {@link Communicator#nativeCollectives()} where the backend has it; not every backend does,
 * so the interface every backend implements stays free of methods that would throw.
 *
 * <p>Every call is collective: every rank of the group calls it, in the same order, with the
 * same length (and the same root).
 */
public interface NativeCollectives {

    /**
     * Sums {@code buf[offset, offset + length)} over all ranks, in place on every rank.
     *
     * @param buf    this rank's values on entry, the sums on return
     * @param offset index of the first value
     * @param length number of values, the same on every rank
     */
    void allreduceSum(double[] buf, int offset, int length);

    /**
     * Replaces every element of {@code buf[offset, offset + length)} by its maximum over all ranks.
     *
     * @param buf    this rank's values on entry, the maxima on return
     * @param offset index of the first value
     * @param length number of values, the same on every rank
     */
    void allreduceMax(double[] buf, int offset, int length);

    /**
     * Copies {@code buf[offset, offset + length)} of rank {@code root} into the same range on every rank.
     *
     * @param buf    the values on {@code root}; overwritten on the others
     * @param offset index of the first value
     * @param length number of values, the same on every rank
     * @param root   the rank whose values are sent
     */
    void broadcast(double[] buf, int offset, int length, int root);

    /**
     * Sums 64-bit integer words element-wise over all ranks, in place on every rank
     * ({@code MPI_Allreduce} on {@code MPI_INT64_T} with {@code MPI_SUM}); exact, so the same
     * words whatever the order.
     *
     * @param buf    the words
     * @param offset first word
     * @param length number of words
     */
    void allreduceSum(long[] buf, int offset, int length);

    /**
     * Element-wise maximum of 64-bit integer words over all ranks, in place on every rank.
     *
     * @param buf    the words
     * @param offset first word
     * @param length number of words
     */
    void allreduceMax(long[] buf, int offset, int length);
}
