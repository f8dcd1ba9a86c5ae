package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Columns;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.ConvNet;
import org.paratrain.model.MultilayerPerceptron.Activation;
import org.paratrain.model.MultilayerPerceptron.Head;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;

/**
 * Each model kind's graph against paratrain's own forward pass, on random parameters and
 * rows, in shapes that training on real data would rarely reach: no intercept, odd image
 * sizes whose pooling drops an edge, several channels, a convolution after a pooling,
 * kernels of 1, a CNN of dense layers alone, IDX pixel scaling together with a standardizer.
 * A wrong index in a weight's layout shows here as a difference of order 1.
 */
class OnnxLayoutTest {
    private static final int ROWS = 37;

    static Stream<Arguments> models() {
        ConvNet.Shape odd = new ConvNet.Shape(9, 7, 2);
        return Stream.of(
            Arguments.of("linear, no intercept", new ModelSpec.Linear(false), 5, 0, null),
            Arguments.of("linear, standardised", new ModelSpec.Linear(true), 5, 0, "standardize"),
            Arguments.of("logistic, no intercept", new ModelSpec.Logistic(false), 6, 2, "standardize"),
            Arguments.of("softmax", new ModelSpec.Softmax(4, true), 6, 4, "standardize"),
            Arguments.of("softmax, no intercept", new ModelSpec.Softmax(3, false), 6, 3, null),
            Arguments.of("mlp tanh, two hidden", new ModelSpec.Mlp(List.of(7, 5), Activation.TANH, Head.SOFTMAX, 3),
                6, 3, "standardize"),
            Arguments.of("mlp sigmoid, no hidden", new ModelSpec.Mlp(List.of(), Activation.SIGMOID, Head.SOFTMAX, 2),
                6, 2, null),
            Arguments.of("mlp-regression relu", new ModelSpec.Mlp(List.of(8), Activation.RELU, Head.SQUARED, 0), 6, 0,
                "idx+standardize"),
            Arguments.of("cnn, odd sizes and channels", new ModelSpec.Cnn(List.of(new ConvNet.Conv(3, 3),
                new ConvNet.Pool(2), new ConvNet.Conv(4, 2), new ConvNet.Dense(5)), odd, 3), odd.size(), 3, "idx"),
            Arguments.of("cnn, 1x1 kernel then a pool at the end", new ModelSpec.Cnn(List.of(new ConvNet.Conv(2, 1),
                new ConvNet.Conv(3, 3), new ConvNet.Pool(3)), odd, 4), odd.size(), 4, "idx+standardize"),
            Arguments.of("cnn of dense layers", new ModelSpec.Cnn(List.of(new ConvNet.Dense(6), new ConvNet.Dense(4)),
                new ConvNet.Shape(4, 4, 1), 3), 16, 3, null),
            // Parameters drawn positive: a running variance must be.
            Arguments.of("cnn with batchnorm after a conv and a dense layer", new ModelSpec.Cnn(List.of(
                new ConvNet.Conv(3, 3), new ConvNet.BatchNorm(), new ConvNet.Pool(2), new ConvNet.Dense(5),
                new ConvNet.BatchNorm()), odd, 3), odd.size(), 3, "idx"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void graphComputesWhatParatrainComputes(String name, ModelSpec spec, int features, int classes, String scaling)
        throws Exception {
        SplittableRandom r = new SplittableRandom(name.hashCode());
        boolean idx = scaling != null && scaling.contains("idx");
        double[] params = new double[spec.newModel(features, classes).parameterCount()];
        for (int i = 0; i < params.length; i++) {
            params[i] = name.contains("batchnorm") ? r.nextDouble(0.05, 1) : r.nextDouble(-1, 1);
        }
        double[] raw = new double[ROWS * features];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = idx ? r.nextInt(256) : r.nextDouble(-3, 5);
        }
        Standardizer st = null;
        if (scaling != null && scaling.contains("standardize")) {
            double[] mean = new double[features];
            double[] scale = new double[features];
            for (int j = 0; j < features; j++) {
                mean[j] = r.nextDouble(-1, 1);
                scale[j] = r.nextDouble(0.2, 3);
            }
            st = new Standardizer(mean, scale);
        }
        ClassNames names = classes == 0 ? null : new ClassNames(Stream.iterate(0, k -> k + 1).limit(classes)
            .map(k -> "class " + k).toList());
        ModelFile file = new ModelFile(spec, features, classes, params, st, names, Columns.generated(features),
            idx ? DataSpec.Format.IDX : DataSpec.Format.CSV);
        double[] seen = raw.clone();
        for (int i = 0; idx && i < seen.length; i++) {
            seen[i] = raw[i] / 255.0;          // what IdxFormat makes of a pixel byte
        }
        Comparison.Reference ref = Comparison.Reference.of(file, file.prepare(new Dataset(seen, new double[ROWS],
            ROWS, features)));
        int k = classes == 0 ? 1 : classes;
        for (Precision p : Precision.values()) {
            OrtRun run = OrtRun.of(OnnxExport.of(file).precision(p).bytes(), raw, ROWS, features);
            Comparison c = Comparison.of(run, ref, k);
            assertTrue(p == Precision.FLOAT64 ? c.relative() <= 1e-9 : c.row() <= 1e-5, name + " " + p + ": " + c);
            assertEquals(0, c.labels(), name + " " + p + ": " + c);
        }
    }
}
