package org.paratrain.train;

import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.model.Model;
import org.paratrain.optim.Optimizer;

/**
 * The data-parallel loop on one rank: compute the loss and gradient of each owned block,
 * exchange, update, repeat. Weights start where the model's seeded initialiser puts them
 * (zero for the linear models), the same on every rank.
 *
 * <p>Timing follows the paper: the loop's wall time on rank 0, data loading excluded,
 * with the time computing gradients kept apart from the time exchanging them.
 */
public final class RankTrainer {
    private final Communicator comm;
    private final Dataset data;
    private final Model model;
    private final Optimizer optimizer;
    private final TrainConfig config;
    private final Batches batches;
    private final long seed;
    /** The first sample this rank's data holds: 0, or the start of its shard when it holds only that. */
    private final int origin;
    private final int totalSamples;
    private final BlockSharding sharding;

    /** Prepares one rank's part of a full-batch run; {@code optimizer} must be this rank's own instance. */
    public RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainConfig config) {
        this(comm, data, model, optimizer, config, 0, 0);
    }

    /**
     * Prepares one rank's part of a run with mini-batches of {@code batchSize} samples (0: full
     * batch) visited in an order drawn from {@code seed}; see {@link Batches}.
     */
    public RankTrainer(Communicator comm, Dataset data, Model model, Optimizer optimizer, TrainConfig config,
                       int batchSize, long seed) {
        this(comm, data, 0, data.samples(), model, optimizer, config, batchSize, seed);
    }

    /**
     * A full-batch run in which this rank holds only samples {@code [origin, origin + data.samples())}
     * of {@code total}: its own blocks, read from a file too large to hold on every rank.
     */
    public RankTrainer(Communicator comm, Dataset data, int origin, int total, Model model, Optimizer optimizer,
                       TrainConfig config, int batchSize, long seed) {
        this.origin = origin;
        this.totalSamples = total;
        this.comm = comm;
        this.data = data;
        this.model = model;
        this.optimizer = optimizer;
        this.config = config;
        this.batches = new Batches(data, total, batchSize, seed, config.blockSize(), comm.rank(), comm.size());
        this.seed = seed;
        this.sharding = config.blockSize() == 0
            ? BlockSharding.byDefault(total)
            : new BlockSharding(total, config.blockSize());
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size()));
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size()));
        if (first < origin || end > origin + data.samples()) {
            throw new IllegalArgumentException("rank " + comm.rank() + " holds samples [" + origin + ", "
                + (origin + data.samples()) + ") but its blocks need [" + first + ", " + end + ")");
        }
    }

    /** Runs the loop; rank 0 returns the result, other ranks return null. */
    public TrainingResult train() {
        int p = model.parameterCount();
        GradientExchange exchange = exchange(p, batches.sharding());
        boolean mean = config.lossReduction() == LossReduction.MEAN;
        double scale = mean ? 1.0 / batches.stepSamples() : 1.0;
        int steps = batches.steps();
        double[] weights = new double[p];
        model.initialize(weights, seed);
        int epochs = config.epochs();
        double[] loss = new double[epochs];
        double[] seconds = new double[epochs];
        double[] compute = new double[epochs];
        double[] exchangeTime = new double[epochs];
        DivergenceMonitor monitor = new DivergenceMonitor(config.learningRate());
        comm.barrier();
        double start = comm.wtime();
        for (int e = 0; e < epochs; e++) {
            comm.epoch(e + 1);
            try {
                for (int s = 0; s < steps; s++) {
                    double t0 = comm.wtime();
                    computeBlocks(exchange, batches.sharding(), batches.step(e, s), weights, true);
                    double t1 = comm.wtime();
                    loss[e] += exchange.step(weights, optimizer, scale);
                    double t2 = comm.wtime();
                    compute[e] += t1 - t0;
                    exchangeTime[e] += t2 - t1;
                }
                seconds[e] = comm.wtime() - start;
                loss[e] = mean ? loss[e] / steps : loss[e];
            } catch (PeerFailedException ex) {
                throw ex;
            } catch (RuntimeException ex) {
                throw new TrainingException("epoch " + (e + 1) + ": " + message(ex), ex);
            }
            String diverged = monitor.check(e + 1, loss[e]);
            if (diverged != null) {
                throw new DivergenceException(diverged);
            }
        }
        double trainSeconds = comm.wtime() - start;
        GradientExchange whole = steps == 1 && batches.stepSamples() == totalSamples ? exchange
            : exchange(p, sharding);
        computeBlocks(whole, sharding, data, weights, false);
        double finalLoss = whole.reduceLoss(mean ? 1.0 / totalSamples : 1.0);
        if (comm.rank() != 0) {
            return null;
        }
        return new TrainingResult(weights, finalLoss, epochs, comm.size(), comm.backend(), exchange.name(),
            batches.sharding().blockSize(), trainSeconds, sum(compute), sum(exchangeTime),
            new TrainingResult.History(loss, seconds, compute, exchangeTime));
    }

    /** Fills this rank's block losses (and gradients when asked) at {@code weights}. */
    private void computeBlocks(GradientExchange exchange, BlockSharding sharding, Dataset data, double[] weights,
                               boolean gradients) {
        int first = sharding.firstBlock(comm.rank(), comm.size());
        int end = sharding.endBlock(comm.rank(), comm.size());
        double[] losses = exchange.losses();
        double[] grads = exchange.gradients();
        int p = model.parameterCount();
        for (int b = first; b < end; b++) {
            int k = b - first;
            // The whole data set's blocks, or (for a shard) the same blocks shifted by the shard's start.
            int shift = data == this.data ? origin : 0;
            int from = sharding.blockStart(b) - shift;
            int to = sharding.blockEnd(b) - shift;
            if (gradients) {
                int at = exchange.gradientOffset(k);
                java.util.Arrays.fill(grads, at, at + p, 0.0);
                losses[exchange.lossIndex(k)] = model.lossAndGradient(data, from, to, weights, grads, at);
            } else {
                losses[exchange.lossIndex(k)] = model.loss(data, from, to, weights);
            }
        }
    }

    /** The exchange the configuration names ({@code auto} resolved by the caller beforehand). */
    private GradientExchange exchange(int params, BlockSharding sharding) {
        String name = config.exchange();
        if (name.equals(TrainConfig.MASTER_WORKER)) {
            return new MasterWorkerExchange(comm, sharding, params);
        }
        if (name.equals("auto")) {
            throw new IllegalArgumentException("--allreduce auto must be resolved before training starts");
        }
        return new AllreduceExchange(comm, sharding, params, Allreduces.create(name));
    }

    private static double sum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
