package org.paratrain.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Accuracy, precision, recall, F1, ROC-AUC and the confusion matrix of predicted classes,
 * defined as scikit-learn defines them, so that its numbers can check these:
 *
 * <ul>
 *   <li>precision of class k = true k predicted k / predicted k, and 0 when nothing was
 *       predicted k (scikit-learn's {@code zero_division} default); recall likewise over
 *       true k; F1 = {@code 2 p r / (p + r)}, 0 when both are 0.</li>
 *   <li>Macro averages are plain means over the classes that occur in the labels or the
 *       predictions (scikit-learn's default label set), not over classes seen in neither.</li>
 *   <li>ROC-AUC (two classes, scored by the probability of class 1) is the Mann-Whitney
 *       statistic: the share of (positive, negative) pairs ordered right, a tie counting one
 *       half. It is counted in whole numbers and divided once, so it is exact, and ties get
 *       the same half credit as scikit-learn's trapezoids through tied thresholds.</li>
 * </ul>
 */
public final class ClassificationMetrics {
    private ClassificationMetrics() { }

    /**
     * {@return the confusion matrix: {@code counts[true class][predicted class]}}
     * @param truth     each sample's class, 0..classes-1
     * @param predicted each sample's predicted class, 0..classes-1
     * @param classes   K, the matrix's size
     */
    public static long[][] confusion(int[] truth, int[] predicted, int classes) {
        long[][] m = new long[classes][classes];
        for (int i = 0; i < truth.length; i++) {
            m[truth[i]][predicted[i]]++;
        }
        return m;
    }

    /**
     * The metrics by name, in a stable order: accuracy, macro precision, recall and F1, then
     * one entry a class ({@code per_class}: precision, recall, f1, support).
     *
     * @param cm    a confusion matrix from {@link #confusion}
     * @param names the classes' names in index order, one per row of {@code cm}
     * @return the metrics, ready to print or write as JSON
     */
    public static Map<String, Object> summary(long[][] cm, List<String> names) {
        int k = cm.length;
        long n = 0;
        long right = 0;
        long[] support = new long[k];
        long[] predicted = new long[k];
        for (int c = 0; c < k; c++) {
            right += cm[c][c];
            for (int p = 0; p < k; p++) {
                n += cm[c][p];
                support[c] += cm[c][p];
                predicted[p] += cm[c][p];
            }
        }
        List<Map<String, Object>> perClass = new ArrayList<>();
        double[] sums = new double[3];
        int present = 0;
        for (int c = 0; c < k; c++) {
            Map<String, Object> row = row(names.get(c), cm[c][c], predicted[c], support[c]);
            perClass.add(row);
            if (support[c] > 0 || predicted[c] > 0) {
                present++;
                sums[0] += (double) row.get("precision");
                sums[1] += (double) row.get("recall");
                sums[2] += (double) row.get("f1");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("accuracy", n == 0 ? Double.NaN : (double) right / n);
        out.put("macro_precision", sums[0] / present);
        out.put("macro_recall", sums[1] / present);
        out.put("macro_f1", sums[2] / present);
        out.put("per_class", perClass);
        return out;
    }

    /** One class's precision, recall and F1 from its true positives and its predicted and true counts. */
    private static Map<String, Object> row(String name, long truePositives, long predicted, long support) {
        double precision = predicted == 0 ? 0.0 : (double) truePositives / predicted;
        double recall = support == 0 ? 0.0 : (double) truePositives / support;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("class", name);
        row.put("precision", precision);
        row.put("recall", recall);
        row.put("f1", precision + recall == 0 ? 0.0 : 2 * precision * recall / (precision + recall));
        row.put("support", support);
        return row;
    }

    /**
     * The area under the ROC curve of {@code score} (higher: more likely class 1) against the
     * 0/1 labels {@code truth}; NaN when one class is absent, where the area is undefined.
     *
     * @param truth each sample's label, 0 or 1
     * @param score each sample's score for class 1 (e.g. its probability)
     * @return the area, in [0, 1], exact
     */
    public static double rocAuc(int[] truth, double[] score) {
        int n = truth.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(score[a], score[b]));
        long negativesBelow = 0;
        long twiceRight = 0;   // 2 x (pairs ordered right) + (tied pairs): whole numbers, so exact
        long positives = 0;
        for (int start = 0; start < n; ) {
            int end = start;
            long pos = 0;
            long neg = 0;
            while (end < n && Double.compare(score[order[end]], score[order[start]]) == 0) {
                if (truth[order[end]] == 1) {
                    pos++;
                } else {
                    neg++;
                }
                end++;
            }
            twiceRight += 2 * pos * negativesBelow + pos * neg;
            negativesBelow += neg;
            positives += pos;
            start = end;
        }
        long negatives = n - positives;
        if (positives == 0 || negatives == 0) {
            return Double.NaN;
        }
        return twiceRight / (2.0 * positives * negatives);
    }
}
