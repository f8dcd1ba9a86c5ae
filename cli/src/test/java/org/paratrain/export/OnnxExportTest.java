package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.cli.Main;
import org.paratrain.experiment.ModelFile;

/**
 * The acceptance of {@code paratrain export --format onnx}: every model kind, trained through
 * the command line on real data, exported, and run by ONNX Runtime on the raw rows, gives
 * what paratrain's own {@code predict} gives on the same file: probabilities or predictions
 * within 1e-9 in a float64 graph (relative, each value), within 1e-5 of the largest value of
 * their row in a float32 one ({@link Comparison}), and the same labels. A network is trained in each precision and exported as trained; a linear model,
 * trained in float64, is exported in both. The table of the largest differences is printed
 * at the end.
 */
class OnnxExportTest {
    private static final Map<String, String> TABLE = new ConcurrentSkipListMap<>();

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<String> adam = List.of("--optimizer", "adam", "--lr", "0.01");
        return Stream.of(
            Arguments.of("01 linear", "diabetes", join(List.of("--model", "linear", "--standardize", "--epochs", "40",
                "--batch-size", "32"), adam)),
            Arguments.of("02 logistic", "breast_cancer", List.of("--model", "logistic", "--epochs", "30")),
            Arguments.of("03 softmax", "iris", List.of("--model", "softmax", "--epochs", "60")),
            Arguments.of("04 mlp relu", "iris", List.of("--model", "mlp", "--layers", "16", "--epochs", "60")),
            Arguments.of("05 mlp tanh", "iris", List.of("--model", "mlp", "--layers", "16,8", "--activation", "tanh",
                "--epochs", "60")),
            Arguments.of("06 mlp sigmoid", "breast_cancer", List.of("--model", "mlp", "--layers", "16",
                "--activation", "sigmoid", "--epochs", "30")),
            Arguments.of("07 mlp relu", "digits", List.of("--model", "mlp", "--layers", "64,32", "--epochs", "15")),
            Arguments.of("08 mlp-regression tanh", "diabetes", join(List.of("--model", "mlp-regression", "--layers",
                "16", "--activation", "tanh", "--epochs", "40"), adam)),
            Arguments.of("09 cnn", "digits", List.of("--model", "cnn", "--layers", "conv:8:3,pool:2,dense:32",
                "--image-shape", "8x8x1", "--epochs", "8")),
            Arguments.of("12 cnn dropout", "digits", List.of("--model", "cnn", "--layers",
                "dropout:0.1,conv:8:3,dropout:0.25,pool:2,dense:32,dropout:0.5", "--image-shape", "8x8x1", "--epochs",
                "8")),
            Arguments.of("14 cnn batchnorm", "digits", List.of("--model", "cnn", "--layers",
                "conv:8:3,batchnorm,pool:2,dense:32,batchnorm,dropout:0.2", "--image-shape", "8x8x1", "--optimizer",
                "adam", "--lr", "0.01", "--batch-size", "64", "--epochs", "4")),
            Arguments.of("13 mlp dropout", "iris", List.of("--model", "mlp", "--layers", "16,dropout:0.3,8,dropout:0.1",
                "--epochs", "60")),
            Arguments.of("10 mlp", "fashion-mnist", List.of("--model", "mlp", "--layers", "256", "--optimizer",
                "adam", "--lr", "0.001", "--batch-size", "256", "--block-size", "128", "--loss-reduction", "mean",
                "--epochs", "1")),
            Arguments.of("11 cnn", "fashion-mnist", List.of("--model", "cnn", "--layers",
                "conv:32:3,pool:2,conv:64:3,pool:2,dense:128", "--optimizer", "adam", "--lr", "0.001",
                "--batch-size", "256", "--block-size", "128", "--loss-reduction", "mean", "--epochs", "1")));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void onnxRuntimeGivesWhatPredictGives(String name, String data, List<String> options) throws Exception {
        boolean network = options.contains("mlp") || options.contains("mlp-regression") || options.contains("cnn");
        for (String precision : List.of("float64", "float32")) {
            Path run = dir.resolve(precision);
            ExportData.Data files = files(data);
            List<String> train = join(List.of("train"), files.train(), options, network ? List.of("--precision",
                precision) : List.of(), List.of("--nodes", "2", "--out", run.toString()));
            cli(train);
            Path model = run.resolve("model.json");
            Path onnx = run.resolve("model.onnx");
            cli(join(List.of("export", "--model-file", model.toString(), "--format", "onnx", "--out", onnx.toString()),
                network ? List.of() : List.of("--precision", precision)));
            ModelFile m = ModelFile.read(model);
            ExportData.Data rows = files.labels() != null ? files
                : ExportData.csv(Path.of(files.train().get(3)), files.train().get(5), m.columns().features());
            OrtRun ort = OrtRun.of(Files.readAllBytes(onnx), rows.rows(), rows.samples(), rows.features());
            Comparison c = Comparison.of(ort, predicted(m, files, run), Math.max(1, m.classes()));
            String what = name + " on " + data + ", " + precision + ": " + c;
            assertTrue(precision.equals("float64") ? c.relative() <= 1e-9 : c.row() <= 1e-5, what);
            assertEquals(0, c.labels(), what);
            assertEquals(m.spec().kind(), ort.metadata().get("paratrain_model"));
            assertTrue(ort.metadata().get("feature_names").startsWith("[\""), ort.metadata().toString());
            assertTrue(ort.metadata().get("trained_with").startsWith("paratrain "), ort.metadata().toString());
            String accuracy = files.labels() == null ? "" : accuracy(ort, files, model, run);
            TABLE.merge(name + " on " + data, String.format(Locale.ROOT, "%s %.2e (row %.2e, abs %.2e, %d rows, %d bytes)%s",
                precision, c.relative(), c.row(), c.absolute(), c.rows(), Files.size(onnx), accuracy), (a, b) -> a + " | " + b);
        }
    }

    @AfterAll
    static void printTable() {
        System.out.println("largest relative difference, ONNX Runtime against paratrain predict, value by value "
            + "(and relative to the row's largest value, and absolute), kind on data: float64 | float32");
        TABLE.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-32s %s%n", k, v));
    }

    private ExportData.Data files(String data) throws IOException, InterruptedException {
        return switch (data) {
            case "fashion-mnist" -> ExportData.fashion(dir, 4000, 1000);
            case "digits" -> ExportData.csv(ExportData.digitsCsv(dir), "target", List.of());
            case "iris" -> ExportData.csv(Path.of("core/src/test/resources/fixtures/iris.csv"), "species", List.of());
            default -> ExportData.csv(ExportData.fixtureCsv(data, dir), "target", List.of());
        };
    }

    /** What paratrain's predict writes for the data: the classes and probabilities, or the values. */
    static Comparison.Reference predicted(ModelFile m, ExportData.Data files, Path run) throws IOException {
        Path out = run.resolve("predicted.txt");
        cli(join(List.of("predict", "--model-file", run.resolve("model.json").toString()), files.predict(),
            List.of("--out", out.toString())));
        List<String> lines = Files.readAllLines(out);
        if (!m.spec().classifier()) {
            return new Comparison.Reference(null, lines.stream().mapToDouble(Double::parseDouble).toArray());
        }
        List<String> names = new ArrayList<>();
        for (int k = 0; k < m.classes(); k++) {
            names.add(m.className(k));
        }
        int[] classes = lines.stream().mapToInt(names::indexOf).toArray();
        Path proba = run.resolve("proba.csv");
        cli(join(List.of("predict", "--model-file", run.resolve("model.json").toString()), files.predict(),
            List.of("--proba", "--out", proba.toString())));
        double[] p = Files.readAllLines(proba).stream().skip(1).flatMap(l -> Stream.of(l.split(",")))
            .mapToDouble(Double::parseDouble).toArray();
        return new Comparison.Reference(classes, p);
    }

    /** ONNX Runtime's accuracy on the labelled images beside evaluate's, and that model.json says it read IDX. */
    private static String accuracy(OrtRun ort, ExportData.Data files, Path model, Path run) throws IOException {
        assertEquals("idx", new ObjectMapper().readTree(model.toFile()).get("data_format").asText());
        Path metrics = run.resolve("metrics.json");
        cli(join(List.of("evaluate", "--model-file", model.toString()), files.predict(), List.of("--out",
            metrics.toString())));
        double evaluate = new ObjectMapper().readTree(metrics.toFile()).get("accuracy").asDouble();
        int right = 0;
        for (int i = 0; i < files.samples(); i++) {
            right += ort.labels()[i] == files.labels()[i] ? 1 : 0;
        }
        double onnx = (double) right / files.samples();
        assertEquals(evaluate, onnx, 1e-12);
        return String.format(Locale.ROOT, ", test accuracy: ONNX Runtime %.2f%%, evaluate %.2f%%", 100 * onnx,
            100 * evaluate);
    }

    static void cli(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
        assertEquals(0, status, String.join(" ", args) + "\n" + out + err);
    }

    @SafeVarargs
    static List<String> join(List<String>... parts) {
        return Stream.of(parts).flatMap(List::stream).toList();
    }
}
