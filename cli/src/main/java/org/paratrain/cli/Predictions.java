package org.paratrain.cli;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.Classifier;
import org.paratrain.model.Model;

/** The files {@code predict} writes. Numbers are the shortest decimals that read back to the same doubles. */
final class Predictions {
    private Predictions() { }

    /** One line a sample: the predicted class (by name when the model has class names) or value. */
    static void values(Writer w, Model model, ModelFile m, Dataset data) throws IOException {
        if (model instanceof Classifier c && c.classifies()) {
            int[] classes = new int[CHUNK];
            for (int from = 0; from < data.samples(); from += CHUNK) {
                int n = Math.min(CHUNK, data.samples() - from);
                c.predict(data, from, n, m.params(), classes, null);
                for (int i = 0; i < n; i++) {
                    w.write(m.className(classes[i]) + "\n");
                }
            }
            return;
        }
        for (int i = 0; i < data.samples(); i++) {
            w.write(model.output(data, i, m.params()) + "\n");
        }
    }

    /** Samples predicted at once: a network runs them through each layer as one matrix product. */
    private static final int CHUNK = 1024;

    /**
     * A CSV: a header naming the classes (quoted where a name needs it), then one row a
     * sample of its K probabilities, which sum to 1 up to rounding.
     */
    static void probabilities(Writer w, Classifier model, ModelFile m, Dataset data) throws IOException {
        int k = model.classes();
        List<String> header = new ArrayList<>();
        for (int c = 0; c < k; c++) {
            header.add(m.className(c));
        }
        CSVPrinter csv = new CSVPrinter(w, CSVFormat.DEFAULT.builder().setRecordSeparator('\n').get());
        csv.printRecord(header);
        csv.flush();
        double[] p = new double[CHUNK * k];
        int[] classes = new int[CHUNK];
        StringBuilder row = new StringBuilder();
        for (int i = 0; i < data.samples(); i++) {
            if (i % CHUNK == 0) {
                model.predict(data, i, Math.min(CHUNK, data.samples() - i), m.params(), classes, p);
            }
            row.setLength(0);
            for (int c = 0; c < k; c++) {
                row.append(c == 0 ? "" : ",").append(p[i % CHUNK * k + c]);
            }
            w.write(row.append('\n').toString());
        }
    }
}
