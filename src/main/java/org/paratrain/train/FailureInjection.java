package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.train.spec.TrainSpec;

/**
 * Internal, not part of paratrain's API (Javadoc leaves it out): makes one rank throw, or stop
 * answering, in one epoch, to check how a job ends when a rank fails. paratrain's own fault
 * tests need it inside real processes (the command line's hidden
 * {@code --inject-failure RANK:EPOCH[:hang]}, often on MPI ranks), which is why the command
 * line can reach it at all; tests in this package make one directly.
 *
 * @hidden
 */
public final class FailureInjection {
    /** The rank that fails. */
    private final int rank;
    /** The epoch (1-based) in which it fails; for mini-batch runs, the step. */
    private final int epoch;
    /** True: the rank sleeps until it is interrupted instead of throwing. */
    private final boolean hang;

    FailureInjection(int rank, int epoch, boolean hang) {
        this.rank = rank;
        this.epoch = epoch;
        this.hang = hang;
    }

    /**
     * {@return the injection a {@code --inject-failure} value asks for}
     * @param s {@code RANK:EPOCH} or {@code RANK:EPOCH:hang}
     * @throws IllegalArgumentException naming the option, if {@code s} is neither form
     */
    public static FailureInjection parse(String s) {
        String[] parts = s.split(":");
        try {
            if (parts.length > 3 || (parts.length == 3 && !parts[2].equals("hang"))) {
                throw new IllegalArgumentException();
            }
            return new FailureInjection(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), parts.length == 3);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--inject-failure must be RANK:EPOCH or RANK:EPOCH:hang, got '" + s
                + "'");
        }
    }

    /**
     * {@return rank 0's result of {@link Training#local(Dataset, TrainSpec, TrainingControl)}
     * with {@code failure} injected}
     * @param data    the samples
     * @param spec    what to train and how
     * @param control resume, checkpoints, listener, deadline and validation
     * @param failure the failure to inject, or null for none
     */
    public static TrainingResult local(Dataset data, TrainSpec spec, TrainingControl control,
                                       FailureInjection failure) {
        return Training.local(data, spec, control, failure);
    }

    /**
     * {@return this rank's result of {@link Training#mpi(Dataset, TrainSpec, TrainingControl)}
     * with {@code failure} injected}
     * @param data    every sample, on every rank
     * @param spec    what to train and how
     * @param control resume, checkpoints, listener, deadline and validation
     * @param failure the failure to inject, or null for none
     */
    public static TrainingResult mpi(Dataset data, TrainSpec spec, TrainingControl control,
                                     FailureInjection failure) {
        return Training.mpi(data, spec, control, failure);
    }

    /** The model to use on {@code myRank}: {@code model} itself, or one that fails on time. */
    Model wrap(Model model, int myRank) {
        return myRank != rank ? model : new Failing(model, epoch, hang);
    }

    private static final class Failing extends ForwardingModel {
        private final int failAtEpoch;
        private final boolean hang;
        private int epoch;
        private int firstFrom = -1;

        Failing(Model inner, int failAtEpoch, boolean hang) {
            super(inner);
            this.failAtEpoch = failAtEpoch;
            this.hang = hang;
        }

        @Override
        public double lossAndGradient(Dataset data, int from, int to, double[] params, double[] grad, int offset) {
            if (firstFrom < 0) {
                firstFrom = from;
            }
            if (from == firstFrom) {
                epoch++;   // a rank visits its first block once per epoch
            }
            if (epoch == failAtEpoch && hang) {
                hang();
            }
            if (epoch == failAtEpoch) {
                throw new IllegalStateException("failure injected on purpose");
            }
            return inner.lossAndGradient(data, from, to, params, grad, offset);
        }

        /** Stops answering, as a hung rank does, until the job ends it. */
        private static void hang() {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("hang injected on purpose, ended by the job");
            }
        }
    }
}
