package org.paratrain.model;

/**
 * The per-value arithmetic of batch normalisation over {@code rows} rows of {@code c}
 * channels (a chunk's pixels, or its samples for a dense layer), in double and in float: the
 * partial sums a chunk contributes, the normalisation, and the backward pass from the batch's
 * sums. {@link ConvNormSteps} drives them across chunks, blocks and ranks and computes the
 * per-channel coefficients they take.
 *
 * <p>Forward, with {@code M} values a channel in the whole step and {@code K} a shift the same on
 * every rank (the running mean before the step): {@code s1 = sum (x - K)},
 * {@code s2 = sum (x - K)^2}, {@code mean = K + s1 / M}, {@code var = s2 / M - (s1 / M)^2}, summed
 * in double (so even a mean 10^4 standard deviations from K loses only about 10^-8 of the
 * variance), {@code y = relu(a x + b)} with {@code a = gamma / sqrt(var + eps)},
 * {@code b = beta - a mean}. Backward, with {@code g} the loss's gradient by {@code y} through the
 * ReLU: {@code dbeta = sum g}, {@code dgamma = sum g xhat}, and
 * {@code dx = k1 g - k2 x - k3} with {@code k1 = gamma scale}, {@code k2 = k1 scale dgamma / M},
 * {@code k3 = k1 (dbeta / M - scale mean dgamma / M)}: {@code gamma scale (g - dbeta/M - xhat dgamma/M)}
 * regrouped.
 *
 * <p>Why these shapes: each loop reads the chunk's values at {@code r c + o} and per-channel
 * coefficients of another type at {@code o}, and writes only the chunk's values or per-channel
 * doubles at the same {@code o}, so the compiler vectorises it (a store into a float array read
 * at another offset keeps it scalar: the first version of the gradient loop took 7 ns a value,
 * these take 0.4-0.8). The float versions repeat the double ones for float arrays; keep the
 * pairs alike.
 */
final class BatchNormArithmetic {
    private BatchNormArithmetic() { }

    /** Adds each channel's {@code sum (x - shift)} to {@code s1[o]} and {@code sum (x - shift)^2} to {@code s2[o]}. */
    static void sums(double[] x, int rows, int c, double[] shift, double[] s1, double[] s2) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                double d = x[base + o] - shift[o];
                s1[o] += d;
                s2[o] += d * d;
            }
        }
    }

    /** {@code y = relu(a x + b)}, channel by channel. */
    static void affine(double[] x, double[] y, int rows, int c, double[] a, double[] b) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                y[base + o] = Math.max(a[o] * x[base + o] + b[o], 0.0);
            }
        }
    }

    /**
     * Through the ReLU ({@code g} times the sign of the output {@code y}), then adds each
     * channel's {@code sum g} to {@code s1[o]} and {@code sum g (x - mean) scale} to {@code s2[o]}.
     */
    static void gradientSums(double[] x, double[] y, double[] g, int rows, int c, double[] mean, double[] scale,
                             double[] s1, double[] s2) {
        for (int j = 0; j < rows * c; j++) {
            g[j] *= Math.signum(y[j]);          // y >= 0: 1 or 0, vectorised (a select is not)
        }
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                double d = g[base + o];
                s1[o] += d;
                s2[o] += d * ((x[base + o] - mean[o]) * scale[o]);
            }
        }
    }

    /** {@code dx = k1 g - k2 x - k3}, channel by channel. */
    static void backward(double[] x, double[] g, double[] dx, int rows, int c, double[] k1, double[] k2, double[] k3) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                dx[base + o] = k1[o] * g[base + o] - k2[o] * x[base + o] - k3[o];
            }
        }
    }

    /** As the double version: floats summed in double. */
    static void sums(float[] x, int rows, int c, double[] shift, double[] s1, double[] s2) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                double d = x[base + o] - shift[o];
                s1[o] += d;
                s2[o] += d * d;
            }
        }
    }

    /** As the double version, each value computed in double and rounded once. */
    static void affine(float[] x, float[] y, int rows, int c, double[] a, double[] b) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                y[base + o] = (float) Math.max(a[o] * x[base + o] + b[o], 0.0);
            }
        }
    }

    /** As the double version: the ReLU in floats, the sums in double. */
    static void gradientSums(float[] x, float[] y, float[] g, int rows, int c, double[] mean, double[] scale,
                             double[] s1, double[] s2) {
        for (int j = 0; j < rows * c; j++) {
            g[j] *= Math.signum(y[j]);
        }
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                double d = g[base + o];
                s1[o] += d;
                s2[o] += d * ((x[base + o] - mean[o]) * scale[o]);
            }
        }
    }

    /** As the double version, each value computed in double and rounded once. */
    static void backward(float[] x, float[] g, float[] dx, int rows, int c, double[] k1, double[] k2, double[] k3) {
        for (int r = 0; r < rows; r++) {
            int base = r * c;
            for (int o = 0; o < c; o++) {
                dx[base + o] = (float) (k1[o] * g[base + o] - k2[o] * x[base + o] - k3[o]);
            }
        }
    }

    /** Inference's coefficients from the running statistics at {@code params[at...]}: {@code a}, {@code b} of {@link #affine}. */
    static void running(double[] params, int at, int c, double[] a, double[] b) {
        for (int o = 0; o < c; o++) {
            double scale = 1.0 / Math.sqrt(params[at + 3 * c + o] + ConvNet.BatchNorm.EPSILON);
            a[o] = params[at + o] * scale;
            b[o] = params[at + c + o] - a[o] * params[at + 2 * c + o];
        }
    }
}
