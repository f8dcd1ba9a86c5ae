package org.paratrain.spark;

import java.util.List;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;

/**
 * A paratrain classifier as a Spark ML estimator: logistic regression (labels 0 and 1), softmax
 * regression or an MLP, trained data-parallel as one barrier stage, the same model at any
 * number of tasks. Labels are class indices 0..K-1 (as {@code StringIndexer} makes); the fitted
 * {@link ParatrainClassificationModel} adds prediction, probability and raw prediction columns
 * as MLlib's classifiers do.
 *
 * <pre>{@code
 * ParatrainClassificationModel m = new ParatrainClassifier().setModel("mlp").setLayers("32")
 *     .setEpochs(20).setBatchSize(64).setNumRanks(2).fit(train);
 * m.transform(test).select("prediction", "probability").show();
 * }</pre>
 *
 * <p>model: {@code auto} (the default: logistic for two classes, softmax for more),
 * {@code logistic}, {@code softmax} or {@code mlp}. classWeight ({@code balanced}, or one weight a
 * class separated by commas) and labelSmoothing (in [0, 1)) shape the cross-entropy as
 * {@code --class-weight} and {@code --label-smoothing} do on the command line: the same bits at
 * any number of tasks, balanced weights counted over every task's rows.
 *
 * @serial exclude
 */
public final class ParatrainClassifier extends ParatrainPredictor<ParatrainClassifier, ParatrainClassificationModel>
    implements DefaultParamsWritable {
    private static final long serialVersionUID = 1L;

    private final Param<String> probabilityCol = new Param<>(this, "probabilityCol", "column of class probabilities");
    private final Param<String> rawPredictionCol = new Param<>(this, "rawPredictionCol",
        "column of raw predictions (here the class probabilities too)");
    private final Param<String> classWeight = new Param<>(this, "classWeight", "balanced, or a weight a class "
        + "separated by commas (each > 0), weighing each sample's cross-entropy by its class; empty for none",
        new ClassWeightCheck());
    private final DoubleParam labelSmoothing = new DoubleParam(this, "labelSmoothing", "the share of each target "
        + "spread over all classes, in [0, 1)", ParamValidators.inRange(0, 1, true, false));

    /** A classifier of the defaults, with a fresh uid. */
    public ParatrainClassifier() {
        this(Identifiable.randomUID("paratrainClassifier"));
    }

    /**
     * A stage of the defaults with a given uid (as Spark ML persistence makes one).
     *
     * @param uid this stage's identifier
     */
    public ParatrainClassifier(String uid) {
        super(Uids.pending(uid), List.of("auto", "logistic", "softmax", "mlp"), "auto");
        setDefault(probabilityCol, "probability");
        setDefault(rawPredictionCol, "rawPrediction");
        setDefault(classWeight, "");
        setDefault(labelSmoothing, 0.0);
    }

    /** Whether a value reads as class weights (the library's own parser decides): serializable, as the stage is. */
    private static final class ClassWeightCheck extends scala.runtime.AbstractFunction1<String, Object>
        implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Object apply(String v) {
            try {
                org.paratrain.train.spec.LossSpec.parse(v, 0.0);
                return true;
            } catch (org.paratrain.train.spec.SpecException e) {
                return false;
            }
        }
    }

    /** {@return the class weights param} */
    public Param<String> classWeight() {
        return classWeight;
    }

    /** {@return the label smoothing param} */
    public DoubleParam labelSmoothing() {
        return labelSmoothing;
    }

    /**
     * Sets {@code classWeight}.
     *
     * @param v {@code balanced} (n / (K n_c), as scikit-learn's), a weight a class in class order
     *          separated by commas, or empty for none
     * @return this
     */
    public ParatrainClassifier setClassWeight(String v) {
        set(classWeight, v);
        return this;
    }

    /**
     * Sets {@code labelSmoothing}.
     *
     * @param v the share of each target spread evenly over the classes, in [0, 1)
     * @return this
     */
    public ParatrainClassifier setLabelSmoothing(double v) {
        set(labelSmoothing, v);
        return this;
    }

    @Override
    String classWeightSetting() {
        return $(classWeight);
    }

    @Override
    double labelSmoothingSetting() {
        return (Double) $(labelSmoothing);
    }

    /** {@return the probability column param} */
    public Param<String> probabilityCol() {
        return probabilityCol;
    }

    /** {@return the raw prediction column param} */
    public Param<String> rawPredictionCol() {
        return rawPredictionCol;
    }

    /**
     * Sets {@code probabilityCol}.
     *
     * @param v the probability column's name
     * @return this
     */
    public ParatrainClassifier setProbabilityCol(String v) {
        set(probabilityCol, v);
        return this;
    }

    /**
     * Sets {@code rawPredictionCol}.
     *
     * @param v the raw prediction column's name
     * @return this
     */
    public ParatrainClassifier setRawPredictionCol(String v) {
        set(rawPredictionCol, v);
        return this;
    }

    @Override
    boolean isClassifier() {
        return true;
    }

    @Override
    ParatrainClassificationModel fitted(SparkTraining.Fitted f) {
        return new ParatrainClassificationModel(uid(), f.model(), f.outcome().result()).withOutcome(f.outcome());
    }

    @Override
    public ParatrainClassifier copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** {@return a reader of saved (unfitted) classifiers} */
    public static MLReader<ParatrainClassifier> read() {
        return new DefaultParamsReader<>();
    }

    /**
     * Loads one saved with {@code write().save(path)}.
     *
     * @param path where a classifier was saved
     * @return it
     */
    public static ParatrainClassifier load(String path) {
        return read().load(path);
    }
}
