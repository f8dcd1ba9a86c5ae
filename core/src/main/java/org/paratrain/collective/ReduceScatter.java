package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Combines a vector element-wise over all ranks by a {@link Reduction} and leaves each rank one
 * slice of the result: chunk r of {@link Chunks} on rank r. The first half of an allreduce;
 * with an {@link Allgather} after it, the whole of one, and a sharded optimizer updates its
 * slice in between.
 *
 * <p>Call order: one instance per rank (it keeps scratch space between calls, so a training
 * step allocates nothing once the first call has sized it); every rank calls
 * {@link #reduceScatter} with equal chunks, cut for the group's size, and the same reduction.
 * Afterwards rank r's chunk r holds the result; the rest of its vector holds whatever the
 * algorithm left there (partial sums, other ranks' values), to be overwritten.
 *
 * <p>Each element is combined along one path that ends on the rank that owns it, so there is
 * one result, not one per rank. For 64-bit words it does not depend on the algorithm or the
 * number of ranks: integer addition is associative.
 *
 * <p>Each algorithm states its cost in the Hockney model (Thakur, Rabenseifner and Gropp,
 * "Optimization of Collective Communication Operations in MPICH", 2005), as
 * {@link Allreduce#cost} does: {@link #cost} is that formula, for n values of 8 bytes.
 */
public interface ReduceScatter {

    /**
     * Reduces {@code buf[offset, offset + chunks.length())} over the ranks, leaving chunk
     * {@code comm.rank()} reduced.
     *
     * @param <A>    {@code double[]} or {@code long[]}, as {@code op} says
     * @param comm   the group; every rank of it calls this with equal chunks and reduction
     * @param buf    this rank's values in; its own chunk reduced out, the rest undefined
     * @param offset index of the vector's first element
     * @param chunks how the vector is cut, for {@code comm.size()} ranks
     * @param op     the element-wise operation, e.g. {@link Reduction#WORD_SUM}
     * @throws IllegalArgumentException if the chunks are cut for another number of ranks
     */
    <A> void reduceScatter(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> op);

    /** {@return the algorithm's name ({@code ring}, {@code recursive-halving}, {@code native})} */
    String name();

    /**
     * {@return the predicted seconds of one reduce-scatter, by the algorithm's Hockney formula}
     * @param p ranks
     * @param n values in the whole vector, doubles or 64-bit words (8 bytes each)
     * @param m the machine's fitted alpha, beta and gamma
     */
    double cost(int p, long n, Allreduce.Machine m);
}
