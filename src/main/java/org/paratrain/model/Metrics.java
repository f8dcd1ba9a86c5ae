package org.paratrain.model;

import java.util.LinkedHashMap;
import java.util.Map;
import org.paratrain.data.Dataset;

/**
 * How well parameters fit a data set: MSE, RMSE and R2 for regression; accuracy, log-loss
 * (mean cross-entropy) and the confusion matrix for classifiers.
 */
public final class Metrics {
    private Metrics() { }

    /** The metrics of {@code model} at {@code params} on {@code data}, by name, in a stable order. */
    public static Map<String, Object> evaluate(Model model, double[] params, Dataset data) {
        Map<String, Object> out = new LinkedHashMap<>();
        int n = data.samples();
        double loss = model.loss(data, 0, n, params);
        if (model instanceof Classifier c && c.classifies()) {
            out.put("accuracy", c.accuracy(data, params));
            out.put("log_loss", loss / n);
            out.put("confusion_matrix", confusion(c, params, data));
            return out;
        }
        double mean = 0;
        for (double v : data.y()) {
            mean += v;
        }
        mean /= n;
        double total = 0;
        for (double v : data.y()) {
            total += (v - mean) * (v - mean);
        }
        double mse = loss / n;
        out.put("mse", mse);
        out.put("rmse", Math.sqrt(mse));
        out.put("r2", total > 0 ? 1 - loss / total : Double.NaN);
        return out;
    }

    /** counts[true class][predicted class]. */
    static long[][] confusion(Classifier c, double[] params, Dataset data) {
        int k = 2;
        for (double v : data.y()) {
            k = Math.max(k, (int) v + 1);
        }
        long[][] m = new long[k][k];
        for (int i = 0; i < data.samples(); i++) {
            int p = c.predict(data, i, params);
            m[(int) data.y()[i]][Math.min(p, k - 1)]++;
        }
        return m;
    }
}
