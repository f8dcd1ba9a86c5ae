package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;

/**
 * A collective's Hockney formula, as its own class states it: {@code Allreduce::cost} of an
 * allreduce instance, or a reduce-scatter's or allgather's static {@code cost}. The scheme
 * costs take these rather than the classes, so that a new algorithm (a recursive
 * halving reduce-scatter, MPI's own) plugs in with a method reference.
 */
@FunctionalInterface
public interface CollectiveCost {

    /**
     * {@return the predicted seconds of one call}
     * @param p ranks
     * @param n values moved, doubles or 64-bit words (8 bytes each)
     * @param m the machine's fitted alpha, beta and gamma
     */
    double seconds(int p, long n, Allreduce.Machine m);
}
