package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * Sums a vector over all ranks, in place, leaving the sum on every rank.
 *
 * <p>Call order: one instance per rank (it keeps scratch space between calls, so a training
 * step allocates nothing once the first call has sized it); every rank calls
 * {@link #allreduce} with the same length. Every rank ends with the same bits: each
 * algorithm here either adds in an order that every rank shares, or adds two values
 * (commutative in floating point) and passes the result on.
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
    void allreduce(Communicator comm, double[] buf, int offset, int length);

    /** {@return the name, as on the command line ({@code ring})} */
    String name();

    /**
     * {@return the predicted seconds of one allreduce, by the algorithm's Hockney formula}
     * @param p ranks
     * @param n doubles summed
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
