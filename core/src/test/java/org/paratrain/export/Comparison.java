package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.Classifier;
import org.paratrain.model.Model;

/**
 * An exported model's outputs in ONNX Runtime beside paratrain's own on the same rows, and the
 * largest differences between them.
 *
 * <p>The relative difference of a value is {@code |onnx - paratrain| / |paratrain|}, each value
 * on its own: a probability of 1e-12 is held to the same relative precision as one of 0.5.
 * The row-relative difference divides by the largest value of the row instead (for a
 * regressor's one value a row, the same thing): the scale a float32 graph's rounding is
 * measured against, since its logits err by about 1e-7 of their size, absolutely, whatever
 * the probability they give.
 *
 * @param relative   the largest relative difference of the probabilities or predictions, value by value
 * @param row        the largest difference relative to the largest value of its row
 * @param absolute   the largest absolute difference
 * @param labels     rows whose label differs (0 when all agree; always 0 for a regressor)
 * @param rows       rows compared
 */
record Comparison(double relative, double row, double absolute, int labels, int rows) {

    /** paratrain's outputs: each row's class and probabilities, or its prediction. */
    record Reference(int[] classes, double[] values) {
        /** What paratrain's predict computes for the prepared rows {@code d}. */
        static Reference of(ModelFile file, Dataset d) {
            Model model = file.newModel();
            int n = d.samples();
            if (model instanceof Classifier c && c.classifies()) {
                int[] classes = new int[n];
                double[] p = new double[n * c.classes()];
                c.predict(d, 0, n, file.params(), classes, p);
                return new Reference(classes, p);
            }
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = model.output(d, i, file.params());
            }
            return new Reference(null, v);
        }
    }

    /** Compares, checking the outputs' names, types and shapes on the way. */
    static Comparison of(OrtRun run, Reference ref, int classes) {
        boolean classifier = ref.classes() != null;
        int n = classifier ? ref.classes().length : ref.values().length;
        double[] values = run.outputs().get(classifier ? Layers.PROBABILITIES : Layers.PREDICTION);
        assertArrayEquals(classifier ? new long[] {n, classes} : new long[] {n, 1},
            run.shapes().get(classifier ? Layers.PROBABILITIES : Layers.PREDICTION));
        assertEquals(run.inputType(), run.types().get(classifier ? Layers.PROBABILITIES : Layers.PREDICTION));
        if (classifier) {
            assertArrayEquals(new long[] {n}, run.shapes().get(Layers.LABEL));
        }
        return of(values, run.labels(), ref);
    }

    /**
     * Compares another runtime's outputs with paratrain's: {@code values} as many a row as
     * {@code ref}'s, and for a classifier the label of each row.
     */
    static Comparison of(double[] values, long[] labels, Reference ref) {
        boolean classifier = ref.classes() != null;
        int n = classifier ? ref.classes().length : ref.values().length;
        assertEquals(ref.values().length, values.length, "values");
        int wrong = 0;
        if (classifier) {
            for (int i = 0; i < n; i++) {
                wrong += labels[i] == ref.classes()[i] ? 0 : 1;
            }
        }
        double rel = 0;
        double row = 0;
        double abs = 0;
        int width = values.length / n;
        for (int i = 0; i < n; i++) {
            double largest = 0;
            double worst = 0;
            for (int k = i * width; k < (i + 1) * width; k++) {
                double d = Math.abs(values[k] - ref.values()[k]);
                largest = Math.max(largest, Math.abs(ref.values()[k]));
                worst = Math.max(worst, d);
                rel = Math.max(rel, d == 0 ? 0 : d / Math.abs(ref.values()[k]));
            }
            abs = Math.max(abs, worst);
            row = Math.max(row, worst == 0 ? 0 : worst / largest);
        }
        return new Comparison(rel, row, abs, wrong, n);
    }
}
