package org.paratrain.spark;

import java.io.Serializable;
import org.apache.spark.ml.linalg.Vector;
import org.paratrain.TrainedModel;

/**
 * A trained model as a Spark model carries it to executors: the model file's bytes, which
 * serialize, and the {@link TrainedModel} made from them once a JVM.
 */
final class FittedModel implements Serializable {
    private static final long serialVersionUID = 1L;
    private final byte[] json;
    private transient volatile TrainedModel model;

    FittedModel(TrainedModel model) {
        this.json = model.toJson("paratrain-spark");
        this.model = model;
    }

    TrainedModel model() {
        TrainedModel m = model;
        if (m == null) {
            m = TrainedModel.fromJson(json, "the model sent to this executor");
            model = m;
        }
        return m;
    }

    double[] row(Vector features) {
        if (features.size() != model().features()) {
            throw new IllegalArgumentException("features: the model takes " + model().features() + " values a row, got "
                + features.size());
        }
        return features.toArray();
    }
}
