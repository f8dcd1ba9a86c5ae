package org.paratrain.model;

import org.paratrain.data.Dataset;

/** A model that predicts a class; accuracy is measured through it. */
public interface Classifier extends Model {

    /** The predicted class of sample {@code i} at {@code params}. */
    int predict(Dataset data, int i, double[] params);

    /** The number of classes K. */
    int classes();

    /**
     * Writes the model's probability of each class for sample {@code i} into {@code out[0, K)}:
     * the softmax of the logits (the sigmoid and its complement for logistic regression),
     * the same numbers the training loss is the cross-entropy of.
     */
    void probabilities(Dataset data, int i, double[] params, double[] out);

    /** Whether the model predicts classes (false for a network built with a regression head). */
    default boolean classifies() {
        return true;
    }

    /** The fraction of samples whose predicted class equals their label. */
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
