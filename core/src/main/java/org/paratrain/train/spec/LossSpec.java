package org.paratrain.train.spec;

import java.util.List;
import org.paratrain.model.Objective;

/**
 * A classifier's training loss beyond plain cross-entropy: class weights, given or
 * {@code balanced}, and label smoothing. {@link #objective} resolves it into the model's
 * {@link Objective} once the classes and, for {@code balanced}, their counts are known.
 *
 * @param classWeights   a weight a class, in class order; empty for none (or for balanced)
 * @param balanced       weights {@code n / (K n_c)} from the training labels, as scikit-learn's
 *                       {@code class_weight="balanced"}
 * @param labelSmoothing eps in [0, 1): the target is {@code 1 - eps} on the label plus {@code eps / K} on every class
 */
public record LossSpec(List<Double> classWeights, boolean balanced, double labelSmoothing) {
    /** Plain cross-entropy. */
    public static final LossSpec PLAIN = new LossSpec(List.of(), false, 0.0);

    /** Checks the values; the count of weights is checked against the model's classes later. */
    public LossSpec {
        classWeights = List.copyOf(classWeights);
        SpecException.check(labelSmoothing >= 0 && labelSmoothing < 1, "label smoothing",
            "must be in [0, 1), got " + labelSmoothing);
        SpecException.check(!balanced || classWeights.isEmpty(), "class weights",
            "either balanced or a list of weights, not both");
        double sum = 0;
        for (double w : classWeights) {
            SpecException.check(w >= 0 && w < Double.POSITIVE_INFINITY, "class weights",
                "must be finite numbers of at least 0, got " + w);
            sum += w;
        }
        SpecException.check(classWeights.isEmpty() || sum > 0, "class weights", "must not all be 0");
    }

    /**
     * Reads {@code --class-weight}'s value: {@code balanced}, or weights separated by commas.
     *
     * @param text the option's value
     * @param labelSmoothing eps
     * @return the spec
     * @throws SpecException naming what is not a weight
     */
    public static LossSpec parse(String text, double labelSmoothing) {
        if (text == null || text.isBlank()) {
            return new LossSpec(List.of(), false, labelSmoothing);
        }
        if (text.strip().equals("balanced")) {
            return new LossSpec(List.of(), true, labelSmoothing);
        }
        List<Double> w = new java.util.ArrayList<>();
        for (String part : text.split(",", -1)) {
            try {
                w.add(Double.parseDouble(part.strip()));
            } catch (NumberFormatException e) {
                throw new SpecException("class weights", "expected balanced or numbers separated by commas, got '"
                    + part.strip() + "' in '" + text + "'");
            }
        }
        return new LossSpec(w, false, labelSmoothing);
    }

    /** {@return whether this is plain cross-entropy} */
    public boolean plain() {
        return classWeights.isEmpty() && !balanced && labelSmoothing == 0.0;
    }

    /** {@return the class weights as the command line spells them: {@code balanced}, {@code 1,2.5}, or empty} */
    public String weightsLabel() {
        if (balanced) {
            return "balanced";
        }
        StringBuilder b = new StringBuilder();
        for (double w : classWeights) {
            b.append(b.isEmpty() ? "" : ",").append(w);
        }
        return b.toString();
    }

    /**
     * The model's objective for {@code classes} classes.
     *
     * @param classes K
     * @param counts  samples of each class in the training data (read only when balanced), the same on every rank
     * @return the objective
     * @throws SpecException if the weights are not one a class, or a balanced class has no sample
     */
    public Objective objective(int classes, long[] counts) {
        if (balanced) {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            double[] w = new double[classes];
            for (int c = 0; c < classes; c++) {
                SpecException.check(counts[c] > 0, "class weights", "balanced needs a sample of every class; class "
                    + c + " has none in the training data");
                w[c] = (double) n / ((double) classes * counts[c]);
            }
            return new Objective(w, labelSmoothing);
        }
        SpecException.check(classWeights.isEmpty() || classWeights.size() == classes, "class weights",
            "needs one weight a class: the model has " + classes + " classes, got " + classWeights.size() + " weights");
        double[] w = classWeights.isEmpty() ? null : classWeights.stream().mapToDouble(Double::doubleValue).toArray();
        return new Objective(w, labelSmoothing);
    }
}
