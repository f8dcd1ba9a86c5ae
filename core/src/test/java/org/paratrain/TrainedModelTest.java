package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.data.Dataset;
import org.paratrain.train.TrainingResult;

/** The library's trained model: its predictions against a hand computation, a save and load, many threads. */
class TrainedModelTest {
    @TempDir
    Path dir;

    /** Two well separated blobs in 2-D, labelled 0 and 1, and a third class far off. */
    private static double[][] rows(int n) {
        double[][] x = new double[n][];
        java.util.Random r = new java.util.Random(3);
        for (int i = 0; i < n; i++) {
            int c = i % 3;
            x[i] = new double[] {c * 4 + r.nextGaussian(), -c * 3 + r.nextGaussian()};
        }
        return x;
    }

    private static int[] classes(int n) {
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            y[i] = i % 3;
        }
        return y;
    }

    @Test
    void aLinearModelPredictsWDotX() {
        double[][] x = {{1, 2}, {2, 0}, {3, 1}, {0, 1}, {4, 3}};
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = 3 * x[i][0] - 2 * x[i][1] + 0.5;
        }
        Trainer t = Trainer.on(Datasets.of(x, y)).linear(true).meanLoss().gd(0.05).epochs(5000);
        TrainingResult r = t.run();
        TrainedModel m = TrainedModel.of(t, r);
        double[] w = r.params();
        double[] row = {1.5, -2.25};
        assertEquals(w[0] * row[0] + w[1] * row[1] + w[2], m.predict(row), 0.0);
        assertEquals(3 * 1.5 + 4.5 + 0.5, m.predict(row), 1e-6, "the closed form the data came from");
        assertThrows(IllegalStateException.class, () -> m.probabilities(row));
    }

    @Test
    void aClassifierSavesLoadsAndPredictsTheSameFromManyThreads() throws Exception {
        int n = 300;
        double[][] x = rows(n);
        TrainedModel m = Trainer.on(Datasets.ofClasses(x, classes(n))).softmax(3).fit()
            .withClassNames(List.of("a", "b", "c"));
        assertTrue(m.isClassifier());
        assertEquals(List.of("a", "b", "c"), m.classNames());
        double[] p = m.probabilities(x[5]);
        assertEquals(1.0, p[0] + p[1] + p[2], 1e-12);
        int argmax = p[0] >= p[1] && p[0] >= p[2] ? 0 : p[1] >= p[2] ? 1 : 2;
        assertEquals(argmax, (int) m.predict(x[5]));
        double[] all = m.predict(x);
        int right = 0;
        for (int i = 0; i < n; i++) {
            right += (int) all[i] == i % 3 ? 1 : 0;
        }
        assertTrue(right > 0.95 * n, right + " of " + n);

        Path f = dir.resolve("m.json");
        m.save(f);
        TrainedModel back = TrainedModel.load(f);
        assertArrayEquals(all, back.predict(x), 0.0);
        assertArrayEquals(p, back.probabilities(x[5]), 0.0);
        assertEquals(List.of("a", "b", "c"), back.classNames());
        assertTrue(Files.readString(f).contains("\"paratrain-model\""));

        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<double[]>> futures = new java.util.ArrayList<>();
            for (int k = 0; k < 8; k++) {
                futures.add(pool.submit(() -> back.predict(x)));
            }
            for (Future<double[]> fu : futures) {
                assertArrayEquals(all, fu.get(), 0.0);
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void theJsonBytesAreTheModelFileAndReadBackToTheSamePredictions(@TempDir Path dir) {
        int n = 300;
        double[][] x = rows(n);
        TrainedModel m = Trainer.on(Datasets.ofClasses(x, classes(n))).softmax(3).epochs(20).fit();
        byte[] json = m.toJson("test");
        TrainedModel back = TrainedModel.fromJson(json, "memory");
        Path saved = dir.resolve("model.json");
        m.save(saved);
        TrainedModel fromFile = TrainedModel.load(saved);
        for (double[] row : x) {
            assertArrayEquals(m.probabilities(row), back.probabilities(row));
            assertArrayEquals(fromFile.probabilities(row), back.probabilities(row));
        }
        org.paratrain.data.DataFormatException bad = assertThrows(org.paratrain.data.DataFormatException.class,
            () -> TrainedModel.fromJson("{\"format\": 3".getBytes(), "hdfs://x/model.json"));
        assertTrue(bad.getMessage().contains("model.json: not JSON"), bad.getMessage());
    }

    @Test
    void arraysAreCheckedAsTheyComeIn() {
        IllegalArgumentException ragged = assertThrows(IllegalArgumentException.class,
            () -> Datasets.of(new double[][] {{1, 2}, {3}}, new double[2]));
        assertEquals("row 1 has 1 features, row 0 has 2", ragged.getMessage());
        Dataset f = Datasets.of(new float[][] {{1.5f, 2}, {3, 4}}, new double[] {0, 1});
        assertArrayEquals(new double[] {1.5, 2, 3, 4}, f.x(), 0.0);
        assertThrows(IllegalArgumentException.class, () -> Datasets.ofClasses(new double[][] {{1}}, new int[] {-1}));
    }
}
