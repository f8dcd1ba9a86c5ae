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
    /**
     * Above 1: the rank does not fail but becomes this many times slower from the step on: it
     * computes its blocks this many times (each time with the same bits), as a slower node would
     * take this much longer. For the tests and the benchmark of {@code --rebalance}.
     */
    private final int slow;

    FailureInjection(int rank, int epoch, boolean hang) {
        this(rank, epoch, hang, 1);
    }

    private FailureInjection(int rank, int epoch, boolean hang, int slow) {
        this.rank = rank;
        this.epoch = epoch;
        this.hang = hang;
        this.slow = slow;
    }

    /**
     * {@return rank {@code rank} computing its blocks {@code factor} times from step {@code step} on}
     * @param rank   the rank made slower
     * @param step   the first step (1-based over the run) it is slower in
     * @param factor how many times it computes its blocks, at least 2
     */
    public static FailureInjection slow(int rank, int step, int factor) {
        return new FailureInjection(rank, step, false, factor);
    }

    /**
     * {@return the injection a {@code --inject-failure} value asks for}
     * @param s {@code RANK:EPOCH}, {@code RANK:EPOCH:hang} or {@code RANK:EPOCH:slow=FACTOR} (FACTOR
     *          at least 2: from that step on, counted over the run as for a failure, the rank
     *          computes its blocks FACTOR times)
     * @throws IllegalArgumentException naming the option, if {@code s} is none of these forms
     */
    public static FailureInjection parse(String s) {
        String[] parts = s.split(":");
        try {
            boolean slow = parts.length == 3 && parts[2].startsWith("slow=");
            if (parts.length > 3 || (parts.length == 3 && !parts[2].equals("hang") && !slow)) {
                throw new IllegalArgumentException();
            }
            int r = Integer.parseInt(parts[0]);
            int e = Integer.parseInt(parts[1]);
            if (slow) {
                int f = Integer.parseInt(parts[2].substring("slow=".length()));
                if (f < 2) {
                    throw new IllegalArgumentException();
                }
                return slow(r, e, f);
            }
            return new FailureInjection(r, e, parts.length == 3);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--inject-failure must be RANK:EPOCH, RANK:EPOCH:hang or "
                + "RANK:EPOCH:slow=FACTOR (FACTOR at least 2), got '" + s + "'");
        }
    }

    /**
     * {@return how many times rank {@code myRank} computes its blocks in step {@code step}
     * (1-based over the run): the slowdown from its step on, else 1}
     */
    int repeats(int myRank, long step) {
        return slow > 1 && myRank == rank && step >= epoch ? slow : 1;
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
        if (myRank != rank || step != epoch || slow > 1) {
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
