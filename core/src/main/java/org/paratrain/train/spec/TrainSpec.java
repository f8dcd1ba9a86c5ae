package org.paratrain.train.spec;

import org.paratrain.data.Dataset;
import org.paratrain.train.LossReduction;

/**
 * Everything that decides what a training run computes: the model, the optimizer, the
 * exchange and the run. Built once (by the command line, the {@code Trainer} API or the
 * codec reading a record back), each part validated where it is built; lower layers read
 * it and never parse a setting again.
 *
 * @param model     what is trained
 * @param optimizer how the parameters are updated
 * @param exchange  how the ranks combine gradients
 * @param run       node count, epochs, batches and blocks
 * @param loss      a classifier's class weights and label smoothing ({@link LossSpec#PLAIN}: none)
 */
public record TrainSpec(ModelSpec model, OptimizerSpec optimizer, ExchangeSpec exchange, RunSpec run, LossSpec loss) {

    /**
     * A spec whose loss is the model's plain one.
     *
     * @param model     what is trained
     * @param optimizer how the parameters are updated
     * @param exchange  how the ranks combine gradients
     * @param run       node count, epochs, batches and blocks
     */
    public TrainSpec(ModelSpec model, OptimizerSpec optimizer, ExchangeSpec exchange, RunSpec run) {
        this(model, optimizer, exchange, run, LossSpec.PLAIN);
    }

    /** Checks that every part is there. */
    public TrainSpec {
        SpecException.check(model != null, "model", "must be given");
        SpecException.check(optimizer != null, "optimizer", "must be given");
        SpecException.check(exchange != null, "exchange", "must be given");
        SpecException.check(run != null, "run", "must be given");
        SpecException.check(loss != null, "loss", "must be given");
        SpecException.check(loss.plain() || model.classifier(),
            loss.labelSmoothing() != 0 && loss.weightsLabel().isEmpty() ? "label smoothing" : "class weights",
            "is for classifiers, not model " + model.kind());
        // A sharded optimizer holds a slice of the gradient; a global norm needs all of it.
        SpecException.check(optimizer.clipNorm() == 0 || exchange.scheme() != ExchangeSpec.Scheme.SHARDED,
            "clip norm", "needs the whole gradient on every rank; it does not go with a sharded optimizer (--shard-optimizer)");
    }

    /** {@return the paper's run: linear regression without intercept, gradient descent at 1e-4, master-worker} */
    public static TrainSpec paper() {
        return new TrainSpec(new ModelSpec.Linear(false), OptimizerSpec.gd(1e-4), ExchangeSpec.MASTER_WORKER,
            RunSpec.paper());
    }

    /** {@return the number of ranks; see {@link RunSpec#nodeCount()}} */
    public int nodes() {
        return run.nodeCount();
    }

    /** {@return the number of epochs} */
    public int epochs() {
        return run.epochs();
    }

    /**
     * The number of optimizer steps of the whole run on these data, which a cosine schedule
     * spans.
     *
     * @param data the training data
     * @return epochs times steps per epoch
     */
    public long totalSteps(Dataset data) {
        int steps = run.batchSize() == 0 ? 1 : Math.max(1, data.samples() / run.batchSize());
        return (long) run.epochs() * steps;
    }

    /**
     * Checks the data against the spec: a batch no larger than the data, labels that suit the
     * model.
     *
     * @param data the training data
     * @return the number of classes (see {@link ModelSpec#classes(Dataset)})
     * @throws IllegalArgumentException naming what does not fit
     */
    public int check(Dataset data) {
        data.requireFinite("the training data");
        if (run.batchSize() > data.samples()) {
            throw new SpecException("batch size", run.batchSize() + " is more than the " + data.samples()
                + " training samples");
        }
        int blocks = org.paratrain.train.MemoryEstimate.stepBlocks(data.samples(), run).blocks();
        if (exchange.sum() == ExchangeSpec.Sum.FIXED_HALF
            && blocks > org.paratrain.collective.sum.FixedFormat.HALF_WORD_MAX_BLOCKS) {
            throw new SpecException("sum", "fixed:half takes at most "
                + org.paratrain.collective.sum.FixedFormat.HALF_WORD_MAX_BLOCKS + " blocks a step (16 bits a lane), "
                + "this run has " + blocks + ": use larger blocks (--block-size) or fixed:1");
        }
        int classes = model.classes(data);
        if (!loss.balanced()) {
            loss.objective(classes, null);       // one weight a class, before any rank starts
        }
        return classes;
    }

    /**
     * {@return this spec with another model}
     * @param m the new value
     */
    public TrainSpec withModel(ModelSpec m) {
        return new TrainSpec(m, optimizer, exchange, run, loss);
    }

    /**
     * {@return this spec with another optimizer}
     * @param o the new optimizer
     */
    public TrainSpec withOptimizer(OptimizerSpec o) {
        return new TrainSpec(model, o, exchange, run, loss);
    }

    /**
     * {@return this spec with another exchange}
     * @param e the new value
     */
    public TrainSpec withExchange(ExchangeSpec e) {
        return new TrainSpec(model, optimizer, e, run, loss);
    }

    /**
     * {@return this spec with another loss}
     * @param l the class weights and label smoothing
     */
    public TrainSpec withLoss(LossSpec l) {
        return new TrainSpec(model, optimizer, exchange, run, l);
    }

    /**
     * {@return this spec with another run}
     * @param r the new value
     */
    public TrainSpec withRun(RunSpec r) {
        return new TrainSpec(model, optimizer, exchange, r, loss);
    }

    /**
     * {@return this spec on {@code n} ranks}
     * @param n the node count
     */
    public TrainSpec withNodes(int n) {
        return withRun(run.withNodes(n));
    }

    /**
     * {@return this spec with {@code e} epochs}
     * @param e the new value
     */
    public TrainSpec withEpochs(int e) {
        return withRun(run.withEpochs(e));
    }

    /**
     * {@return this spec with another base learning rate}
     * @param lr the learning rate
     */
    public TrainSpec withLearningRate(double lr) {
        return withOptimizer(optimizer.withLearningRate(lr));
    }

    /**
     * {@return this spec with another update rule, same learning rate and schedule}
     * @param m the new value
     */
    public TrainSpec withMethod(OptimizerSpec.Method m) {
        return withOptimizer(optimizer.withMethod(m));
    }

    /**
     * {@return this spec with mini-batches of {@code size} samples (0: full batch) in an order drawn from {@code seed}}
     * @param size samples per batch, 0 for full batch
     * @param seed the run's seed, which seeds a network's initialisation
     */
    public TrainSpec withBatches(int size, long seed) {
        return withRun(run.withBatches(size, seed));
    }

    /**
     * {@return this spec with blocks of {@code b} samples (0: the default)}
     * @param b samples per block, 0 for the default
     */
    public TrainSpec withBlockSize(int b) {
        return withRun(run.withBlockSize(b));
    }

    /**
     * {@return this spec with block boundaries that move every {@code steps} steps (0: never)}
     * @param steps the window over which ranks measure their speed
     */
    public TrainSpec withRebalance(int steps) {
        return withRun(run.withRebalance(steps));
    }

    /**
     * {@return this spec with another loss reduction}
     * @param r the new value
     */
    public TrainSpec withLossReduction(LossReduction r) {
        return withRun(run.withLossReduction(r));
    }
}
