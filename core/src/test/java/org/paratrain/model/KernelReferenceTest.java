package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.data.Dataset;

/**
 * The linear models' block kernels against a straightforward reference written here (one
 * sample after another, products and sums as written, no grouping), and their determinism:
 * the bits depend on the block's samples only.
 *
 * <p>Tolerance: any order of adding n terms is within {@code (n - 1) eps sum |t_i|} of the
 * exact sum, and each term carries the error of its dot product; so the kernels must agree
 * with the reference to {@code 4 (n + d + K + 8) eps M}, M the sum of the terms' magnitudes
 * (each term bounded through absolute values, as {@link Reference} computes it).
 */
class KernelReferenceTest {
    private static final double EPS = Math.ulp(1.0);

    /** name, model, features, classes (0: a regression target). */
    static Stream<Arguments> models() {
        return Stream.of(
            Arguments.of("linear 1", (Supplier<Model>) () -> new LinearRegression(1, false), 1, 0),
            Arguments.of("linear 1 + bias", (Supplier<Model>) () -> new LinearRegression(1, true), 1, 0),
            Arguments.of("linear 2", (Supplier<Model>) () -> new LinearRegression(2, false), 2, 0),
            Arguments.of("linear 10", (Supplier<Model>) () -> new LinearRegression(10, false), 10, 0),
            Arguments.of("linear 10 + bias", (Supplier<Model>) () -> new LinearRegression(10, true), 10, 0),
            Arguments.of("linear 16 + bias", (Supplier<Model>) () -> new LinearRegression(16, true), 16, 0),
            Arguments.of("linear 17", (Supplier<Model>) () -> new LinearRegression(17, false), 17, 0),
            Arguments.of("linear 100 + bias", (Supplier<Model>) () -> new LinearRegression(100, true), 100, 0),
            Arguments.of("logistic 1", (Supplier<Model>) () -> new LogisticRegression(1, false), 1, 2),
            Arguments.of("logistic 10 + bias", (Supplier<Model>) () -> new LogisticRegression(10, true), 10, 2),
            Arguments.of("logistic 33", (Supplier<Model>) () -> new LogisticRegression(33, false), 33, 2),
            Arguments.of("softmax 3 x 2 + bias", (Supplier<Model>) () -> new SoftmaxRegression(3, 2, true), 3, 2),
            Arguments.of("softmax 10 x 5", (Supplier<Model>) () -> new SoftmaxRegression(10, 5, false), 10, 5),
            Arguments.of("softmax 7 x 10 + bias", (Supplier<Model>) () -> new SoftmaxRegression(7, 10, true), 7, 10));
    }

    /** Block lengths: empty, shorter than a group of four, every tail length, default block sizes. */
    private static final int[] LENGTHS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 79, 300};

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void agreesWithTheReference(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Dataset data = data(name, 400, features, classes);
        double[] w = weights(name, model.parameterCount());
        for (int n : LENGTHS) {
            int from = 17;
            double[] grad = new double[model.parameterCount() + 3];
            double loss = model.lossAndGradient(data, from, from + n, w, grad, 3);
            Reference ref = Reference.of(model, features, classes, data, from, from + n, w);
            double scale = 4 * (n + features + classes + 8) * EPS;
            assertEquals(ref.loss, loss, scale * ref.lossMagnitude, name + ", " + n + " samples: loss");
            for (int j = 0; j < ref.grad.length; j++) {
                assertEquals(ref.grad[j], grad[3 + j], scale * ref.gradMagnitude[j],
                    name + ", " + n + " samples: parameter " + j);
            }
            assertEquals(0.0, grad[0] + grad[1] + grad[2], name + ": wrote before its offset");
        }
    }

    /**
     * The same block: twice, after the JIT compiled the kernel, on a second instance (another
     * rank), from a copy of its samples at another place (a shard that starts elsewhere), into
     * another offset: the same bits. And {@code loss} returns the bits of the kernel's loss.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void sameBitsWhereverTheBlockIsComputed(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Dataset data = data(name, 200, features, classes);
        double[] w = weights(name, model.parameterCount());
        int from = 31;
        int to = 31 + 79;
        double[] first = new double[model.parameterCount() + 1];
        first[0] = model.lossAndGradient(data, from, to, w, first, 1);
        assertEquals(Double.doubleToRawLongBits(first[0]), Double.doubleToRawLongBits(model.loss(data, from, to, w)),
            name + ": loss differs from the kernel's loss");
        for (int k = 0; k < 3000; k++) {            // enough calls for C2 to compile the kernel
            model.lossAndGradient(data, k % 100, k % 100 + 79, w, new double[model.parameterCount()], 0);
        }
        double[] again = new double[model.parameterCount() + 1];
        again[0] = model.lossAndGradient(data, from, to, w, again, 1);
        assertArrayEquals(first, again, name + ": compiled kernel");

        Dataset shard = shift(data, from, to, 5);
        Model other = make.get();
        double[] elsewhere = new double[model.parameterCount() + 9];
        double loss = other.lossAndGradient(shard, 5, 5 + (to - from), w, elsewhere, 9);
        double[] moved = new double[first.length];
        moved[0] = loss;
        System.arraycopy(elsewhere, 9, moved, 1, model.parameterCount());
        assertArrayEquals(first, moved, name + ": another instance, the block elsewhere");
    }

    /**
     * {@link Model#blocks}, one call for a run of blocks, gives each block the bits of
     * {@link Model#lossAndGradient} into a zeroed row: blocks of 1, 4, 16 and 79 samples, all full or a
     * last block that is shorter, rows with room between them, into buffers that held other values.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void blocksGiveEachBlockItsOwnBits(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Dataset data = data(name, 500, features, classes);
        double[] w = weights(name, model.parameterCount());
        int p = model.parameterCount();
        for (int[] shape : new int[][] {{1, 0}, {4, 0}, {4, 3}, {16, 0}, {16, 3}, {79, 3}}) {
            int size = shape[0];
            int from = 7;
            int to = 7 + 5 * size - shape[1];     // five blocks, the last shorter by shape[1]
            int blocks = (to - from + size - 1) / size;
            double[] losses = new double[2 + 2 * blocks];
            double[] grads = new double[3 + (p + 2) * blocks];
            java.util.Arrays.fill(losses, 9.0);
            java.util.Arrays.fill(grads, 9.0);
            model.blocks(data, from, to, size, w, losses, 2, 2, grads, 3, p + 2);
            for (int k = 0; k < blocks; k++) {
                double[] row = new double[p];
                double loss = make.get().lossAndGradient(data, from + k * size, Math.min(to, from + (k + 1) * size), w,
                    row, 0);
                assertEquals(Double.doubleToRawLongBits(loss), Double.doubleToRawLongBits(losses[2 + 2 * k]),
                    name + ", blocks of " + size + ": loss of block " + k);
                assertArrayEquals(row, Arrays.copyOfRange(grads, 3 + k * (p + 2), 3 + k * (p + 2) + p),
                    name + ", blocks of " + size + ": gradient of block " + k);
                assertEquals(9.0, losses[3 + 2 * k], name + ": wrote between the losses");
                assertEquals(9.0, grads[3 + k * (p + 2) + p], name + ": wrote between the gradients");
                assertEquals(9.0, grads[3 + k * (p + 2) + p + 1], name + ": wrote between the gradients");
            }
            // One table of rows [loss, gradient], as the allreduce exchanges keep them.
            double[] table = new double[(p + 1) * blocks];
            java.util.Arrays.fill(table, 9.0);
            model.blocks(data, from, to, size, w, table, 0, p + 1, table, 1, p + 1);
            for (int k = 0; k < blocks; k++) {
                double[] row = new double[p];
                double loss = make.get().lossAndGradient(data, from + k * size, Math.min(to, from + (k + 1) * size), w,
                    row, 0);
                assertEquals(Double.doubleToRawLongBits(loss), Double.doubleToRawLongBits(table[k * (p + 1)]),
                    name + ", one table: loss of block " + k);
                assertArrayEquals(row, Arrays.copyOfRange(table, k * (p + 1) + 1, (k + 1) * (p + 1)),
                    name + ", one table: gradient of block " + k);
            }
        }
    }

    /** The copy of the linear kernel compiled for a feature count gives the template's bits. */
    @ParameterizedTest(name = "{0} features")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 10, 100})
    void copyForAFeatureCountGivesTheTemplatesBits(int features) {
        Dataset data = data("copy " + features, 90, features, 0);
        double[] w = weights("copy", features + 1);
        double[] copy = new double[features + 2];
        double[] template = new double[features + 2];
        KernelCopies.LinearBlock kernel = KernelCopies.linear(features);
        assertTrue(kernel.getClass().isHidden(), "not a copy: " + kernel.getClass());
        copy[0] = kernel.sums(data.x(), data.y(), 3, 88, features, w, true, copy, 1);
        template[0] = new LinearKernel().sums(data.x(), data.y(), 3, 88, features, w, true, template, 1);
        assertArrayEquals(template, copy);
    }

    /** The kernel adds into the caller's buffer, it does not overwrite it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void addsToTheBuffer(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Dataset data = data(name, 50, features, classes);
        double[] w = weights(name, model.parameterCount());
        double[] zero = new double[model.parameterCount()];
        double[] ones = new double[model.parameterCount()];
        Arrays.fill(ones, 1.0);
        model.lossAndGradient(data, 0, 50, w, zero, 0);
        model.lossAndGradient(data, 0, 50, w, ones, 0);
        for (int j = 0; j < zero.length; j++) {
            assertEquals(zero[j] + 1.0, ones[j], 1e-12 * Math.max(1, Math.abs(zero[j])), name + ": parameter " + j);
        }
    }

    /** Test of the test: the tolerance is far below the effect of changing one sample. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void toleranceIsTight(String name, Supplier<Model> make, int features, int classes) {
        Model model = make.get();
        Dataset data = data(name, 100, features, classes);
        double[] w = weights(name, model.parameterCount());
        Reference all = Reference.of(model, features, classes, data, 0, 100, w);
        Reference fewer = Reference.of(model, features, classes, data, 0, 99, w);
        double scale = 4 * (100 + features + classes + 8) * EPS;
        assertTrue(Math.abs(all.loss - fewer.loss) > 100 * scale * all.lossMagnitude, name);
    }

    private static Dataset data(String name, int n, int features, int classes) {
        Random rnd = new Random(name.hashCode());
        double[] x = new double[n * features];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian() * (1 + i % 3);
        }
        for (int i = 0; i < n; i++) {
            y[i] = classes == 0 ? 5 * rnd.nextGaussian() : rnd.nextInt(classes);
        }
        return new Dataset(x, y, n, features);
    }

    private static double[] weights(String name, int count) {
        Random rnd = new Random(~name.hashCode());
        return IntStream.range(0, count).mapToDouble(j -> rnd.nextGaussian() * 0.7).toArray();
    }

    /** A data set that holds samples {@code [from, to)} of {@code data} from sample {@code at} on. */
    private static Dataset shift(Dataset data, int from, int to, int at) {
        int d = data.features();
        int n = at + (to - from) + 3;
        double[] x = new double[n * d];
        double[] y = new double[n];
        Arrays.fill(x, 7.0);
        System.arraycopy(data.x(), from * d, x, at * d, (to - from) * d);
        System.arraycopy(data.y(), from, y, at, to - from);
        return new Dataset(x, y, n, d);
    }

}
