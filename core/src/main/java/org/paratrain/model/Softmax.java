package org.paratrain.model;

/**
 * The softmax head's arithmetic that {@link MultilayerPerceptron} and {@link ConvNet} share:
 * the log-sum-exp of a row of logits, and a block's classes and probabilities from it.
 *
 * <p>Apart from both networks so that their training loss, their head's deltas and their
 * predictions all go through one copy of these loops: a probability a network reports is the
 * one its loss is the cross-entropy of, to the bit.
 */
final class Softmax {
    private Softmax() { }

    /**
     * {@return {@code log(sum exp z[at, at + k))}} The largest logit is subtracted before
     * exponentiating, so no exponential overflows and the largest term is exactly 1.
     */
    static double logSumExp(double[] z, int at, int k) {
        double max = Double.NEGATIVE_INFINITY;
        for (int c = 0; c < k; c++) {
            max = Math.max(max, z[at + c]);
        }
        double sum = 0.0;
        for (int c = 0; c < k; c++) {
            sum += Math.exp(z[at + c] - max);
        }
        return max + Math.log(sum);
    }

    /**
     * Each of {@code m} rows of {@code k} logits: its class, the largest logit (the first of equals),
     * into {@code classes[at + i]}, and if asked its softmax by the log-sum-exp into row
     * {@code at + i} of {@code probabilities}.
     */
    static void classify(double[] z, int m, int k, int[] classes, int at, double[] probabilities) {
        for (int i = 0; i < m; i++) {
            int best = 0;
            for (int c = 1; c < k; c++) {
                best = z[i * k + c] > z[i * k + best] ? c : best;
            }
            classes[at + i] = best;
            if (probabilities != null) {
                double lse = logSumExp(z, i * k, k);
                for (int c = 0; c < k; c++) {
                    probabilities[(at + i) * k + c] = Math.exp(z[i * k + c] - lse);
                }
            }
        }
    }
}
