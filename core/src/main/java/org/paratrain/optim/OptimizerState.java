package org.paratrain.optim;

import java.util.Arrays;

/**
 * An optimiser's state as raw numbers, for checkpoints: what it is ({@code kind}), how many
 * updates it has applied ({@code steps}: the schedule's position too), scalars such as Adam's
 * running powers of beta, and its per-parameter vectors (velocity; first and second moments),
 * empty where the optimiser has not made them yet.
 *
 * @param kind    the optimiser's name
 * @param steps   updates applied
 * @param scalars scalar state, in an order the optimiser defines
 * @param vectors per-parameter state, in an order the optimiser defines
 */
public record OptimizerState(String kind, long steps, double[] scalars, double[][] vectors) {

    /** Checks the fields and keeps its own copies. */
    public OptimizerState {
        if (steps < 0) {
            throw new IllegalArgumentException("optimizer state: steps must be at least 0, got " + steps);
        }
        scalars = scalars.clone();
        vectors = Arrays.stream(vectors).map(v -> v == null ? new double[0] : v.clone()).toArray(double[][]::new);
    }

    /** {@return the scalars, a copy} */
    @Override
    public double[] scalars() {
        return scalars.clone();
    }

    /**
     * {@return vector {@code i}, a copy; empty if the optimiser had not made it}
     * @param i the vector's index, in the optimiser's order (Adam: 0 the first moment, 1 the second)
     */
    public double[] vector(int i) {
        return vectors[i].clone();
    }

    /** {@return the vectors, copies} */
    @Override
    public double[][] vectors() {
        return Arrays.stream(vectors).map(double[]::clone).toArray(double[][]::new);
    }

    /** Checks that this state suits an optimiser named {@code name} with {@code scalarCount} scalars. */
    void expect(String name, int scalarCount, int vectorCount) {
        if (!kind.equals(name) || scalars.length != scalarCount || vectors.length != vectorCount) {
            throw new IllegalArgumentException("optimizer state of " + kind + " (" + scalars.length + " scalars, "
                + vectors.length + " vectors) cannot continue " + name);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OptimizerState s && kind.equals(s.kind) && steps == s.steps
            && Arrays.equals(scalars, s.scalars) && Arrays.deepEquals(vectors, s.vectors);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Long.hashCode(steps);
    }

    @Override
    public String toString() {
        return kind + " state after " + steps + " updates";
    }
}
