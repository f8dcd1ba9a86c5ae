package org.paratrain.comm;

/**
 * Collectives a backend performs itself rather than through {@link Communicator#send} and
 * {@link Communicator#recv}: MPI's own {@code MPI_Allreduce}, {@code MPI_Bcast},
 * {@code MPI_Reduce_scatter} and {@code MPI_Allgatherv}, which pick their algorithm by size and
 * may use the hardware. A capability, offered by
 * {@link Communicator#nativeCollectives()} where the backend has it; not every backend does,
 * so the interface every backend implements stays free of methods that would throw.
 *
 * <p>Every call is collective: every rank of the group calls it, in the same order, with the
 * same length (and the same root, or the same counts).
 *
 * <p>The reduce-scatter and the allgather cut a vector into one block a rank, in rank order:
 * {@code counts[r]} elements for rank r, starting {@code counts[0] + .. + counts[r-1]} after
 * {@code offset}.
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

    /**
     * Sums {@code buf[offset, offset + sum of counts)} over all ranks and leaves this rank's block
     * of the sums in place ({@code MPI_Reduce_scatter} on {@code MPI_DOUBLE} with {@code MPI_SUM});
     * the rest of the vector is undefined afterwards.
     *
     * @param buf    this rank's values on entry; its own block of the sums on return
     * @param offset index of the vector's first value
     * @param counts values in each rank's block, one entry a rank, the same on every rank
     */
    void reduceScatterSum(double[] buf, int offset, int[] counts);

    /**
     * As {@link #reduceScatterSum(double[], int, int[])} on 64-bit integer words
     * ({@code MPI_INT64_T}): exact, so the same words whatever the order.
     *
     * @param buf    this rank's words on entry; its own block of the sums on return
     * @param offset index of the vector's first word
     * @param counts words in each rank's block, one entry a rank, the same on every rank
     */
    void reduceScatterSum(long[] buf, int offset, int[] counts);

    /**
     * Copies every rank's block of {@code buf[offset, offset + sum of counts)} into the same place
     * on every rank ({@code MPI_Allgatherv} on {@code MPI_DOUBLE}, in place).
     *
     * @param buf    this rank's own block filled in; every block on return
     * @param offset index of the vector's first value
     * @param counts values in each rank's block, one entry a rank, the same on every rank
     */
    void allgather(double[] buf, int offset, int[] counts);

    /**
     * As {@link #allgather(double[], int, int[])} on 64-bit integer words ({@code MPI_INT64_T}).
     *
     * @param buf    this rank's own block filled in; every block on return
     * @param offset index of the vector's first word
     * @param counts words in each rank's block, one entry a rank, the same on every rank
     */
    void allgather(long[] buf, int offset, int[] counts);
}
