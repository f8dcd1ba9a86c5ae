package org.paratrain.spark;

import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.regression.RegressionModel;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.paratrain.TrainedModel;
import org.paratrain.train.TrainingResult;

/**
 * A fitted {@link ParatrainRegressor}: {@code transform} adds the prediction column. Saved with
 * {@code write().save(path)}, loaded with {@link #load}; the model file inside is paratrain's
 * model.json ({@link #trainedModel()}).
 *
 * @serial exclude
 */
public final class ParatrainRegressionModel extends RegressionModel<Vector, ParatrainRegressionModel>
    implements MLWritable {
    private static final long serialVersionUID = 1L;

    private final String uid;
    private final FittedModel fitted;
    private final transient TrainingResult result;
    private transient RankTask.Outcome outcome;

    ParatrainRegressionModel(String uid, TrainedModel model, TrainingResult result) {
        this(Uids.pending(uid), model, result, 0);
    }

    private ParatrainRegressionModel(String uid, TrainedModel model, TrainingResult result, int unused) {
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
    ParatrainRegressionModel withOutcome(RankTask.Outcome o) {
        outcome = o;
        return this;
    }

    RankTask.Outcome outcome() {
        return outcome;
    }

    /** {@return rank 0's result of the fit (losses, timings); null for a loaded model} */
    public TrainingResult trainingResult() {
        return result;
    }

    @Override
    public int numFeatures() {
        return fitted.model().features();
    }

    @Override
    public double predict(Vector features) {
        return fitted.model().predict(fitted.row(features));
    }

    @Override
    public ParatrainRegressionModel copy(ParamMap extra) {
        return copyValues(new ParatrainRegressionModel(uid, fitted.model(), result), extra).setParent(parent());
    }

    @Override
    public MLWriter write() {
        return ModelIO.writer(this, fitted.model());
    }

    /** {@return a reader of saved models} */
    public static MLReader<ParatrainRegressionModel> read() {
        return ModelIO.reader(ParatrainRegressionModel.class, (uid, m) -> new ParatrainRegressionModel(uid, m, null));
    }

    /**
     * Loads one saved with {@code write().save(path)}.
     *
     * @param path where a model was saved
     * @return it
     */
    public static ParatrainRegressionModel load(String path) {
        return read().load(path);
    }
}
