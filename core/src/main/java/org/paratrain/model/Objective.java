package org.paratrain.model;

import java.util.Arrays;

/**
 * What a classifier's training loss weighs and aims at, beyond plain cross-entropy: a weight
 * a class (a sample of class c counts {@code w[c]} times) and label smoothing (the target is
 * {@code 1 - eps} on the label and {@code eps / K} spread over the K classes, as Keras'
 * {@code label_smoothing} and PyTorch's {@code CrossEntropyLoss(label_smoothing=)}).
 *
 * <p>A sample's loss is {@code w[y] (logsumexp(z) - sum_c t_c z_c)} with target
 * {@code t_c = (1 - eps) [c = y] + eps / K}, and its logits' deltas {@code w[y] (p_c - t_c)}.
 * Binary logistic regression takes the same with K = 2 on its one logit: target
 * {@code y (1 - eps) + eps / 2}. The losses stay sums over samples, so a mean divides by the
 * sample count, not the weights' sum (Keras' and scikit-learn's convention).
 *
 * <p>Every term is a function of the sample alone (its logits and label), so the weighted,
 * smoothed gradient keeps the project's property: the same bits at any node count. With no
 * weights and no smoothing ({@link #PLAIN}) every expression reduces, bit for bit, to the plain
 * cross-entropy: {@code t_c} is exactly 1 or 0 and a weight of 1 is never multiplied in.
 *
 * <p>It applies to training only: validation, evaluation and prediction report the plain
 * cross-entropy, so that early stopping compares runs on the loss users read.
 */
public final class Objective {
    /** Plain cross-entropy: every class weighs 1, no smoothing. */
    public static final Objective PLAIN = new Objective(null, 0.0);

    private final double[] weights;
    private final double smoothing;

    /**
     * An objective with the given class weights and label smoothing.
     *
     * @param classWeights a weight a class, each finite and at least 0, or null for all 1
     * @param smoothing    label smoothing, in [0, 1)
     */
    public Objective(double[] classWeights, double smoothing) {
        if (!(smoothing >= 0 && smoothing < 1)) {
            throw new IllegalArgumentException("label smoothing must be in [0, 1), got " + smoothing);
        }
        if (classWeights != null) {
            for (double w : classWeights) {
                if (!(w >= 0 && w < Double.POSITIVE_INFINITY)) {
                    throw new IllegalArgumentException("class weights must be finite and at least 0, got " + w);
                }
            }
        }
        this.weights = classWeights == null ? null : classWeights.clone();
        this.smoothing = smoothing;
    }

    /** {@return whether this is plain cross-entropy} */
    public boolean plain() {
        return weights == null && smoothing == 0.0;
    }

    /** {@return label smoothing's eps} */
    public double smoothing() {
        return smoothing;
    }

    /** {@return a copy of the class weights, or null when every class weighs 1} */
    public double[] classWeights() {
        return weights == null ? null : weights.clone();
    }

    /**
     * Checks the weights against a model of {@code classes} classes.
     *
     * @param classes K
     * @param model   the model's name, for the message
     * @return this
     * @throws IllegalArgumentException if there is not one weight a class
     */
    public Objective forClasses(int classes, String model) {
        if (weights != null && weights.length != classes) {
            throw new IllegalArgumentException("class weights: " + model + " has " + classes + " classes, got "
                + weights.length + " weights");
        }
        return this;
    }

    /** {@return the weight of a sample of class {@code label}} */
    double weight(int label) {
        return weights == null ? 1.0 : weights[label];
    }

    /** {@return {@code loss} times the weight of {@code label}; {@code loss} itself when weights are off} */
    double weigh(double loss, int label) {
        return weights == null ? loss : weights[label] * loss;
    }

    /**
     * {@return the sample's loss {@code w[y] (lse - sum_c t_c z_c)}} from its log-sum-exp and its logits
     * {@code z[at, at + k)}.
     */
    double crossEntropy(double lse, double[] z, int at, int k, int label) {
        double aimed = z[at + label];
        if (smoothing != 0.0) {
            double sum = 0.0;
            for (int c = 0; c < k; c++) {
                sum += z[at + c];
            }
            aimed = (1 - smoothing) * aimed + smoothing / k * sum;
        }
        return weigh(lse - aimed, label);
    }

    /** As {@link #crossEntropy(double, double[], int, int, int)}, for float logits (widened). */
    double crossEntropy(double lse, float[] z, int at, int k, int label) {
        double aimed = z[at + label];
        if (smoothing != 0.0) {
            double sum = 0.0;
            for (int c = 0; c < k; c++) {
                sum += z[at + c];
            }
            aimed = (1 - smoothing) * aimed + smoothing / k * sum;
        }
        return weigh(lse - aimed, label);
    }

    /** {@return the target {@code t_c} of class c for a sample of class {@code label}: 1 or 0 without smoothing} */
    double target(int c, int label, int k) {
        double t = c == label ? 1.0 : 0.0;
        return smoothing == 0.0 ? t : (1 - smoothing) * t + smoothing / k;
    }

    /** {@return the logit's delta {@code w[y] (p - t_c)}} for class c's probability p */
    double delta(double p, int c, int label, int k) {
        return weigh(p - target(c, label, k), label);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Objective b && Arrays.equals(weights, b.weights)
            && Double.compare(smoothing, b.smoothing) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(weights) + Double.hashCode(smoothing);
    }

    @Override
    public String toString() {
        return plain() ? "cross-entropy" : "cross-entropy (class weights " + Arrays.toString(weights)
            + ", label smoothing " + smoothing + ")";
    }
}
