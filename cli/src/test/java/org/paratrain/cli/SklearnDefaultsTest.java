package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Defaults that train: scikit-learn's bundled data sets, written by pandas ({@code df.to_csv()},
 * index column and all), trained with no tuning flag at 2 ranks, reach at least scikit-learn's
 * default {@code LogisticRegression} (for softmax and logistic regression) or
 * {@code MLPClassifier} (for the MLP) on the same split, less 2 points. scikit-learn fits the
 * reference in a Python process here; the test skips where it is missing, unless
 * {@code PARATRAIN_REQUIRE_SKLEARN} is set (as in CI).
 */
class SklearnDefaultsTest {
    private static final String PYTHON = "/usr/bin/python3";

    /** Writes NAME.csv as pandas does and prints scikit-learn's test accuracy on paratrain's split. */
    private static final String REFERENCE = String.join("\n",
        "import math, sys, warnings",
        "import numpy as np",
        "from sklearn import datasets",
        "from sklearn.linear_model import LogisticRegression",
        "from sklearn.neural_network import MLPClassifier",
        "warnings.filterwarnings('ignore')",
        "name, out = sys.argv[1], sys.argv[2]",
        "df = getattr(datasets, 'load_' + name)(as_frame=True).frame",
        "df.to_csv(out)",
        "X = df.drop(columns='target').values; y = df['target'].values",
        "n = len(y); held = math.ceil(0.25 * n)",
        "perm = np.random.RandomState(42).permutation(n)",     // paratrain's --test-fraction split, --seed 42
        "test, train = perm[:held], perm[held:]",
        "ref = MLPClassifier(random_state=0) if sys.argv[3] == 'mlp' else LogisticRegression()",
        "print(ref.fit(X[train], y[train]).score(X[test], y[test]))");

    @ParameterizedTest
    @CsvSource({"iris, softmax", "wine, softmax", "breast_cancer, logistic", "digits, softmax", "iris, mlp", "wine, mlp",
        "breast_cancer, mlp", "digits, mlp"})
    void noTuningFlagsReachScikitLearnsDefaults(String name, String model, @org.junit.jupiter.api.io.TempDir
        Path dir) throws Exception {
        Path csv = dir.resolve(name + ".csv");
        double reference = reference(name, csv, model);
        CliTest.Run r = CliTest.run("train", "--data", csv.toString(), "--format", "csv", "--label", "target",
            "--model", model, "--test-fraction", "0.25", "--nodes", "2", "--quiet", "--out", dir.resolve("run").toString());
        assertEquals(0, r.status(), r.err());
        double ours = new ObjectMapper().readTree(dir.resolve("run/result.json").toFile()).get("test_metrics")
            .get("accuracy").asDouble();
        System.out.printf(java.util.Locale.ROOT, "%-14s %-9s paratrain %.2f%%  scikit-learn %.2f%%%n", name, model,
            100 * ours, 100 * reference);
        assertTrue(ours >= reference - 0.02, name + ": " + ours + " against scikit-learn's " + reference);
    }

    private static double reference(String name, Path csv, String model) throws IOException, InterruptedException {
        boolean present = Files.isExecutable(Path.of(PYTHON)) && new ProcessBuilder(PYTHON, "-c",
            "import sklearn, pandas").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start().waitFor() == 0;
        if (!present && System.getenv("PARATRAIN_REQUIRE_SKLEARN") != null) {
            fail("PARATRAIN_REQUIRE_SKLEARN is set, but " + PYTHON + " has no scikit-learn or pandas");
        }
        Assumptions.assumeTrue(present, "scikit-learn and pandas are not installed for " + PYTHON);
        Process p = new ProcessBuilder(PYTHON, "-c", REFERENCE, name, csv.toString(), model).redirectErrorStream(true)
            .start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        return Double.parseDouble(out.substring(out.lastIndexOf('\n') + 1));
    }
}
