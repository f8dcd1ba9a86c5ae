package org.paratrain.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.paratrain.data.Dataset;

/**
 * How well parameters fit a data set: MSE, RMSE and R2 for regression; for classifiers
 * accuracy, log-loss (mean cross-entropy), precision, recall and F1 (per class and their
 * macro means), ROC-AUC for two classes and the confusion matrix ({@link ClassificationMetrics}).
 */
public final class Metrics {
    private Metrics() { }

    /**
     * {@return the metrics by name, as {@link #evaluate(Model, double[], Dataset, List)}, classes named by index}
     * @param model  the model, of the kind the parameters were trained for
     * @param params the trained parameters
     * @param data   labelled samples (targets for a regression, class indices for a classifier)
     */
    public static Map<String, Object> evaluate(Model model, double[] params, Dataset data) {
        return evaluate(model, params, data, null);
    }

    /**
     * The metrics of {@code model} at {@code params} on {@code data}, by name, in a stable
     * order: {@code mse}, {@code rmse}, {@code r2} for a regression; for a classifier
     * {@code accuracy}, {@code log_loss}, the macro means, {@code roc_auc} (two classes, both
     * present), {@code per_class}, {@code classes} and {@code confusion_matrix}.
     *
     * @param model  the model, of the kind the parameters were trained for
     * @param params the trained parameters
     * @param weighted labelled samples (targets for a regression, class indices for a classifier); their
     *               sample weights, if any, are not applied: each sample counts once
     * @param names  the classes' names in index order, or null to name them by index
     * @return values (numbers, or nested maps and lists for the per-class table and the matrix),
     *     ready to print or write as JSON
     */
    public static Map<String, Object> evaluate(Model model, double[] params, Dataset weighted, List<String> names) {
        Dataset data = weighted.withWeights(null);      // every sample counts once here, as the training's weights say nothing of the test
        int n = data.samples();
        double loss = model.loss(data, 0, n, params);
        if (model instanceof Classifier c && c.classifies()) {
            return classification(c, params, data, loss, names);
        }
        Map<String, Object> out = new LinkedHashMap<>();
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

    private static Map<String, Object> classification(Classifier c, double[] params, Dataset data, double loss,
                                                      List<String> names) {
        int n = data.samples();
        int k = c.classes();
        int[] truth = new int[n];
        int[] predicted = new int[n];
        double[] positive = new double[n];
        double[] p = k == 2 ? new double[2 * n] : null;
        c.predict(data, 0, n, params, predicted, p);
        for (int i = 0; i < n; i++) {
            truth[i] = (int) data.y()[i];
            if (p != null) {
                positive[i] = p[2 * i + 1];
            }
        }
        List<String> classNames = names != null ? names : indices(k);
        long[][] cm = ClassificationMetrics.confusion(truth, predicted, k);
        Map<String, Object> summary = ClassificationMetrics.summary(cm, classNames);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("accuracy", summary.remove("accuracy"));
        out.put("log_loss", loss / n);
        Object perClass = summary.remove("per_class");
        out.putAll(summary);
        double auc = k == 2 ? ClassificationMetrics.rocAuc(truth, positive) : Double.NaN;
        if (!Double.isNaN(auc)) {
            out.put("roc_auc", auc);   // two classes, both present: else undefined, and left out
        }
        out.put("per_class", perClass);
        out.put("classes", classNames);
        out.put("confusion_matrix", cm);
        return out;
    }

    private static List<String> indices(int k) {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < k; c++) {
            out.add(Integer.toString(c));
        }
        return out;
    }
}
