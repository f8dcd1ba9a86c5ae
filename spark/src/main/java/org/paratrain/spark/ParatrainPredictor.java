package org.paratrain.spark;

import org.apache.spark.ml.PredictionModel;
import org.apache.spark.ml.Predictor;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.sql.Dataset;

/**
 * What paratrain's two Spark estimators share: the training settings as Spark ML params, and
 * {@link #train} as one barrier stage of {@link #getNumRanks()} tasks, a rank a task.
 *
 * <p>The model is the same bits at any number of ranks: rows keep one order (the Dataset's own,
 * or {@link #setIndexCol its index column}'s), each task holds whole blocks of it, and every sum
 * is exact. Training on Spark with N tasks gives what {@code Training.local} gives on the same
 * rows in that order.
 *
 * @param <L> the estimator
 * @param <M> the model it fits
 *
 * @serial exclude
 */
public abstract class ParatrainPredictor<L extends ParatrainPredictor<L, M>, M extends PredictionModel<Vector, M>>
    extends Predictor<Vector, L, M> {
    private static final long serialVersionUID = 1L;

    private final String uid;
    private final Param<String> model;
    private final Param<String> layers;
    private final Param<String> activation;
    private final Param<String> optimizer;
    private final DoubleParam learningRate;
    private final IntParam epochs;
    private final IntParam batchSize;
    private final LongParam seed;
    private final IntParam numRanks;
    private final BooleanParam float32;
    private final BooleanParam standardize;
    private final Param<String> indexCol;
    private final Param<String> weightCol;
    private final Param<String> checkpointDir;
    private final IntParam checkpointInterval;
    private final IntParam timeoutSeconds;

    /**
     * @param uid       this stage's identifier
     * @param models    the model names this estimator accepts, for the param's check and doc
     * @param byDefault the default model
     */
    protected ParatrainPredictor(String uid, java.util.List<String> models, String byDefault) {
        this.uid = uid;
        Uids.done();
        model = new Param<>(this, "model", "the model: one of " + models,
            ParamValidators.inArray(models.toArray(new String[0])));
        layers = new Param<>(this, "layers", "an MLP's hidden-layer widths, input "
            + "side first, each optionally followed by its dropout, e.g. \"64,dropout:0.5,32\"");
        activation = new Param<>(this, "activation", "an MLP's hidden-layer nonlinearity: relu, tanh or sigmoid",
            ParamValidators.inArray(new String[] {"relu", "tanh", "sigmoid"}));
        optimizer = new Param<>(this, "optimizer", "adam, or gd (plain gradient descent)",
            ParamValidators.inArray(new String[] {"adam", "gd"}));
        learningRate = new DoubleParam(this, "learningRate", "the step size (> 0)", ParamValidators.gt(0));
        epochs = new IntParam(this, "epochs", "passes over the data (>= 1)", ParamValidators.gtEq(1));
        batchSize = new IntParam(this, "batchSize", "samples a step; 0 for full-batch gradient descent",
            ParamValidators.gtEq(0));
        seed = new LongParam(this, "seed", "seed of the initial weights and the batch order");
        numRanks = new IntParam(this, "numRanks", "ranks (barrier tasks, one a slot); 0 for the cluster's default "
            + "parallelism", ParamValidators.gtEq(0));
        float32 = new BooleanParam(this, "float32", "an MLP's passes in float32 (sums stay exact)");
        standardize = new BooleanParam(this, "standardize", "scale each feature to mean 0 and standard deviation 1 "
            + "(population) of the training rows, fitted over the ranks in turn (the same bits at any number of ranks); "
            + "the model scales new rows itself");
        indexCol = new Param<>(this, "indexCol", "a column of unique sortable values giving the sample order; "
            + "empty for the Dataset's own order");
        weightCol = new Param<>(this, "weightCol", "a column of sample weights (finite, at least 0): a row's loss "
            + "and gradient count that many times; empty for all 1");
        checkpointDir = new Param<>(this, "checkpointDir", "a directory every executor reaches (a shared mount) "
            + "for checkpoints, resumed from when Spark retries the stage; empty for none");
        checkpointInterval = new IntParam(this, "checkpointInterval", "epochs between checkpoints (>= 1)",
            ParamValidators.gtEq(1));
        timeoutSeconds = new IntParam(this, "timeoutSeconds", "the longest a rank waits for another (>= 1)",
            ParamValidators.gtEq(1));
        setDefault(model, byDefault);
        setDefault(layers, "64");
        setDefault(activation, "relu");
        setDefault(optimizer, "adam");
        setDefault(learningRate, 1e-3);
        setDefault(epochs, 100);
        setDefault(batchSize, 0);
        setDefault(seed, 42L);
        setDefault(numRanks, 0);
        setDefault(float32, false);
        setDefault(standardize, false);
        setDefault(indexCol, "");
        setDefault(weightCol, "");
        setDefault(checkpointDir, "");
        setDefault(checkpointInterval, 10);
        setDefault(timeoutSeconds, 300);
    }

    @Override
    public String uid() {
        return Uids.or(uid);
    }

    /** {@return the model param} */
    public Param<String> model() {
        return model;
    }

    /** {@return the hidden layers param} */
    public Param<String> layers() {
        return layers;
    }

    /** {@return the activation param} */
    public Param<String> activation() {
        return activation;
    }

    /** {@return the optimizer param} */
    public Param<String> optimizer() {
        return optimizer;
    }

    /** {@return the learning rate param} */
    public DoubleParam learningRate() {
        return learningRate;
    }

    /** {@return the epochs param} */
    public IntParam epochs() {
        return epochs;
    }

    /** {@return the batch size param} */
    public IntParam batchSize() {
        return batchSize;
    }

    /** {@return the seed param} */
    public LongParam seed() {
        return seed;
    }

    /** {@return the ranks param} */
    public IntParam numRanks() {
        return numRanks;
    }

    /** {@return the standardize param} */
    public BooleanParam standardize() {
        return standardize;
    }

    /** {@return the float32 param} */
    public BooleanParam float32() {
        return float32;
    }

    /** {@return the index column param} */
    public Param<String> indexCol() {
        return indexCol;
    }

    /** {@return the sample weight column param} */
    public Param<String> weightCol() {
        return weightCol;
    }

    /** {@return the checkpoint directory param} */
    public Param<String> checkpointDir() {
        return checkpointDir;
    }

    /** {@return the checkpoint interval param} */
    public IntParam checkpointInterval() {
        return checkpointInterval;
    }

    /** {@return the timeout param} */
    public IntParam timeoutSeconds() {
        return timeoutSeconds;
    }

    /** {@return the model's name} */
    public String getModel() {
        return $(model);
    }

    /** {@return the ranks asked for, 0 for the cluster's default parallelism} */
    public int getNumRanks() {
        return (Integer) $(numRanks);
    }

    @SuppressWarnings("unchecked")
    private L with(Param<?> p, Object value) {
        set(p.name(), value);
        return (L) this;
    }

    /**
     * Sets {@code model}.
     *
     * @param v the model's name
     * @return this
     */
    public L setModel(String v) {
        return with(model, v);
    }

    /**
     * Sets {@code layers}.
     *
     * @param v hidden-layer widths, e.g. "64,32"
     * @return this
     */
    public L setLayers(String v) {
        return with(layers, v);
    }

    /**
     * Sets {@code activation}.
     *
     * @param v relu, tanh or sigmoid
     * @return this
     */
    public L setActivation(String v) {
        return with(activation, v);
    }

    /**
     * Sets {@code optimizer}.
     *
     * @param v adam or gd
     * @return this
     */
    public L setOptimizer(String v) {
        return with(optimizer, v);
    }

    /**
     * Sets {@code learningRate}.
     *
     * @param v the step size
     * @return this
     */
    public L setLearningRate(double v) {
        return with(learningRate, v);
    }

    /**
     * Sets {@code epochs}.
     *
     * @param v passes over the data
     * @return this
     */
    public L setEpochs(int v) {
        return with(epochs, v);
    }

    /**
     * Sets {@code batchSize}.
     *
     * @param v samples a step, 0 for full batch
     * @return this
     */
    public L setBatchSize(int v) {
        return with(batchSize, v);
    }

    /**
     * Sets {@code seed}.
     *
     * @param v the seed
     * @return this
     */
    public L setSeed(long v) {
        return with(seed, v);
    }

    /**
     * Sets {@code numRanks}.
     *
     * @param v ranks (barrier tasks), 0 for the default parallelism
     * @return this
     */
    public L setNumRanks(int v) {
        return with(numRanks, v);
    }

    /**
     * Sets {@code float32}.
     *
     * @param v an MLP in float32
     * @return this
     */
    public L setFloat32(boolean v) {
        return with(float32, v);
    }

    /**
     * Sets {@code standardize}.
     *
     * @param v scale the features to mean 0, standard deviation 1
     * @return this
     */
    public L setStandardize(boolean v) {
        return with(standardize, v);
    }

    /**
     * Sets {@code indexCol}.
     *
     * @param v the column giving the sample order
     * @return this
     */
    public L setIndexCol(String v) {
        return with(indexCol, v);
    }

    /**
     * Sets {@code weightCol}, as Spark ML's estimators name it.
     *
     * @param v the column of each row's weight; empty for all 1
     * @return this
     */
    public L setWeightCol(String v) {
        return with(weightCol, v);
    }

    /**
     * Sets {@code checkpointDir}.
     *
     * @param v a shared directory for checkpoints
     * @return this
     */
    public L setCheckpointDir(String v) {
        return with(checkpointDir, v);
    }

    /**
     * Sets {@code checkpointInterval}.
     *
     * @param v epochs between checkpoints
     * @return this
     */
    public L setCheckpointInterval(int v) {
        return with(checkpointInterval, v);
    }

    /**
     * Sets {@code timeoutSeconds}.
     *
     * @param v the longest wait of a rank, in seconds
     * @return this
     */
    public L setTimeoutSeconds(int v) {
        return with(timeoutSeconds, v);
    }

    /** The settings, read once on the driver for {@link SparkTraining}. */
    SparkTraining.Settings settings() {
        return new SparkTraining.Settings($(featuresCol()), $(labelCol()), $(indexCol), $(model), $(layers),
            $(activation), $(optimizer), (Double) $(learningRate), (Integer) $(epochs), (Integer) $(batchSize),
            (Long) $(seed), getNumRanks(), (Boolean) $(float32), $(checkpointDir), (Integer) $(checkpointInterval),
            (Integer) $(timeoutSeconds), (Boolean) $(standardize), "", 0, -1, classWeightSetting(), labelSmoothingSetting(),
            $(weightCol));
    }

    /** {@return the class weights the fit uses: none here, a classifier's param} */
    String classWeightSetting() {
        return "";
    }

    /** {@return the label smoothing the fit uses: none here, a classifier's param} */
    double labelSmoothingSetting() {
        return 0.0;
    }

    /**
     * {@return the library's spec these params train with, for {@code Training.local} on the
     * same rows: the same bits as a fit}
     * @param classes the classes of the labels (0 for a regressor)
     * @param ranks   ranks
     * @throws IllegalArgumentException naming a param that does not fit
     */
    public org.paratrain.train.spec.TrainSpec toSpec(int classes, int ranks) {
        return SparkTraining.spec(settings(), isClassifier(), classes).withNodes(ranks);
    }

    /**
     * Trains on {@code dataset} as one barrier stage.
     *
     * @param dataset rows with the features (a vector) and label columns
     * @return the fitted model, holding rank 0's parameters
     */
    @Override
    public M train(Dataset<?> dataset) {
        SparkTraining.Fitted f = SparkTraining.fit(dataset, settings(), isClassifier());
        return fitted(f);
    }

    /** {@return whether labels are classes} */
    abstract boolean isClassifier();

    /** {@return the Spark model around what training produced} */
    abstract M fitted(SparkTraining.Fitted f);
}
