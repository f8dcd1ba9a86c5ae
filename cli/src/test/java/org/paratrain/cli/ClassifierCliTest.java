package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.data.ClassNames;
import org.paratrain.data.Dataset;
import org.paratrain.data.MakeClassification;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.data.PaperFormat;
import org.paratrain.experiment.ModelFile;

/**
 * The iris CSV that Python's csv module wrote (every field quoted, species by name) trained
 * at 2 ranks, then predict --proba and evaluate on it by class name; LibSVM's -1/+1; and
 * generate classification.
 */
class ClassifierCliTest {
    static final Path IRIS = Path.of("core/src/test/resources/fixtures/iris.csv");

    @TempDir
    static Path dir;

    static Path model;

    @BeforeAll
    static void trainIrisAtTwoRanks() {
        CliTest.Run r = CliTest.run("train", "--format", "csv", "--data", IRIS.toString(), "--label", "species",
            "--model", "softmax", "--intercept", "--standardize", "--optimizer", "adam", "--lr", "0.05",
            "--loss-reduction", "mean", "--epochs", "300", "--nodes", "2", "--out", dir.resolve("iris").toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("trained softmax on 150 samples x 4 features: 2 nodes"), r.out());
        model = dir.resolve("iris/model.json");
    }

    @Test
    void classNamesRoundTripThroughModelJson() throws IOException {
        JsonNode json = new ObjectMapper().readTree(model.toFile());
        assertEquals("[\"setosa\",\"versicolor\",\"virginica\"]", json.get("class_names").toString());
        ModelFile m = ModelFile.read(model);
        assertEquals(new ClassNames(List.of("setosa", "versicolor", "virginica")), m.classNames());
        assertEquals("virginica", m.className(2));
    }

    @Test
    void probabilitiesSumToOneAndAreTheModelsSoftmax() throws IOException {
        Path out = dir.resolve("proba.csv");
        CliTest.Run r = CliTest.run("predict", "--model-file", model.toString(), "--format", "csv", "--data",
            IRIS.toString(), "--proba", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        List<String> lines = Files.readAllLines(out);
        assertEquals("setosa,versicolor,virginica", lines.get(0));
        assertEquals(151, lines.size());
        ModelFile m = ModelFile.read(model);
        Dataset iris = m.prepare(PaperFormat.readFeatures(irisFeatures()));
        for (int i = 0; i < 150; i++) {
            double[] p = java.util.Arrays.stream(lines.get(i + 1).split(",")).mapToDouble(Double::parseDouble).toArray();
            assertEquals(1.0, p[0] + p[1] + p[2], 1e-12, "row " + (i + 1));
            assertArrayEquals(softmax(m.params(), iris, i), p, 1e-12, "row " + (i + 1));
        }
    }

    /** The softmax of W x + b, from the parameters as the model file lays them out (W by class, then b). */
    private static double[] softmax(double[] params, Dataset d, int i) {
        double[] z = new double[3];
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < 3; k++) {
            z[k] = params[12 + k];
            for (int j = 0; j < 4; j++) {
                z[k] += params[k * 4 + j] * d.x(i, j);
            }
            max = Math.max(max, z[k]);
        }
        double sum = 0;
        for (int k = 0; k < 3; k++) {
            z[k] = Math.exp(z[k] - max);
            sum += z[k];
        }
        for (int k = 0; k < 3; k++) {
            z[k] /= sum;
        }
        return z;
    }

    /** The iris features as a paper-format X file, read independently of the CSV reader. */
    private static Path irisFeatures() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String line : Files.readAllLines(IRIS).subList(1, 151)) {
            String[] f = line.replace("\"", "").split(",");
            sb.append(String.join(" ", f[0], f[1], f[2], f[3])).append('\n');
        }
        return Files.writeString(dir.resolve("iris-X.in"), sb);
    }

    @Test
    void predictNamesClassesAndEvaluateWritesNamedMetrics() throws IOException {
        Path pred = dir.resolve("pred.txt");
        assertEquals(0, CliTest.run("predict", "--model-file", model.toString(), "--format", "csv", "--data",
            IRIS.toString(), "--out", pred.toString()).status());
        List<String> classes = Files.readAllLines(pred);
        assertEquals("setosa", classes.get(0));
        assertTrue(classes.stream().allMatch(c -> List.of("setosa", "versicolor", "virginica").contains(c)));
        Path json = dir.resolve("metrics.json");
        CliTest.Run r = CliTest.run("evaluate", "--model-file", model.toString(), "--format", "csv", "--data",
            IRIS.toString(), "--out", json.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("confusion matrix") && r.out().contains("versicolor"), r.out());
        JsonNode m = new ObjectMapper().readTree(json.toFile());
        assertTrue(m.get("accuracy").asDouble() > 0.95, m.toString());
        assertEquals("virginica", m.get("per_class").get(2).get("class").asText());
        assertEquals(50, m.get("per_class").get(0).get("support").asInt());
        long diagonal = 0;
        for (int k = 0; k < 3; k++) {
            diagonal += m.get("confusion_matrix").get(k).get(k).asLong();
        }
        assertEquals(m.get("accuracy").asDouble(), diagonal / 150.0, 1e-15);
    }

    @Test
    void aLabelTheModelDoesNotKnowIsRefusedWithFileAndLine() throws IOException {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(IRIS));
        lines.set(5, lines.get(5).replace("setosa", "daisy"));
        Path f = Files.write(dir.resolve("daisy.csv"), lines);
        // predict reads the model's features by name and ignores the label column, saying so
        CliTest.Run p = CliTest.run("predict", "--model-file", model.toString(), "--format", "csv", "--data",
            f.toString(), "--out", dir.resolve("p.out").toString());
        assertEquals(0, p.status(), p.err());
        assertTrue(p.err().contains("ignored 1 column that is not among the features: species"), p.err());
        for (String command : List.of("evaluate")) {
            CliTest.Run r = CliTest.run(command, "--model-file", model.toString(), "--format", "csv", "--data",
                f.toString(), "--out", dir.resolve(command + ".out").toString());
            assertEquals(1, r.status(), command);
            assertTrue(r.err().contains(f + ":6: label 'daisy' is not a class the model knows (setosa, versicolor, "
                + "virginica)"), r.err());
            assertTrue(Files.notExists(dir.resolve(command + ".out")), "nothing half-written");
        }
    }

    @Test
    void libsvmMinusOnePlusOneTrainsLogisticAndNamesTheClasses() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            sb.append(i % 2 == 0 ? "-1" : "+1").append(" 1:").append(i % 2 == 0 ? -1 - i * 0.01 : 1 + i * 0.01)
                .append('\n');
        }
        Path svm = Files.writeString(dir.resolve("d.svm"), sb);
        Path out = dir.resolve("svm");
        CliTest.Run r = CliTest.run("train", "--format", "libsvm", "--data", svm.toString(), "--model", "logistic",
            "--intercept", "--lr", "0.1", "--epochs", "50", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertEquals(List.of("-1", "+1"), ModelFile.read(out.resolve("model.json")).classNames().names());
        Path pred = dir.resolve("svm.txt");
        assertEquals(0, CliTest.run("predict", "--model-file", out.resolve("model.json").toString(), "--format",
            "libsvm", "--data", svm.toString(), "--out", pred.toString()).status());
        assertEquals(List.of("-1", "+1", "-1"), Files.readAllLines(pred).subList(0, 3));
        CliTest.Run e = CliTest.run("evaluate", "--model-file", out.resolve("model.json").toString(), "--format",
            "libsvm", "--data", svm.toString());
        assertTrue(e.out().contains("roc_auc 1.0000"), e.out());
    }

    @Test
    void generateClassificationWritesScikitLearnsNumbersAndACsv() throws IOException {
        Path data = dir.resolve("gen");
        Path csv = dir.resolve("gen.csv");
        CliTest.Run r = CliTest.run("generate", "classification", "--samples", "120", "--features", "10",
            "--informative", "4", "--redundant", "3", "--repeated", "2", "--classes", "4", "--weights", "0.1,0.2,0.3",
            "--flip-y", "0.1", "--class-sep", "2", "--random-state", "7", "--out", data.toString(), "--csv",
            csv.toString());
        assertEquals(0, r.status(), r.err());
        Dataset d = PaperFormat.read(data.resolve("X.in"), data.resolve("y.in"));
        Dataset ref = new MakeClassification(120, 10, 4, 3, 2, 4, 2, new double[] {0.1, 0.2, 0.3}, 0.1, 2.0, true,
            0.0, 1.0, true).generate(new NumpyRandomState(7));
        assertArrayEquals(ref.x(), d.x(), 0.0);
        assertArrayEquals(ref.y(), d.y(), 0.0);
        assertEquals("x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,class", Files.readAllLines(csv).get(0));
        CliTest.Run bad = CliTest.run("generate", "classification", "--informative", "1", "--out", data.toString());
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("2^--informative"), bad.err());
    }

    @Test
    void csvOptionsAreCheckedBeforeAnyFileIsRead() {
        CliTest.Run twoChars = CliTest.run("train", "--format", "csv", "--data", "missing.csv", "--delimiter", ";;");
        assertEquals(2, twoChars.status());
        assertTrue(twoChars.err().contains("--delimiter must be one character"), twoChars.err());
        CliTest.Run paper = CliTest.run("evaluate", "--model-file", model.toString(), "--x", "a", "--y", "b",
            "--no-header");
        assertEquals(2, paper.status());
        assertTrue(paper.err().contains("--no-header has no effect with --format paper"), paper.err());
    }

    @Test
    void damagedClassNamesAreRefused() throws IOException {
        String json = Files.readString(model).replace("\"virginica\" ]", "\"setosa\" ]");
        Path bad = Files.writeString(dir.resolve("bad-model.json"), json);
        CliTest.Run r = CliTest.run("predict", "--model-file", bad.toString(), "--format", "csv", "--data",
            IRIS.toString(), "--out", dir.resolve("x.txt").toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("names a class twice"), r.err());
    }
}
