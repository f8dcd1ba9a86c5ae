package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Gives every rank every slice of a vector, each from the rank that owns it: chunk r of
 * {@link Chunks} from rank r. The second half of an allreduce, after a {@link ReduceScatter};
 * a sharded optimizer gathers the parameters with it.
 *
 * <p>Call order: one instance per rank; every rank calls {@link #allgather} with equal chunks,
 * cut for the group's size. Nothing is combined, only copied, so every rank ends with the
 * bits each owner had.
 *
 * <p>Each algorithm states its cost in the Hockney model (Thakur, Rabenseifner and Gropp,
 * 2005), as {@link Allreduce#cost} does: {@link #cost} is that formula, for n values of 8 bytes.
 */
public interface Allgather {

    /**
     * Fills every chunk of {@code buf[offset, offset + chunks.length())} with the owner's.
     *
     * @param <A>    {@code double[]} or {@code long[]}
     * @param comm   the group; every rank of it calls this with equal chunks
     * @param buf    the vector: this rank's own chunk filled in, every other chunk overwritten
     * @param offset index of the vector's first element
     * @param chunks how the vector is cut, for {@code comm.size()} ranks
     * @param type   the element type's transport (any reduction of that type: nothing is reduced)
     * @throws IllegalArgumentException if the chunks are cut for another number of ranks
     */
    <A> void allgather(Communicator comm, A buf, int offset, Chunks chunks, Reduction<A> type);

    /** {@return the algorithm's name ({@code ring}, {@code recursive-doubling}, {@code native})} */
    String name();

    /**
     * {@return the predicted seconds of one allgather, by the algorithm's Hockney formula}
     * @param p ranks
     * @param n values in the whole vector, doubles or 64-bit words (8 bytes each)
     * @param m the machine's fitted alpha, beta and gamma
     */
    double cost(int p, long n, Allreduce.Machine m);
}
