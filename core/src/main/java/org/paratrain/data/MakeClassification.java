package org.paratrain.data;

import java.util.Arrays;

/**
 * scikit-learn's {@code make_classification} (Guyon's NIPS 2003 design: Gaussian clusters on
 * the vertices of a hypercube), draw for draw: the same arguments and {@code random_state}
 * give the same X and labels bit for bit.
 *
 * <p>The order of draws is scikit-learn 1.2's: the hypercube's vertices
 * ({@code sample_without_replacement}), for {@code hypercube=false} their random scaling,
 * the informative features, one covariance matrix per cluster, the redundant mixing, the
 * repeated columns, the useless features, the label flips, shift, scale, then the sample and
 * the feature shuffles. The matrix products are summed in OpenBLAS's order
 * ({@link BlasProduct}), which is where bit-exactness is hardest and where it ends: a
 * product of more than 10^6 multiply-adds (a cluster of n rows with n·informative² > 10^6,
 * or n_samples·informative·redundant > 10^6), or a cluster of a single sample, may differ in
 * the last bits.
 *
 * @param samples          {@code n_samples}, at least 1
 * @param features         {@code n_features}, at least informative + redundant + repeated
 * @param informative      {@code n_informative}; 2^informative must reach classes x clusters
 * @param redundant        {@code n_redundant}: random linear combinations of the informative ones
 * @param repeated         {@code n_repeated}: copies of informative or redundant features
 * @param classes          {@code n_classes}, at least 2
 * @param clustersPerClass {@code n_clusters_per_class}, at least 1
 * @param weights          the share of samples of each class (K or K-1 values), or null for equal shares
 * @param flipY            the fraction of labels replaced by random classes, in [0, 1]
 * @param classSep         half the side of the hypercube
 * @param hypercube        whether the clusters sit on the vertices (else on a random polytope)
 * @param shift            added to every feature, or null for a random shift per feature in [-classSep, classSep]
 * @param scale            multiplies every feature, or null for a random scale per feature in [1, 101]
 * @param shuffle          whether samples and features are shuffled
 */
public record MakeClassification(int samples, int features, int informative, int redundant, int repeated,
                                 int classes, int clustersPerClass, double[] weights, double flipY, double classSep,
                                 boolean hypercube, Double shift, Double scale, boolean shuffle) {

    /** Checks the arguments as scikit-learn does, and a few it leaves to fail later. */
    public MakeClassification {
        positive("--samples", samples, 1);
        positive("--features", features, 1);
        positive("--informative", informative, 1);
        positive("--redundant", redundant, 0);
        positive("--repeated", repeated, 0);
        positive("--classes", classes, 2);
        positive("--clusters-per-class", clustersPerClass, 1);
        if ((long) informative + redundant + repeated > features) {
            throw new IllegalArgumentException("--informative + --redundant + --repeated (" + informative + " + "
                + redundant + " + " + repeated + ") must not exceed --features " + features);
        }
        long clusters = (long) classes * clustersPerClass;
        if (informative < 62 && (1L << informative) < clusters) {
            throw new IllegalArgumentException("--classes x --clusters-per-class (" + clusters + ") must be at most "
                + "2^--informative (" + (1L << informative) + "): each cluster needs a vertex of the hypercube");
        }
        if (!(flipY >= 0 && flipY <= 1)) {
            throw new IllegalArgumentException("--flip-y must be in [0, 1], got " + flipY);
        }
        finite("--class-sep", classSep);
        if (shift != null) {
            finite("--shift", shift);
        }
        if (scale != null) {
            finite("--scale", scale);
        }
        if ((long) samples * features > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--samples x --features must stay below 2^31, got "
                + (long) samples * features);
        }
        weights = weights == null ? null : checkedWeights(weights, classes);
    }

    private static void positive(String option, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", got " + value);
        }
    }

    private static void finite(String option, double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(option + " must be a finite number, got " + value);
        }
    }

    /** K weights; K-1 are completed with 1 minus their sum, as scikit-learn does for a list. */
    private static double[] checkedWeights(double[] w, int classes) {
        if (w.length != classes && w.length != classes - 1) {
            throw new IllegalArgumentException("--weights needs " + (classes - 1) + " or " + classes + " values (one a "
                + "class), got " + w.length);
        }
        double sum = 0;
        for (double v : w) {
            if (!(v >= 0 && v <= 1)) {
                throw new IllegalArgumentException("--weights must each be in [0, 1], got " + v);
            }
            sum += v;
        }
        if (sum > 1 + 1e-9) {
            throw new IllegalArgumentException("--weights must sum to at most 1, got " + sum);
        }
        double[] out = Arrays.copyOf(w, classes);
        if (w.length == classes - 1) {
            out[classes - 1] = 1.0 - sum;
        }
        return out;
    }

    /**
     * {@return {@code make_classification(n_samples=samples, n_features=features)}'s arguments, with
     * scikit-learn's defaults for the rest, to be set as its keywords are} For example
     * {@code MakeClassification.builder(1000, 8).informative(5).classes(3).generate(42)}. The
     * arguments are checked together, at {@link MakeClassificationBuilder#build} or {@link MakeClassificationBuilder#generate}: the
     * defaults (2 informative and 2 redundant features) do not fit fewer than 4 features until the
     * keywords that make them fit are set.
     * @param samples  {@code n_samples}, at least 1
     * @param features {@code n_features}
     */
    public static MakeClassificationBuilder builder(int samples, int features) {
        return new MakeClassificationBuilder(samples, features);
    }

    /**
     * Generates the data set, drawing from {@code rng} in scikit-learn's order.
     *
     * @param rng a fresh generator seeded like {@code RandomState(random_state)}, for scikit-learn's bits
     * @return the samples, labelled with class indices 0..K-1
     * @throws NotEnoughMemoryException if the heap cannot hold them
     */
    public Dataset generate(NumpyRandomState rng) {
        int n = samples;
        int d = features;
        HeapBudget.require(8L * ((long) n * d * (shuffle ? 2 : 1) + 2L * n), n + " samples x " + d + " features");
        int clusters = classes * clustersPerClass;
        double[][] centroids = centroids(rng, clusters);
        double[] x = new double[n * d];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < informative; j++) {
                x[i * d + j] = rng.gauss();
            }
        }
        int start = 0;
        int[] perCluster = perCluster(clusters);
        for (int k = 0; k < clusters; k++) {
            double[] a = uniformMatrix(rng, informative * informative);
            BlasProduct.multiply(x, d, start, perCluster[k], informative, a, informative, 0);
            for (int i = start; i < start + perCluster[k]; i++) {
                y[i] = k % classes;
                for (int j = 0; j < informative; j++) {
                    x[i * d + j] += centroids[k][j];
                }
            }
            start += perCluster[k];
        }
        if (redundant > 0) {
            double[] b = uniformMatrix(rng, informative * redundant);
            BlasProduct.multiply(x, d, 0, n, informative, b, redundant, informative);
        }
        repeatAndFill(rng, x);
        flip(rng, y);
        shiftAndScale(rng, x);
        Dataset data = new Dataset(x, y, n, d);
        return shuffle ? shuffled(rng, data) : data;
    }

    /** Samples per cluster: the class's share split evenly over its clusters, the rest dealt round-robin. */
    int[] perCluster(int clusters) {
        int[] counts = new int[clusters];
        long total = 0;
        for (int k = 0; k < clusters; k++) {
            double w = weights == null ? 1.0 / classes : weights[k % classes];
            counts[k] = (int) (samples * w / clustersPerClass);
            total += counts[k];
        }
        if (total > samples) {
            throw new IllegalArgumentException("--weights give " + total + " samples, more than --samples " + samples);
        }
        for (int i = 0; i < samples - total; i++) {
            counts[i % clusters]++;
        }
        return counts;
    }

    /** The vertices of the hypercube, one a cluster, at +-classSep (randomly scaled unless hypercube). */
    private double[][] centroids(NumpyRandomState rng, int clusters) {
        double[][] c = Hypercube.vertices(rng, clusters, informative);
        for (double[] row : c) {
            for (int j = 0; j < informative; j++) {
                row[j] = row[j] * (2 * classSep) - classSep;
            }
        }
        if (!hypercube) {
            for (double[] row : c) {
                double u = rng.randomSample();
                for (int j = 0; j < informative; j++) {
                    row[j] *= u;
                }
            }
            for (int j = 0; j < informative; j++) {
                double u = rng.randomSample();
                for (double[] row : c) {
                    row[j] *= u;
                }
            }
        }
        return c;
    }

    /** {@code 2 * uniform(size) - 1}, row-major. */
    private static double[] uniformMatrix(NumpyRandomState rng, int size) {
        double[] m = new double[size];
        for (int i = 0; i < size; i++) {
            m[i] = 2 * rng.randomSample() - 1;
        }
        return m;
    }

    /** The repeated columns (copies of informative or redundant ones), then the useless ones. */
    private void repeatAndFill(NumpyRandomState rng, double[] x) {
        int d = features;
        int useful = informative + redundant;
        int[] source = new int[repeated];
        for (int r = 0; r < repeated; r++) {
            source[r] = (int) ((useful - 1) * rng.randomSample() + 0.5);
        }
        for (int i = 0; i < samples; i++) {
            for (int r = 0; r < repeated; r++) {
                x[i * d + useful + r] = x[i * d + source[r]];
            }
        }
        int useless = d - useful - repeated;
        for (int i = 0; i < samples; i++) {
            for (int j = d - useless; j < d; j++) {
                x[i * d + j] = rng.gauss();
            }
        }
    }

    /** Replaces the labels of a random flipY share of the samples by random classes (possibly the same). */
    private void flip(NumpyRandomState rng, double[] y) {
        boolean[] flipped = new boolean[samples];
        for (int i = 0; i < samples; i++) {
            flipped[i] = rng.randomSample() < flipY;
        }
        for (int i = 0; i < samples; i++) {
            if (flipped[i]) {
                y[i] = rng.randomInterval(classes - 1);
            }
        }
    }

    private void shiftAndScale(NumpyRandomState rng, double[] x) {
        int d = features;
        double[] by = new double[d];
        for (int j = 0; j < d; j++) {
            by[j] = shift != null ? shift : (2 * rng.randomSample() - 1) * classSep;
        }
        for (int i = 0; i < x.length; i++) {
            x[i] += by[i % d];
        }
        for (int j = 0; j < d; j++) {
            by[j] = scale != null ? scale : 1 + 100 * rng.randomSample();
        }
        for (int i = 0; i < x.length; i++) {
            x[i] *= by[i % d];
        }
    }

    /** scikit-learn's {@code utils.shuffle} of the rows, then a shuffle of the columns. */
    private static Dataset shuffled(NumpyRandomState rng, Dataset data) {
        int n = data.samples();
        int d = data.features();
        int[] rows = Hypercube.identity(n);
        rng.shuffle(rows);
        int[] cols = Hypercube.identity(d);
        rng.shuffle(cols);
        double[] xs = new double[n * d];
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            ys[i] = data.y()[rows[i]];
            for (int j = 0; j < d; j++) {
                xs[i * d + j] = data.x()[rows[i] * d + cols[j]];
            }
        }
        return new Dataset(xs, ys, n, d);
    }
}
