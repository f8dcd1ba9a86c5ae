package org.paratrain.spark;

import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.paratrain.TrainedModel;
import org.paratrain.train.TrainingResult;

/**
 * A fitted {@link ParatrainClassifier}: {@code transform} adds the predicted class, the class
 * probabilities and a raw prediction (the probabilities again: paratrain's models expose no
 * margins) as MLlib's classifiers do. Saved with {@code write().save(path)}, loaded with
 * {@link #load}; the model file inside is paratrain's model.json ({@link #trainedModel()}).
 *
 * @serial exclude
 */
public final class ParatrainClassificationModel
    extends ProbabilisticClassificationModel<Vector, ParatrainClassificationModel> implements MLWritable {
    private static final long serialVersionUID = 1L;

    private final String uid;
    private final FittedModel fitted;
    private final transient TrainingResult result;
    private transient RankTask.Outcome outcome;

    ParatrainClassificationModel(String uid, TrainedModel model, TrainingResult result) {
        this(Uids.pending(uid), model, result, 0);
    }

    private ParatrainClassificationModel(String uid, TrainedModel model, TrainingResult result, int unused) {
        this.uid = uid;
        Uids.done();
        this.fitted = new FittedModel(model);
        this.result = result;
    }

    @Override
    public String uid() {
        return Uids.or(uid);
    }

    /** {@return the trained model: predict, save as model.json, export to ONNX or safetensors} */
    public TrainedModel trainedModel() {
        return fitted.model();
    }

    /** This model with how its fit went (the stage attempt, the epoch resumed at), for the tests. */
    ParatrainClassificationModel withOutcome(RankTask.Outcome o) {
        outcome = o;
        return this;
    }

    RankTask.Outcome outcome() {
        return outcome;
    }

    /** {@return rank 0's result of the fit (losses, timings, accuracy); null for a loaded model} */
    public TrainingResult trainingResult() {
        return result;
    }

    @Override
    public int numClasses() {
        return fitted.model().classNames().size();
    }

    @Override
    public int numFeatures() {
        return fitted.model().features();
    }

    @Override
    public Vector predictRaw(Vector features) {
        return Vectors.dense(fitted.model().probabilities(fitted.row(features)));
    }

    /** Java sees two inherited versions of this Scala method; this is the probabilistic one's. */
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public scala.Tuple3 findSummaryModel() {
        return new scala.Tuple3<>(this, $(probabilityCol()), $(predictionCol()));
    }

    @Override
    public Vector raw2probabilityInPlace(Vector raw) {
        return raw;
    }

    @Override
    public ParatrainClassificationModel copy(ParamMap extra) {
        return copyValues(new ParatrainClassificationModel(uid, fitted.model(), result), extra).setParent(parent());
    }

    @Override
    public MLWriter write() {
        return ModelIO.writer(this, fitted.model());
    }

    /** {@return a reader of saved models} */
    public static MLReader<ParatrainClassificationModel> read() {
        return ModelIO.reader(ParatrainClassificationModel.class, (uid, m) -> new ParatrainClassificationModel(uid, m,
            null));
    }

    /**
     * Loads one saved with {@code write().save(path)}.
     *
     * @param path where a model was saved
     * @return it
     */
    public static ParatrainClassificationModel load(String path) {
        return read().load(path);
    }
}
