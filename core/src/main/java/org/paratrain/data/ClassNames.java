package org.paratrain.data;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.TreeSet;
import org.paratrain.io.Clip;

/**
 * The names of a classifier's classes, index k naming class k: what a model file records so
 * that predictions and metrics speak the training data's language, and so that labels of
 * new data are mapped to the same indices.
 *
 * <p>String labels ("setosa") are numbered in the sorted order of the distinct names, so the
 * mapping depends on the set of labels, never on the order of the rows (scikit-learn's
 * LabelEncoder does the same). Two-class numeric labels written as -1/+1 or 1/2 (LibSVM's
 * habits) become 0/1, named "-1", "+1" or "1", "2". A label is looked up by its text, and
 * failing that, for numeric names, by its value, so "+1", "1" and "1.0" are one class.
 *
 * @param names the class names, distinct, index k for class k
 */
public record ClassNames(List<String> names) {

    /** Copies the names; at least one. */
    public ClassNames {
        names = List.copyOf(names);
        if (names.isEmpty() || new TreeSet<>(names).size() != names.size()) {
            throw new IllegalArgumentException("class names must be distinct and at least one: " + names);
        }
    }

    /**
     * {@return the distinct labels, sorted, as class names; null when every label is a number (then
     * the labels are class indices themselves)}
     * @param labels the label column as written, one a sample
     */
    public static ClassNames ofLabels(String[] labels) {
        TreeSet<String> distinct = new TreeSet<>(Arrays.asList(labels));
        if (distinct.stream().allMatch(ClassNames::isNumber)) {
            return null;
        }
        return new ClassNames(List.copyOf(distinct));
    }

    /**
     * {@return names "-1", "+1" or "1", "2" for two-class labels written so; null for any other set of values}
     * @param y numeric labels, one a sample
     */
    public static ClassNames ofSignedOrOneBased(double[] y) {
        TreeSet<Double> distinct = new TreeSet<>();
        for (double v : y) {
            distinct.add(v);
            if (distinct.size() > 2) {
                return null;
            }
        }
        if (distinct.equals(new TreeSet<>(List.of(-1.0, 1.0)))) {
            return new ClassNames(List.of("-1", "+1"));
        }
        return distinct.equals(new TreeSet<>(List.of(1.0, 2.0))) ? new ClassNames(List.of("1", "2")) : null;
    }

    /** {@return the number of classes K} */
    public int size() {
        return names.size();
    }

    /**
     * {@return the name of class {@code k}}
     * @param k a class index, 0..K-1
     */
    public String name(int k) {
        return names.get(k);
    }

    /**
     * The class index of each label; a label the names do not hold is an error that
     * {@code where} places ({@code file:line} of label i).
     */
    double[] encode(String[] labels, IntFunction<String> where) {
        double[] y = new double[labels.length];
        for (int i = 0; i < labels.length; i++) {
            int k = indexOf(labels[i]);
            if (k < 0) {
                throw new DataFormatException(where.apply(i) + ": label '" + Clip.value(labels[i])
                    + "' is not a class the model knows (" + Clip.message(String.join(", ", names)) + ")");
            }
            y[i] = k;
        }
        return y;
    }

    /**
     * Maps numeric labels (of the paper, IDX and LibSVM formats) to class indices: a label
     * matches a name by its text or, for numeric names, by its value.
     *
     * @param values the labels, one a sample
     * @param file   where they were read, for the error message
     * @return each sample's class index
     * @throws DataFormatException naming the file, the sample and the known classes, for a
     *     label that is no class
     */
    public double[] encode(double[] values, Path file) {
        String[] labels = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            labels[i] = values[i] == Math.rint(values[i]) && Math.abs(values[i]) < 1e15
                ? Long.toString((long) values[i]) : Double.toString(values[i]);
        }
        return encode(labels, i -> file + ": sample " + (i + 1));
    }

    private int indexOf(String label) {
        int k = names.indexOf(label);
        if (k >= 0 || !isNumber(label)) {
            return k;
        }
        double v = TextLines.parse(label.strip());
        for (int j = 0; j < names.size(); j++) {
            if (isNumber(names.get(j)) && TextLines.parse(names.get(j)) == v) {
                return j;
            }
        }
        return -1;
    }

    static boolean isNumber(String s) {
        try {
            return Double.isFinite(TextLines.parse(s.strip()));
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
