package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.experiment.ModelFile;

/**
 * {@code --sample-weight} from the command line: a CSV column of weights trains as the
 * samples written that many times would (linear regression, against the duplicated file, and
 * with an intercept against scikit-learn's weighted least squares),
 * is not a feature of the model, is recorded, and needs no column in the test file; and a
 * CNN with sample and class weights, label smoothing, dropout, batch normalisation and
 * clipping together gives the same model at 1, 2, 3 and 5 local ranks and on 2 MPI
 * processes (and 4 ranks as 2 x 2), full batch and mini-batch.
 */
class SampleWeightCliTest {
    @TempDir
    Path dir;

    /** A regression table of 3 features, its weights (0 to 3) in column "wt", and the same rows written that often. */
    private void regression() throws IOException {
        Random r = new Random(4);
        StringBuilder weighted = new StringBuilder("a,wt,b,c,y\n");
        StringBuilder copies = new StringBuilder("a,b,c,y\n");
        for (int i = 0; i < 80; i++) {
            double a = r.nextGaussian();
            double b = r.nextGaussian();
            double c = r.nextGaussian();
            double y = 1.5 * a - 2 * b + 0.5 * c + 0.3 * r.nextGaussian();
            int w = i < 4 ? i : r.nextInt(4);
            weighted.append(a).append(',').append(w).append(',').append(b).append(',').append(c).append(',').append(y)
                .append('\n');
            for (int k = 0; k < w; k++) {
                copies.append(a).append(',').append(b).append(',').append(c).append(',').append(y).append('\n');
            }
        }
        Files.writeString(dir.resolve("weighted.csv"), weighted);
        Files.writeString(dir.resolve("copies.csv"), copies);
        Files.writeString(dir.resolve("test.csv"), copies.toString().lines().limit(21).reduce("", (s, l) -> s + l + "\n"));
    }

    @Test
    void weightsTrainAsCopiesAndAreNoFeature() throws IOException {
        regression();
        Path w = dir.resolve("w");
        Path c = dir.resolve("c");
        for (List<String> run : List.of(List.of("--data", dir.resolve("weighted.csv").toString(), "--sample-weight", "wt",
            "--out", w.toString()), List.of("--data", dir.resolve("copies.csv").toString(), "--out", c.toString()))) {
            List<String> args = new ArrayList<>(List.of("train", "--model", "linear", "--label", "y", "--epochs", "200",
                "--lr", "0.002", "--nodes", "3", "--test-data", dir.resolve("test.csv").toString(), "--quiet"));
            args.addAll(run);
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(0, r.status(), r.err());
        }
        ModelFile weighted = ModelFile.read(w.resolve("model.json"));
        ModelFile copies = ModelFile.read(c.resolve("model.json"));
        assertEquals(List.of("a", "b", "c"), weighted.columns().features(), "the weights are not a feature");
        assertArrayEquals(copies.params(), weighted.params(), 1e-9);
        JsonNode result = new ObjectMapper().readTree(w.resolve("result.json").toFile());
        assertEquals("wt", result.get("data").get("sample_weight").asText());
        JsonNode plain = new ObjectMapper().readTree(c.resolve("result.json").toFile());
        assertFalse(plain.get("data").has("sample_weight"));
        // The test file needs no weights column: both runs are measured on it, and (their models being
        // the same to 1e-9) alike.
        assertEquals(plain.get("test_metrics").get("mse").asDouble(), result.get("test_metrics").get("mse").asDouble(),
            1e-9 * plain.get("test_metrics").get("mse").asDouble());
    }

    @Test
    void weightedLinearRegressionReachesScikitLearnsWeightedFit() throws Exception {
        String python = "/usr/bin/python3";
        boolean present = Files.isExecutable(Path.of(python)) && new ProcessBuilder(python, "-c", "import sklearn")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        if (!present && System.getenv("PARATRAIN_REQUIRE_SKLEARN") != null) {
            org.junit.jupiter.api.Assertions.fail("PARATRAIN_REQUIRE_SKLEARN is set, but " + python
                + " has no scikit-learn");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(present, "no scikit-learn");
        regression();
        Path w = dir.resolve("w");
        CliTest.Run r = CliTest.run("train", "--data", dir.resolve("weighted.csv").toString(), "--sample-weight", "wt",
            "--model", "linear", "--intercept", "--label", "y", "--optimizer", "gd", "--lr", "0.002", "--epochs",
            "20000", "--nodes",
            "3", "--quiet", "--out", w.toString());
        assertEquals(0, r.status(), r.err());
        double[] params = ModelFile.read(w.resolve("model.json")).params();
        // The reference: scikit-learn's weighted least squares, coefficients then intercept.
        Process p = new ProcessBuilder(python, "-c", "import sys, numpy as np\n"
            + "from sklearn.linear_model import LinearRegression\n"
            + "d = np.genfromtxt(sys.argv[1], delimiter=',', names=True)\n"
            + "X = np.column_stack([d['a'], d['b'], d['c']])\n"
            + "m = LinearRegression().fit(X, d['y'], sample_weight=d['wt'])\n"
            + "print(' '.join(repr(float(v)) for v in list(m.coef_) + [m.intercept_]))\n",
            dir.resolve("weighted.csv").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), out);
        double[] reference = java.util.Arrays.stream(out.split(" ")).mapToDouble(Double::parseDouble).toArray();
        assertEquals(reference.length, params.length, "3 weights and an intercept: " + java.util.Arrays.toString(params));
        assertArrayEquals(reference, params, 1e-6, "scikit-learn " + out + " against "
            + java.util.Arrays.toString(params));
    }

    /** 8x8 bars as a CSV: 64 pixels, a weight column, a label; most samples of class 0, which weighs less. */
    private void bars() throws IOException {
        Random r = new Random(5);
        StringBuilder s = new StringBuilder();
        for (int j = 0; j < 64; j++) {
            s.append('p').append(j).append(',');
        }
        s.append("weight,label\n");
        for (int i = 0; i < 240; i++) {
            int label = r.nextInt(5) < 3 ? 0 : 1 + r.nextInt(2);
            int at = r.nextInt(4) + 2;
            double[] px = new double[64];
            for (int j = 0; j < 64; j++) {
                px[j] = r.nextInt(80);
            }
            for (int t = 1; t < 7; t++) {
                px[label == 0 ? at * 8 + t : label == 1 ? t * 8 + at : t * 8 + t] = 160 + r.nextInt(96);
            }
            for (double p : px) {
                s.append((int) p).append(',');
            }
            s.append(label == 0 ? 0.25 + r.nextInt(4) * 0.25 : 1 + r.nextInt(3) * 0.5).append(',').append(label)
                .append('\n');
        }
        Files.writeString(dir.resolve("bars.csv"), s);
    }

    private ModelFile cnn(String batch, String weights, List<String> where) throws IOException {
        Path out = dir.resolve("cnn-" + batch + "-" + weights + String.join("", where).replace("-", ""));
        List<String> args = new ArrayList<>(List.of("train", "--data", dir.resolve("bars.csv").toString(), "--label",
            "label", "--model", "cnn", "--image-shape", "8x8x1", "--layers",
            "conv:4:3,batchnorm,pool:2,dense:8,batchnorm,dropout:0.2", "--precision", "float32", "--optimizer", "adam",
            "--lr", "0.01", "--batch-size", batch, "--block-size", "20", "--epochs", batch.equals("0") ? "8" : "3",
            "--clip-norm", "1", "--class-weight", "balanced", "--label-smoothing", "0.1", "--seed", "3", "--quiet",
            "--out", out.toString()));
        args.addAll(weights.equals("weighted") ? List.of("--sample-weight", "weight") : List.of("--drop-columns",
            "weight"));
        args.addAll(where);
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), where + ": " + r.err());
        return ModelFile.read(out.resolve("model.json"));
    }

    @Test
    void everythingTogetherKeepsTheBitsOnLocalRanks() throws IOException {
        bars();
        for (String batch : List.of("0", "60")) {
            ModelFile one = cnn(batch, "weighted", List.of("--nodes", "1"));
            assertEquals(64, one.features());
            assertFalse(Arrays.equals(one.params(), cnn(batch, "plain", List.of("--nodes", "1")).params()),
                "batch " + batch + ": the weights change training");
            for (String n : List.of("2", "3", "5")) {
                assertArrayEquals(one.params(), cnn(batch, "weighted", List.of("--nodes", n)).params(), 0.0,
                    "batch " + batch + ", " + n + " ranks");
            }
            assertArrayEquals(one.params(), cnn(batch, "weighted", List.of("--nodes", "3", "--allreduce",
                "master-worker")).params(), 0.0, "batch " + batch + ", master-worker");
        }
    }

    @Test
    void everythingTogetherKeepsTheBitsOnMpiRanks() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        bars();
        for (String batch : List.of("0", "60")) {
            ModelFile one = cnn(batch, "weighted", List.of("--nodes", "1"));
            for (List<String> w : List.of(List.of("--backend", "mpi", "--nodes", "2"),
                List.of("--backend", "mpi", "--nodes", "4", "--ranks-per-process", "2"))) {
                assertArrayEquals(one.params(), cnn(batch, "weighted", w).params(), 0.0, "batch " + batch + ", " + w);
            }
        }
    }
}
