package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Sums a vector over all ranks, in place, leaving the sum on every rank; or, more generally,
 * combines it element-wise by a {@link Reduction}: the sum of doubles, the exact sum of 64-bit
 * words (the words of a fixed-point sum) or a maximum.
 *
 * <p>Call order: one instance per rank (it keeps scratch space between calls, so a training
 * step allocates nothing once the first call has sized it); every rank calls
 * {@link #allreduce} with the same length and the same reduction. Every rank ends with the
 * same bits: each algorithm here either combines in an order that every rank shares, or
 * combines two values (commutative) and passes the result on. For words the result does not
 * depend on the algorithm or the number of ranks at all: integer addition is associative.
 *
 * <p>Each algorithm states its cost in the Hockney model (Thakur, Rabenseifner and Gropp,
 * "Optimization of Collective Communication Operations in MPICH", 2005): alpha per message,
 * beta per byte sent, gamma per byte reduced. {@link #cost} is that formula, and the cost
 * model reads it from here, the single source of truth.
 */
public interface Allreduce {

    /**
     * Sums {@code buf[offset, offset + length)} over all ranks of {@code comm}, in place, on every rank.
     *
     * @param comm   the group; every rank of it calls this with the same length
     * @param buf    this rank's values in, the sum out
     * @param offset index of the first value
     * @param length number of values, 0 or more
     */
    default void allreduce(Communicator comm, double[] buf, int offset, int length) {
        allreduce(comm, buf, offset, length, Reduction.DOUBLE_SUM);
    }

    /**
     * Combines {@code buf[offset, offset + length)} element-wise over all ranks of {@code comm}
     * by {@code op}, in place, on every rank.
     *
     * @param <A>    {@code double[]} or {@code long[]}, as {@code op} says
     * @param comm   the group; every rank of it calls this with the same length and reduction
     * @param buf    this rank's values in, the result out
     * @param offset index of the first value
     * @param length number of values, 0 or more
     * @param op     the element-wise operation, e.g. {@link Reduction#WORD_SUM}
     */
    <A> void allreduce(Communicator comm, A buf, int offset, int length, Reduction<A> op);

    /** {@return the name, as on the command line ({@code ring})} */
    String name();

    /**
     * {@return the predicted seconds of one allreduce, by the algorithm's Hockney formula}
     * @param p ranks
     * @param n values combined, doubles or 64-bit words (8 bytes each)
     * @param m the machine's fitted alpha, beta and gamma
     */
    double cost(int p, long n, Machine m);

    /**
     * The Hockney parameters of a machine.
     *
     * @param alpha seconds per message
     * @param beta  seconds per byte sent
     * @param gamma seconds per byte reduced (added)
     */
    record Machine(double alpha, double beta, double gamma) { }
}
