package org.paratrain.spark;

import java.util.List;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;

/**
 * A paratrain regressor as a Spark ML estimator: linear regression with an intercept (the
 * default) or an MLP with a squared-error head, trained data-parallel as one barrier stage, the
 * same model at any number of tasks; the fitted {@link ParatrainRegressionModel} adds a
 * prediction column.
 *
 * <pre>{@code
 * ParatrainRegressionModel m = new ParatrainRegressor().setEpochs(300).setLearningRate(0.05)
 *     .setNumRanks(2).fit(train);
 * }</pre>
 *
 * @serial exclude
 */
public final class ParatrainRegressor extends ParatrainPredictor<ParatrainRegressor, ParatrainRegressionModel>
    implements DefaultParamsWritable {
    private static final long serialVersionUID = 1L;

    /** A regressor of the defaults, with a fresh uid. */
    public ParatrainRegressor() {
        this(Identifiable.randomUID("paratrainRegressor"));
    }

    /**
     * A stage of the defaults with a given uid (as Spark ML persistence makes one).
     *
     * @param uid this stage's identifier
     */
    public ParatrainRegressor(String uid) {
        super(Uids.pending(uid), List.of("linear", "mlp"), "linear");
    }

    @Override
    boolean isClassifier() {
        return false;
    }

    @Override
    ParatrainRegressionModel fitted(SparkTraining.Fitted f) {
        return new ParatrainRegressionModel(uid(), f.model(), f.outcome().result()).withOutcome(f.outcome());
    }

    @Override
    public ParatrainRegressor copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** {@return a reader of saved (unfitted) regressors} */
    public static MLReader<ParatrainRegressor> read() {
        return new DefaultParamsReader<>();
    }

    /**
     * Loads one saved with {@code write().save(path)}.
     *
     * @param path where a regressor was saved
     * @return it
     */
    public static ParatrainRegressor load(String path) {
        return read().load(path);
    }
}
