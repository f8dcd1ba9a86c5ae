package org.paratrain.train;

import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;

/**
 * The entry point for programs that train with paratrain: one call trains a model
 * data-parallel on ranks inside this JVM and returns rank 0's result.
 *
 * <pre>{@code
 * Dataset data = new MakeRegression(500, 1, 1, 0.0, 0.0, true)
 *     .generate(new NumpyRandomState(42)).data();
 * TrainingResult r = Training.local(data, TrainConfig.paper().withNodes(4));
 * }</pre>
 */
public final class Training {
    private Training() { }

    /**
     * Trains linear regression (the paper's model) on {@code config.nodes()} in-JVM ranks.
     *
     * @param data   the samples; every rank trains on its shard of the same array
     * @param config nodes, epochs, learning rate, intercept, loss reduction, block size and exchange
     * @return rank 0's result: parameters, final loss, per-epoch history and timings
     * @throws DivergenceException if the loss diverged (try a smaller learning rate)
     * @throws RankFailedException if a rank failed; the message names it and the epoch
     */
    public static TrainingResult local(Dataset data, TrainConfig config) {
        return local(data, config, Recipe.paper());
    }

    /**
     * Trains the model and optimiser of {@code recipe} on {@code config.nodes()} in-JVM ranks.
     * Classifiers report their training accuracy.
     *
     * @param data    the samples; their labels must suit the recipe's model
     * @param config  the run's settings
     * @param recipe  model, optimiser, schedule, batch size and seed
     * @return rank 0's result, with the training accuracy for a classifier
     */
    public static TrainingResult local(Dataset data, TrainConfig config, Recipe recipe) {
        return local(data, config, recipe, TrainingControl.none());
    }

    /**
     * As {@link #local(Dataset, TrainConfig, Recipe)}, resumed, checkpointed and watched as
     * {@code control} says.
     *
     * @param data    the samples; their labels must suit the recipe's model
     * @param config  the run's settings
     * @param recipe  model, optimiser, schedule, batch size and seed
     * @param control a state to resume from, checkpoints, an epoch listener, the communication
     *                deadline and validation
     * @return rank 0's result, with the training accuracy for a classifier
     * @throws org.paratrain.comm.RankFailedException if a rank failed or waited past the timeout
     */
    public static TrainingResult local(Dataset data, TrainConfig config, Recipe recipe, TrainingControl control) {
        return local(data, config, recipe, control, null);
    }

    /** As {@link #local(Dataset, TrainConfig, Recipe, TrainingControl)}, with a failure injected (tests only). */
    static TrainingResult local(Dataset data, TrainConfig config, Recipe recipe, TrainingControl control,
                                FailureInjection failure) {
        int classes = recipe.check(data);
        List<TrainingResult> results;
        try {
            results = LocalCluster.run(config.nodes(), control.commTimeout(), comm -> {
                Model m = recipe.newModel(data.features(), config.intercept(), classes);
                return new RankTrainer(comm, data, failure == null ? m : failure.wrap(m, comm.rank()),
                    recipe.newOptimizer(config.learningRate(), totalSteps(data, config, recipe)), config,
                    recipe.batchSize(), recipe.seed()).train(control);
            });
        } catch (RankFailedException e) {
            if (e.getCause() instanceof DivergenceException d) {
                throw d;
            }
            throw e;
        }
        return withAccuracy(results.get(0), data, config, recipe, classes);
    }

    /**
     * Trains on this rank of an MPI job that holds only its own blocks: samples
     * {@code [origin, origin + owned)} of {@code total} (full batch only; a rank that owns no
     * block holds a placeholder). The
     * result is the same bits as with every sample on every rank. A classifier's training
     * accuracy is counted by each rank on its shard and summed.
     *
     * @param shard   this rank's samples only
     * @param origin  index of the shard's first sample in the whole data set
     * @param owned   samples this rank owns (0 when the placeholder stands for none)
     * @param total   samples in the whole data set, which fix the block boundaries
     * @param classes classes of a classifier (0 for a regression), counted over the whole data set
     * @param config  the run's settings; its node count must be the job's size
     * @param recipe  model, optimiser and seed (full batch)
     * @param control a state to resume from, checkpoints, listener, deadline and validation
     * @return the result on rank 0, null on the other ranks
     */
    public static TrainingResult mpiShard(Dataset shard, int origin, int owned, int total, int classes,
                                          TrainConfig config, Recipe recipe, TrainingControl control) {
        Communicator comm = world(config);
        Model model = recipe.newModel(shard.features(), config.intercept(), classes);
        return orAbort(() -> {
            TrainingResult r = new RankTrainer(comm, shard, origin, total, model, recipe.newOptimizer(
                config.learningRate(), config.epochs()), config, 0, recipe.seed()).train(control);
            if (!(model instanceof org.paratrain.model.Classifier c) || !c.classifies()) {
                return r;
            }
            // Only rank 0 is sure to hold the final weights (master-worker): send them to all, count
            // the right answers on each shard, add the counts.
            NativeCollectives mpi = comm.nativeCollectives().orElseThrow();
            double[] w = r != null ? r.params() : new double[model.parameterCount()];
            mpi.broadcast(w, 0, w.length, 0);
            double[] right = {owned > 0 ? c.accuracy(shard, w) * owned : 0};
            mpi.allreduceSum(right, 0, 1);
            return r == null ? null : r.withAccuracy(right[0] / total);
        });
    }

    /** Updates in the whole run: epochs times steps per epoch (the cosine schedule spans them). */
    private static int totalSteps(Dataset data, TrainConfig config, Recipe recipe) {
        int steps = recipe.batchSize() == 0 ? 1 : data.samples() / Math.max(1, recipe.batchSize());
        return (int) Math.min(Integer.MAX_VALUE, (long) config.epochs() * Math.max(1, steps));
    }

    /** The result with its training accuracy when the model is a classifier. */
    private static TrainingResult withAccuracy(TrainingResult r, Dataset data, TrainConfig config, Recipe recipe,
                                               int classes) {
        if (r == null || !(recipe.newModel(data.features(), config.intercept(), classes)
            instanceof org.paratrain.model.Classifier c) || !c.classifies()) {
            return r;
        }
        return r.withAccuracy(c.accuracy(data, r.params()));
    }

    /**
     * Trains on this process's rank of an MPI job (the process was started by mpirun).
     * Rank 0 returns the result, other ranks null. A rank that fails prints what happened,
     * naming itself, and ends the whole job ({@code MPI_Abort}); divergence is seen by every
     * rank at the same epoch and thrown on each.
     *
     * @param data    every sample, on every rank
     * @param config  the run's settings
     * @return the result on rank 0, null on the other ranks
     * @throws IllegalArgumentException if {@code config.nodes()} differs from the job's size
     */
    public static TrainingResult mpi(Dataset data, TrainConfig config) {
        return mpi(data, config, Recipe.paper(), TrainingControl.none());
    }

    /**
     * As {@link #mpi(Dataset, TrainConfig)} with the model and optimiser of {@code recipe},
     * resumed, checkpointed and watched as {@code control} says.
     *
     * @param data    every sample, on every rank
     * @param config  the run's settings; its node count must be the job's size
     * @param recipe  model, optimiser, schedule, batch size and seed
     * @param control a state to resume from, checkpoints, listener, deadline and validation
     * @return the result on rank 0 (with the training accuracy of a classifier), null on the others
     */
    public static TrainingResult mpi(Dataset data, TrainConfig config, Recipe recipe, TrainingControl control) {
        return mpi(data, config, recipe, control, null);
    }

    /** As {@link #mpi(Dataset, TrainConfig, Recipe, TrainingControl)}, with a failure injected (tests only). */
    static TrainingResult mpi(Dataset data, TrainConfig config, Recipe recipe, TrainingControl control,
                              FailureInjection failure) {
        int classes = recipe.check(data);
        Communicator comm = world(config);
        Model m = recipe.newModel(data.features(), config.intercept(), classes);
        Model model = failure == null ? m : failure.wrap(m, comm.rank());
        return orAbort(() -> withAccuracy(new RankTrainer(comm, data, model, recipe.newOptimizer(
            config.learningRate(), totalSteps(data, config, recipe)), config, recipe.batchSize(), recipe.seed())
            .train(control), data, config, recipe, classes));
    }

    /** This process's rank, after checking the job has the configured number of processes. */
    private static Communicator world(TrainConfig config) {
        Communicator comm = Backend.mpiWorld();
        if (comm.size() != config.nodes()) {
            throw new IllegalArgumentException("--nodes is " + config.nodes() + " but the MPI job has " + comm.size()
                + " processes");
        }
        return comm;
    }

    /**
     * Runs a rank's work; if it fails, prints the reason naming the rank and ends the whole job.
     * Divergence passes through: every rank sees it at the same epoch and stops by itself.
     */
    private static TrainingResult orAbort(java.util.function.Supplier<TrainingResult> work) {
        try {
            return work.get();
        } catch (DivergenceException e) {
            throw e;
        } catch (RuntimeException | Error e) {
            Backend.abortMpiJob(e);
            throw e;
        }
    }
}
