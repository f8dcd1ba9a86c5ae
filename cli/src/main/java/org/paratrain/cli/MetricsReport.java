package org.paratrain.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.AtomicFiles;

/** What {@code evaluate} prints and writes: the metrics, a table a class, the confusion matrix with class names. */
final class MetricsReport {
    private MetricsReport() { }

    /** The scalar metrics on one line: {@code accuracy 98.00%, log_loss 0.0612, ...}. */
    static String line(Map<String, Object> metrics) {
        StringBuilder sb = new StringBuilder();
        metrics.forEach((k, v) -> {
            if (v instanceof Double d) {
                String value = k.equals("accuracy") ? Formats.accuracy(d) : String.format(Locale.ROOT, "%.4f", d);
                sb.append(sb.isEmpty() ? "" : ", ").append(k).append(' ').append(value);
            }
        });
        return sb.toString();
    }

    /** Prints the metrics; for a classifier also precision, recall and F1 a class, and the confusion matrix. */
    @SuppressWarnings("unchecked")
    static void print(PrintWriter out, Map<String, Object> metrics) {
        out.println("  " + line(metrics));
        if (!(metrics.get("per_class") instanceof List<?> rows) || !(metrics.get("classes") instanceof List<?> names)) {
            return;
        }
        int w = Math.max(5, names.stream().mapToInt(n -> n.toString().length()).max().orElse(5));
        out.printf(Locale.ROOT, "  %-" + w + "s  %9s  %9s  %9s  %7s%n", "class", "precision", "recall", "f1", "support");
        for (Object r : rows) {
            Map<String, Object> row = (Map<String, Object>) r;
            out.printf(Locale.ROOT, "  %-" + w + "s  %9.4f  %9.4f  %9.4f  %7d%n", row.get("class"), row.get("precision"),
                row.get("recall"), row.get("f1"), row.get("support"));
        }
        long[][] cm = (long[][]) metrics.get("confusion_matrix");
        out.println("  confusion matrix (rows: true class, columns: predicted class):");
        int cw = Math.max(6, w);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-" + w + "s", ""));
        for (Object n : names) {
            head.append(String.format(Locale.ROOT, "  %" + cw + "s", n));
        }
        out.println(head);
        for (int c = 0; c < cm.length; c++) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "  %-" + w + "s", names.get(c)));
            for (long v : cm[c]) {
                sb.append(String.format(Locale.ROOT, "  %" + cw + "d", v));
            }
            out.println(sb);
        }
    }

    /** Writes the metrics as JSON, atomically, with what was evaluated on what. */
    static void write(Path file, Path modelFile, Path data, String model, int samples, Map<String, Object> metrics) {
        ObjectNode o = json(modelFile, data, model, samples, metrics);
        AtomicFiles.writeBytes(file, s -> RunWriter.json().writeValue(s, o));
    }

    /** Prints the metrics as JSON (for {@code --out -}). */
    static void print(java.io.PrintWriter out, Path modelFile, Path data, String model, int samples,
                      Map<String, Object> metrics) {
        try {
            out.println(RunWriter.json().writeValueAsString(json(modelFile, data, model, samples, metrics)));
            out.flush();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode json(Path modelFile, Path data, String model, int samples, Map<String, Object> metrics) {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("model_file", modelFile.toString());
        o.put("data", data.toString());
        o.put("model", model);
        o.put("samples", samples);
        o.setAll((ObjectNode) RunWriter.json().valueToTree(metrics));
        return o;
    }
}
