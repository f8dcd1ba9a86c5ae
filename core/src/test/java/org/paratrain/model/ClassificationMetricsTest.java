package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Precision, recall, F1, ROC-AUC and the confusion matrix against scikit-learn's numbers (fixtures/metrics.json). */
class ClassificationMetricsTest {

    static Stream<JsonNode> cases() throws IOException {
        try (InputStream in = ClassificationMetricsTest.class.getResourceAsStream("/fixtures/metrics.json")) {
            List<JsonNode> out = new ArrayList<>();
            new ObjectMapper().readTree(in).get("cases").forEach(out::add);
            return out.stream();
        }
    }

    private static int[] ints(JsonNode a) {
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("cases")
    @SuppressWarnings("unchecked")
    void equalsScikitLearn(JsonNode c) {
        int k = c.get("classes").asInt();
        int[] y = ints(c.get("y"));
        long[][] cm = ClassificationMetrics.confusion(y, ints(c.get("pred")), k);
        for (int t = 0; t < k; t++) {
            for (int p = 0; p < k; p++) {
                assertEquals(c.get("confusion").get(t).get(p).asLong(), cm[t][p], "confusion[" + t + "][" + p + "]");
            }
        }
        List<String> names = new ArrayList<>();
        for (int t = 0; t < k; t++) {
            names.add("c" + t);
        }
        Map<String, Object> m = ClassificationMetrics.summary(cm, names);
        assertEquals(c.get("accuracy").asDouble(), (double) m.get("accuracy"), 0.0);
        for (String avg : List.of("macro_precision", "macro_recall", "macro_f1")) {
            assertEquals(c.get(avg).asDouble(), (double) m.get(avg), 1e-15, avg);
        }
        List<Map<String, Object>> rows = (List<Map<String, Object>>) m.get("per_class");
        for (int t = 0; t < k; t++) {
            assertEquals(c.get("precision").get(t).asDouble(), (double) rows.get(t).get("precision"), 0.0);
            assertEquals(c.get("recall").get(t).asDouble(), (double) rows.get(t).get("recall"), 0.0);
            assertEquals(c.get("f1").get(t).asDouble(), (double) rows.get(t).get("f1"), 0.0);
            assertEquals(c.get("support").get(t).asLong(), (long) rows.get(t).get("support"));
        }
        if (k == 2) {
            double[] score = doubles(c.get("score"));
            assertEquals(c.get("roc_auc").asDouble(), ClassificationMetrics.rocAuc(y, score), 1e-15);
        }
    }

    @Test
    void rocAucCountsTiesAsHalfAndIsUndefinedForOneClass() {
        assertEquals(0.5, ClassificationMetrics.rocAuc(new int[] {0, 1, 0, 1}, new double[] {0.3, 0.3, 0.7, 0.7}));
        assertEquals(1.0, ClassificationMetrics.rocAuc(new int[] {0, 0, 1}, new double[] {0.1, 0.2, 0.9}));
        assertEquals(0.875, ClassificationMetrics.rocAuc(new int[] {0, 1, 0, 1}, new double[] {0.1, 0.5, 0.5, 0.9}));
        assertTrue(Double.isNaN(ClassificationMetrics.rocAuc(new int[] {1, 1}, new double[] {0.1, 0.2})));
    }

    private static double[] doubles(JsonNode a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asDouble();
        }
        return v;
    }
}
