package org.paratrain.train;

import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The entry point for programs that train with paratrain: one call trains a model
 * data-parallel on ranks inside this JVM and returns rank 0's result.
 *
 * <pre>{@code
 * Dataset data = new MakeRegression(500, 1, 1, 0.0, 0.0, true)
 *     .generate(new NumpyRandomState(42)).data();
 * TrainingResult r = Training.local(data, TrainSpec.paper().withNodes(4));
 * }</pre>
 */
public final class Training {
    private Training() { }

    /**
     * Trains what {@code spec} says on {@code spec.nodes()} in-JVM ranks.
     *
     * @param data the samples; every rank trains on its shard of the same array; labels must suit the model
     * @param spec model, optimizer, exchange and run
     * @return rank 0's result: parameters, final loss, per-epoch history and timings, and the
     *         training accuracy of a classifier
     * @throws DivergenceException if the loss diverged (try a smaller learning rate)
     * @throws RankFailedException if a rank failed; the message names it and the epoch
     */
    public static TrainingResult local(Dataset data, TrainSpec spec) {
        return local(data, spec, TrainingControl.none());
    }

    /**
     * Trains on in-JVM ranks, from a saved state if {@code control} has one, saving
     * checkpoints and telling its listener after each epoch.
     *
     * @param data    the samples; their labels must suit the model
     * @param spec    model, optimizer, exchange and run
     * @param control a state to resume from, checkpoints, an epoch listener, the communication
     *                deadline and validation
     * @return rank 0's result, with the training accuracy for a classifier
     * @throws DivergenceException if the loss diverged
     * @throws RankFailedException if a rank failed or waited past the deadline
     */
    public static TrainingResult local(Dataset data, TrainSpec spec, TrainingControl control) {
        return local(data, spec, control, null);
    }

    /** As {@link #local(Dataset, TrainSpec, TrainingControl)}, with a failure injected for a test (or null). */
    static TrainingResult local(Dataset data, TrainSpec spec, TrainingControl control, FailureInjection failure) {
        return local(data, spec, control, null, failure);
    }

    /**
     * As {@link #local(Dataset, TrainSpec, TrainingControl)}, each rank's model passed through
     * {@code wrap} (model, rank) first, for a test; null for none.
     */
    static TrainingResult localWrapped(Dataset data, TrainSpec spec, TrainingControl control,
                                       java.util.function.BiFunction<Model, Integer, Model> wrap) {
        return local(data, spec, control, wrap, null);
    }

    private static TrainingResult local(Dataset data, TrainSpec spec, TrainingControl control,
                                        java.util.function.BiFunction<Model, Integer, Model> wrap,
                                        FailureInjection failure) {
        int classes = spec.check(data);
        List<TrainingResult> results;
        BlockBoard board = spec.exchange().scheme() == ExchangeSpec.Scheme.SHARED
            ? new BlockBoard(spec.nodes(), control.commTimeout()) : null;
        try {
            results = LocalCluster.run(spec.nodes(), control.commTimeout(), comm -> {
                Model m = spec.model().newModel(data.features(), classes);
                try {
                    return new RankTrainer(comm, data, wrap == null ? m : wrap.apply(m, comm.rank()),
                        spec.optimizer().newOptimizer(spec.totalSteps(data)), spec, board).failing(failure)
                        .train(control);
                } catch (RuntimeException | Error e) {
                    if (board != null) {
                        board.fail(comm.rank());    // ranks waiting on the board stop at once
                    }
                    throw e;
                }
            });
        } catch (RankFailedException e) {
            if (e.getCause() instanceof DivergenceException d) {
                throw d;
            }
            throw e;
        }
        return withAccuracy(results.get(0), data, spec, classes, true);
    }

    /**
     * Trains the ranks of this MPI process, which holds only the samples of its ranks' blocks
     * (full batch). Rank 0 returns the result, other ranks null.
     *
     * @param shard   this process's samples only (those of its ranks' blocks)
     * @param origin  index of the shard's first sample in the whole data set
     * @param owned   samples this process holds (the shard's size)
     * @param total   samples in the whole data set
     * @param classes number of classes of a classifier (0 for a regression)
     * @param spec    model, optimizer, exchange and run; its node count must be the job's size
     * @param control a state to resume from, checkpoints, listener, deadline and validation
     * @return rank 0's result with the accuracy over every shard for a classifier; null elsewhere
     */
    public static TrainingResult mpiShard(Dataset shard, int origin, int owned, int total, int classes,
                                          TrainSpec spec, TrainingControl control) {
        checkJobSize(spec);
        return orAbort(() -> Backend.onMpiRanks(comm -> {
            Model model = spec.model().newModel(shard.features(), classes);
            TrainingResult r = new RankTrainer(comm, shard, origin, total, model,
                spec.optimizer().newOptimizer(spec.epochs()), spec).train(control);
            if (!(model instanceof org.paratrain.model.Classifier c) || !c.classifies()) {
                return r;
            }
            // Only rank 0 is sure to hold the final weights (master-worker): send them to all, count
            // the right answers on each process's shard (once a process), add the counts.
            double[] w = r != null ? r.params() : new double[model.parameterCount()];
            fromRankZero(comm, w);
            boolean counts = comm.processGroup().map(g -> g.localRank() == 0).orElse(true);
            double[] right = {counts && owned > 0 ? c.accuracy(shard, w) * owned : 0};
            sumOverRanks(comm, right);
            return r == null ? null : r.withAccuracy(right[0] / total);
        }).get(0));
    }

    /** Rank 0's values to every rank: MPI's broadcast, or (ranks as threads) a sum with zeros elsewhere. */
    static void fromRankZero(Communicator comm, double[] v) {
        if (comm.nativeCollectives().isPresent()) {
            comm.nativeCollectives().get().broadcast(v, 0, v.length, 0);
            return;
        }
        if (comm.rank() != 0) {
            java.util.Arrays.fill(v, 0.0);
        }
        sumOverRanks(comm, v);
    }

    /** MPI's own allreduce where a rank is a process; in two levels (star between processes) otherwise. */
    static void sumOverRanks(Communicator comm, double[] v) {
        String algorithm = comm.nativeCollectives().isPresent() ? "native" : "star";
        org.paratrain.collective.Allreduces.create(algorithm, comm).allreduce(comm, v, 0, v.length);
    }

    /**
     * The training accuracy at the final weights, counted on as many threads as the run had
     * ranks (up to the cores), each with a model of its own over a contiguous range: a network's
     * forward pass over the whole training set is seconds on one core. The counts are whole
     * numbers, so their sum does not depend on the split.
     */
    private static TrainingResult withAccuracy(TrainingResult r, Dataset data, TrainSpec spec, int classes,
                                               boolean threads) {
        if (r == null || !(spec.model().newModel(data.features(), classes)
            instanceof org.paratrain.model.Classifier c) || !c.classifies()) {
            return r;
        }
        // Local ranks have ended, so their cores are free; an MPI job's other ranks may still hold theirs.
        int parts = !threads ? 1 : Math.max(1, Math.min(Math.min(r.nodes(), Runtime.getRuntime().availableProcessors()),
            data.samples() / 1024));
        if (parts == 1) {
            return r.withAccuracy(c.accuracy(data, r.params()));
        }
        long right = java.util.stream.IntStream.range(0, parts).parallel().mapToLong(k -> {
            var own = (org.paratrain.model.Classifier) spec.model().newModel(data.features(), classes);
            // Ranges start at multiples of 256, so each network runs the chunks accuracy() runs: the same bits.
            int from = k == 0 ? 0 : (int) ((long) data.samples() * k / parts) / 256 * 256;
            int to = k == parts - 1 ? data.samples() : (int) ((long) data.samples() * (k + 1) / parts) / 256 * 256;
            int[] predicted = new int[4096];
            long n = 0;
            for (int at = from; at < to; at += predicted.length) {
                int m = Math.min(predicted.length, to - at);
                own.predict(data, at, m, r.params(), predicted, null);
                for (int i = 0; i < m; i++) {
                    n += predicted[i] == (int) data.y()[at + i] ? 1 : 0;
                }
            }
            return n;
        }).sum();
        return r.withAccuracy((double) right / data.samples());
    }

    /**
     * Trains this rank of an MPI job (started by mpirun; every rank calls this with the same
     * arguments). Rank 0 returns the result, other ranks null. A rank that fails prints what
     * happened, with its rank, and aborts the job, so that no rank waits for ever.
     *
     * @param data    every sample, on every rank
     * @param spec    model, optimizer, exchange and run; its node count must be the job's size
     * @param control a state to resume from, checkpoints, listener, deadline and validation
     * @return rank 0's result, null on other ranks
     */
    public static TrainingResult mpi(Dataset data, TrainSpec spec, TrainingControl control) {
        return mpi(data, spec, control, null);
    }

    /** As {@link #mpi(Dataset, TrainSpec, TrainingControl)}, with a failure injected for a test (or null). */
    static TrainingResult mpi(Dataset data, TrainSpec spec, TrainingControl control, FailureInjection failure) {
        int classes = spec.check(data);
        checkJobSize(spec);
        return orAbort(() -> Backend.onMpiRanks(comm -> {
            Model model = spec.model().newModel(data.features(), classes);
            return withAccuracy(new RankTrainer(comm, data, model, spec.optimizer().newOptimizer(spec.totalSteps(data)),
                spec).failing(failure).train(control), data, spec, classes, false);
        }).get(0));
    }

    private static void checkJobSize(TrainSpec spec) {
        int ranks = Backend.mpiJobSize();
        if (ranks != spec.nodes()) {
            int k = Backend.mpiRanksPerProcess();
            throw new IllegalArgumentException("--nodes is " + spec.nodes() + " but the MPI job has " + ranks
                + (k == 1 ? " processes" : " ranks (" + ranks / k + " processes of " + k + ")"));
        }
    }

    private static TrainingResult orAbort(java.util.function.Supplier<TrainingResult> work) {
        try {
            return work.get();
        } catch (DivergenceException e) {
            throw e;
        } catch (RankFailedException e) {
            if (e.getCause() instanceof DivergenceException d) {
                throw d;
            }
            Backend.abortMpiJob(e);
            throw e;
        } catch (RuntimeException | Error e) {
            Backend.abortMpiJob(e);
            throw e;
        }
    }
}
