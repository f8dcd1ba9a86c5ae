package org.paratrain;

import org.paratrain.data.Dataset;

/**
 * Data sets from the arrays a program holds: rows of features with a target each (a value
 * for a regression) or a class each (0..K-1 for a classifier). The rows are copied into one
 * flat array, the layout every rank trains from; ragged rows and values that are not finite
 * are refused, naming the row.
 */
public final class Datasets {
    private Datasets() { }

    /**
     * {@return samples with numeric targets}
     * @param rows    one array of features a sample, all of one length
     * @param targets one target a sample
     * @throws IllegalArgumentException naming the first row of another length, or if the counts differ
     */
    public static Dataset of(double[][] rows, double[] targets) {
        int d = width(rows, targets.length);
        double[] x = new double[rows.length * d];
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(rows[i], 0, x, i * d, d);
        }
        return new Dataset(x, targets.clone(), rows.length, d);
    }

    /**
     * {@return samples with numeric targets, from single-precision features}
     * @param rows    one array of features a sample, all of one length
     * @param targets one target a sample
     * @throws IllegalArgumentException naming the first row of another length, or if the counts differ
     */
    public static Dataset of(float[][] rows, double[] targets) {
        int d = width(rows, targets.length);
        double[] x = new double[rows.length * d];
        for (int i = 0; i < rows.length; i++) {
            for (int j = 0; j < d; j++) {
                x[i * d + j] = rows[i][j];
            }
        }
        return new Dataset(x, targets.clone(), rows.length, d);
    }

    /**
     * {@return samples labelled with classes, for a classifier}
     * @param rows    one array of features a sample, all of one length
     * @param classes one class index a sample, 0..K-1
     * @throws IllegalArgumentException naming a negative class, or a row of another length
     */
    public static Dataset ofClasses(double[][] rows, int[] classes) {
        return of(rows, labels(classes));
    }

    /**
     * {@return samples labelled with classes, from single-precision features}
     * @param rows    one array of features a sample, all of one length
     * @param classes one class index a sample, 0..K-1
     * @throws IllegalArgumentException naming a negative class, or a row of another length
     */
    public static Dataset ofClasses(float[][] rows, int[] classes) {
        return of(rows, labels(classes));
    }

    private static double[] labels(int[] classes) {
        double[] y = new double[classes.length];
        for (int i = 0; i < y.length; i++) {
            if (classes[i] < 0) {
                throw new IllegalArgumentException("class of sample " + i + " is " + classes[i] + "; classes are 0..K-1");
            }
            y[i] = classes[i];
        }
        return y;
    }

    private static int width(Object[] rows, int targets) {
        if (rows.length == 0) {
            throw new IllegalArgumentException("no rows: a data set needs at least one sample");
        }
        if (rows.length != targets) {
            throw new IllegalArgumentException(rows.length + " rows but " + targets + " targets; one a row");
        }
        int d = java.lang.reflect.Array.getLength(rows[0]);
        for (int i = 1; i < rows.length; i++) {
            int n = java.lang.reflect.Array.getLength(rows[i]);
            if (n != d) {
                throw new IllegalArgumentException("row " + i + " has " + n + " features, row 0 has " + d);
            }
        }
        return d;
    }
}
