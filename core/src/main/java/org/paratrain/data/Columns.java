package org.paratrain.data;

import java.util.ArrayList;
import java.util.List;

/**
 * The names of a data set's features, in their order, and of its label column: a CSV
 * header's, or generated ({@code x0}, {@code x1}, ...) for files that name no columns (the
 * paper's format, IDX pixels, LibSVM, NumPy arrays, a CSV file without a header). A model
 * keeps them, so that new data is matched to its features by name, not by position.
 *
 * @param features the feature names, one a feature
 * @param named    whether they came from the data (a header) rather than generated
 * @param label    the label column's name, or null when the labels have none
 */
public record Columns(List<String> features, boolean named, String label) {
    /** Copies the list. */
    public Columns {
        features = List.copyOf(features);
    }

    /**
     * {@return generated names x0 .. x(d-1), for data that names no columns}
     * @param d the number of features
     */
    public static Columns generated(int d) {
        List<String> names = new ArrayList<>(d);
        for (int j = 0; j < d; j++) {
            names.add("x" + j);
        }
        return new Columns(names, false, null);
    }

    /**
     * {@return the columns of a CSV table: its header's names, or generated ones without a header}
     * @param t      the table read
     * @param header whether the file had a header line
     */
    public static Columns of(CsvTable t, boolean header) {
        if (!header) {
            return generated(t.features());
        }
        return new Columns(t.featureNames(), true, t.label() >= 0 ? t.names()[t.label()] : null);
    }
}
