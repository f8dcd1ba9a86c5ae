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
        for (int i = 0; i < data.samples(); i++) {
            if (model instanceof Classifier c && c.classifies()) {
                w.write(m.className(c.predict(data, i, m.params())) + "\n");
            } else {
                w.write(model.output(data, i, m.params()) + "\n");
            }
        }
    }

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
        double[] p = new double[k];
        StringBuilder row = new StringBuilder();
        for (int i = 0; i < data.samples(); i++) {
            model.probabilities(data, i, m.params(), p);
            row.setLength(0);
            for (int c = 0; c < k; c++) {
                row.append(c == 0 ? "" : ",").append(p[c]);
            }
            w.write(row.append('\n').toString());
        }
    }
}
