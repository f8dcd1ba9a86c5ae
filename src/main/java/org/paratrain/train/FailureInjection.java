package org.paratrain.train;

import org.paratrain.data.Dataset;
import org.paratrain.train.spec.TrainSpec;

/**
 * Internal, not part of paratrain's API (Javadoc leaves it out): makes one rank throw, or stop
 * answering, in one epoch (or step), to check how a job ends when a rank fails. paratrain's own fault
 * tests need it inside real processes (the command line's hidden
 * {@code --inject-failure RANK:EPOCH[:hang]}, often on MPI ranks), which is why the command
 * line can reach it at all; tests in this package make one directly.
 *
 * @hidden
 */
public final class FailureInjection {
    /** The rank that fails. */
    private final int rank;
    /**
     * The epoch (1-based) in which it fails; for mini-batch runs, the step. Counted from the run's
     * start, so in a resumed run a step at or before the checkpoint's never comes.
     */
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

    /**
     * Called by the trainer as rank {@code myRank} begins step {@code step} of the run (1-based,
     * counted over epochs; the epoch at full batch): throws, or stops answering until the job
     * ends it, if this is the rank and the step. Kept in the trainer's loop, not in the model,
     * so that it does not depend on which blocks a rank computes (the shared step hands them out
     * as ranks are ready).
     */
    void atStep(int myRank, long step) {
        if (myRank != rank || step != epoch) {
            return;
        }
        if (hang) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("hang injected on purpose, ended by the job");
            }
        }
        throw new IllegalStateException("failure injected on purpose");
    }
}
