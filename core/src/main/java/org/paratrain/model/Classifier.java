package org.paratrain.model;

import org.paratrain.data.Dataset;

/** A model that predicts a class; accuracy is measured through it. */
public interface Classifier extends Model {

    /**
     * {@return the predicted class of sample {@code i}, 0..K-1: the most probable one}
     * @param data   the samples
     * @param i      the sample's index
     * @param params the parameters
     */
    int predict(Dataset data, int i, double[] params);

    /** {@return the number of classes K, at least 2} */
    int classes();

    /**
     * Writes the model's probability of each class for sample {@code i} into {@code out[0, K)}:
     * the softmax of the logits (the sigmoid and its complement for logistic regression),
     * the same numbers the training loss is the cross-entropy of.
     *
     * @param data   the samples
     * @param i      the sample's index
     * @param params the parameters
     * @param out    room for K probabilities, overwritten; they sum to 1
     */
    void probabilities(Dataset data, int i, double[] params, double[] out);

    /**
     * Predicts samples {@code [from, from + n)} at once: their classes and, if asked, their
     * probabilities, as {@link #predict} and {@link #probabilities} give them one at a time. A
     * network overrides it to run the samples through each layer as one matrix product.
     *
     * @param data          the samples
     * @param from          the first sample
     * @param n             how many
     * @param params        the parameters
     * @param classes       room for n classes, from index 0
     * @param probabilities room for n rows of K probabilities, from index 0, or null for none
     */
    default void predict(Dataset data, int from, int n, double[] params, int[] classes, double[] probabilities) {
        int k = classes();
        double[] p = probabilities == null ? null : new double[k];
        for (int i = 0; i < n; i++) {
            classes[i] = predict(data, from + i, params);
            if (p != null) {
                probabilities(data, from + i, params, p);
                System.arraycopy(p, 0, probabilities, i * k, k);
            }
        }
    }

    /** {@return whether the model predicts classes (false for a network built with a regression head)} */
    default boolean classifies() {
        return true;
    }

    /**
     * {@return the fraction of samples whose predicted class equals their label}
     * @param data   samples labelled with class indices
     * @param params the parameters
     */
    default double accuracy(Dataset data, double[] params) {
        int right = 0;
        for (int i = 0; i < data.samples(); i++) {
            if (predict(data, i, params) == (int) data.y()[i]) {
                right++;
            }
        }
        return (double) right / data.samples();
    }
}
