package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.PythonReference;

/**
 * The same samples in every format train to the same bits, at one rank and at two; the format
 * follows the file name when --format is not given; a model trained from one format is
 * evaluated on another; LibSVM rows are padded to the model's features.
 */
class DataFormatsCliTest {
    /**
     * 60 samples of 3 features as numpy writes them (float32, big-endian, Fortran order: every
     * conversion at once), and the same values as text with repr(), in each other format.
     */
    private static final String SAME_DATA = """
        import numpy as np
        rs = np.random.RandomState(5)
        X = np.asfortranarray((rs.standard_normal((60, 3)) * [1, 10, 0.1]).astype('>f4'))
        t = X.astype(np.float64) @ [0.5, -0.25, 2.0] + rs.standard_normal(60) * 0.1
        c = rs.randint(0, 3, size=60).astype('<u1')
        for name, y in [('t', t), ('c', c)]:
            np.save('X.npy', X)
            np.save(name + '.npy', y)
            np.savez_compressed(name + '.npz', X=X, y=y)
            r = lambda v: repr(float(v))
            open('X.in', 'w').write(''.join(' '.join(r(v) for v in row) + '\\n' for row in X))
            open(name + '.in', 'w').write(''.join(r(v) + '\\n' for v in y))
            open(name + '.csv', 'w').write('a,b,c,target\\n' + ''.join(','.join(r(v) for v in row) + ',' + r(l)
                + '\\n' for row, l in zip(X, y)))
            open(name + '.svm', 'w').write(''.join(r(l) + ' ' + ' '.join('%d:%s' % (j + 1, r(v))
                for j, v in enumerate(row) if v != 0) + '\\n' for row, l in zip(X, y)))
        """;

    @TempDir
    Path dir;

    @Test
    void everyFormatTrainsToTheSameBitsAtOneAndTwoRanks() throws IOException {
        PythonReference.needNumpy();
        PythonReference.run(dir, SAME_DATA);
        for (String labels : List.of("t", "c")) {
            String[] model = labels.equals("t") ? new String[] {"--loss-reduction", "mean", "--lr", "0.001"}
                : new String[] {"--model", "softmax", "--intercept", "--loss-reduction", "mean", "--lr", "0.01"};
            List<String[]> inputs = List.of(
                new String[] {"--data", f("X.in"), "--labels", f(labels + ".in")},
                new String[] {"--data", f("X.npy"), "--labels", f(labels + ".npy")},
                new String[] {"--data", f(labels + ".npz")},
                new String[] {"--data", f(labels + ".csv"), "--label", "target"},
                new String[] {"--data", f(labels + ".svm")});
            Object reference = null;
            for (String[] input : inputs) {
                for (String nodes : List.of("1", "2")) {
                    Path out = dir.resolve(labels + "-" + Path.of(input[1]).getFileName() + "-" + nodes);
                    List<String> args = new ArrayList<>(List.of("train", "--epochs", "20", "--nodes", nodes, "--out",
                        out.toString()));
                    args.addAll(List.of(input));
                    args.addAll(List.of(model));
                    CliTest.Run r = CliTest.run(args.toArray(String[]::new));
                    assertEquals(0, r.status(), String.join(" ", args) + ": " + r.err());
                    Object params = new ObjectMapper().readValue(out.resolve("model.json").toFile(), Map.class)
                        .get("params");
                    if (reference == null) {
                        reference = params;
                    }
                    assertEquals(reference, params, String.join(" ", args));
                }
            }
        }
    }

    @Test
    void aModelTrainedFromOneFormatEvaluatesOnAnyOther() throws IOException {
        PythonReference.needNumpy();
        PythonReference.run(dir, SAME_DATA);
        Path out = dir.resolve("run");
        assertEquals(0, CliTest.run("train", "--data", f("c.npz"), "--model", "softmax", "--intercept", "--epochs",
            "20", "--loss-reduction", "mean", "--lr", "0.01", "--out", out.toString()).status());
        String model = out.resolve("model.json").toString();
        String reference = null;
        for (String[] data : List.of(new String[] {"--data", f("c.svm")}, new String[] {"--data", f("c.csv"),
            "--label", "target"}, new String[] {"--data", f("X.npy"), "--labels", f("c.npy")},
            new String[] {"--data", f("X.in"), "--labels", f("c.in")}, new String[] {"--data", f("c.npz")})) {
            List<String> args = new ArrayList<>(List.of("evaluate", "--model-file", model));
            args.addAll(List.of(data));
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(0, r.status(), r.err());
            String metrics = r.out().substring(r.out().indexOf('\n'));     // after "softmax on 60 samples of FILE:"
            reference = reference == null ? metrics : reference;
            assertEquals(reference, metrics, String.join(" ", args));
        }
    }

    @Test
    void libsvmRowsShortOfTheModelArePaddedToItsFeatures() throws IOException {
        Files.writeString(dir.resolve("train.svm"), "1 1:1 4:2\n0 2:1 3:-1\n1 1:2 4:1\n0 3:-2\n");
        Files.writeString(dir.resolve("short.svm"), "1 1:1\n0 2:1 # no feature past 2\n");
        Files.writeString(dir.resolve("long.svm"), "1 1:1\n0 2:1 5:3\n");
        Path out = dir.resolve("run");
        CliTest.Run t = CliTest.run("train", "--data", f("train.svm"), "--model", "logistic", "--epochs", "5",
            "--out", out.toString());
        assertEquals(0, t.status(), t.err());
        String model = out.resolve("model.json").toString();
        CliTest.Run e = CliTest.run("evaluate", "--model-file", model, "--data", f("short.svm"));
        assertEquals(0, e.status(), e.err());
        assertTrue(e.out().contains("2 samples"), e.out());
        CliTest.Run p = CliTest.run("predict", "--model-file", model, "--data", f("short.svm"));
        assertEquals(0, p.status(), p.err());
        assertEquals(2, p.out().lines().count(), p.out());
        CliTest.Run bad = CliTest.run("predict", "--model-file", model, "--data", f("long.svm"));
        assertEquals(1, bad.status());
        assertTrue(bad.err().contains("long.svm:2: feature index 5 is beyond the 4 features of the model (" + model
            + ")"), bad.err());
        CliTest.Run wide = CliTest.run("train", "--data", f("train.svm"), "--n-features", "6", "--model", "logistic",
            "--epochs", "5", "--out", dir.resolve("wide").toString());
        assertEquals(0, wide.status(), wide.err());
        assertTrue(wide.out().contains("6 features"), wide.out());
        // result.json (and so a checkpoint's fingerprint) says how the file was read where an option said it.
        Map<?, ?> data = (Map<?, ?>) new ObjectMapper().readValue(dir.resolve("wide/result.json").toFile(), Map.class)
            .get("data");
        assertEquals(6, data.get("n_features"));
        assertEquals("auto", data.get("zero_based"));
        Map<?, ?> plain = (Map<?, ?>) new ObjectMapper().readValue(out.resolve("result.json").toFile(), Map.class)
            .get("data");
        assertEquals("libsvm", plain.get("format"));
        assertTrue(!plain.containsKey("n_features"), plain.toString());
    }

    @Test
    void theFileNameChoosesTheFormatAndFormatOverridesIt() throws IOException {
        Files.writeString(dir.resolve("d.csv"), "a,b,target\n1,2,x\n2,1,y\n3,3,x\n0,1,y\n");
        CliTest.Run csv = CliTest.run("train", "--data", f("d.csv"), "--label", "target", "--model", "softmax",
            "--epochs", "3");
        assertEquals(0, csv.status(), csv.err());
        Files.writeString(dir.resolve("d.tsv"), "a\tb\ttarget\n1\t2\tx\n2\t1\ty\n3\t3\tx\n");
        CliTest.Run tsv = CliTest.run("train", "--data", f("d.tsv"), "--model", "softmax", "--epochs", "3");
        assertEquals(0, tsv.status(), tsv.err());
        // A paper-format file named .csv: --format paper reads it as what it is.
        Files.writeString(dir.resolve("paper.csv"), "1 2\n3 4\n5 6\n");
        Files.writeString(dir.resolve("y.in"), "1\n2\n3\n");
        CliTest.Run paper = CliTest.run("train", "--format", "paper", "--data", f("paper.csv"), "--labels", f("y.in"),
            "--epochs", "3");
        assertEquals(0, paper.status(), paper.err());
        CliTest.Run inferred = CliTest.run("train", "--data", f("paper.csv"), "--labels", f("y.in"), "--epochs", "3");
        assertEquals(2, inferred.status());
        assertTrue(inferred.err().contains("--labels has no effect with --format csv (taken from the name of "
            + f("paper.csv") + "; --format chooses another)"), inferred.err());
    }

    private String f(String name) {
        return dir.resolve(name).toString();
    }
}
