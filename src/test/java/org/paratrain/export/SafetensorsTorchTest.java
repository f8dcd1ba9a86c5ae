package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.paratrain.export.OnnxExportTest.cli;
import static org.paratrain.export.OnnxExportTest.join;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.PythonReference;
import org.paratrain.data.Columns;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;

/**
 * The acceptance of {@code paratrain export --format safetensors}: every model kind, trained
 * through the command line on real data and exported, loaded by PyTorch into the
 * {@code torch.nn.Sequential} its metadata describes with {@code load_state_dict(strict=True)}
 * ({@link TorchRun}), and run on the raw rows with the metadata's scaling, gives what
 * paratrain's own {@code predict} gives on the same file: probabilities or predictions within
 * 1e-9 (relative, each value) for F64 tensors, within 1e-5 of the largest value of their row
 * for F32 ({@link Comparison}), and the same labels. A network is trained in each precision and
 * exported as trained; a linear model, trained in float64, is exported in both. Then the shapes
 * that real data rarely reaches (those of {@link OnnxLayoutTest}: several channels, odd sizes,
 * no intercept, a CNN of dense layers) on random parameters, against paratrain's forward pass.
 * The table of the largest differences is printed at the end. Skipped where /usr/bin/python3
 * has no torch, unless {@code PARATRAIN_REQUIRE_TORCH} is set.
 */
class SafetensorsTorchTest {
    private static final Map<String, String> TABLE = new ConcurrentSkipListMap<>();

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        return OnnxExportTest.cases().filter(a -> !a.get()[1].equals("fashion-mnist"));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void torchPredictsWhatPredictPredicts(String name, String data, List<String> options) throws Exception {
        PythonReference.needTorch();
        boolean network = options.contains("mlp") || options.contains("mlp-regression") || options.contains("cnn");
        List<String> precisions = List.of("float64", "float32");
        List<TorchRun.Job> jobs = new ArrayList<>();
        List<ModelFile> models = new ArrayList<>();
        List<ExportData.Data> inputs = new ArrayList<>();
        for (String precision : precisions) {
            Path run = Files.createDirectories(dir.resolve(precision));
            ExportData.Data files = files(data);
            cli(join(List.of("train"), files.train(), options, network ? List.of("--precision", precision) : List.of(),
                List.of("--nodes", "2", "--out", run.toString())));
            Path model = run.resolve("model.json");
            Path out = run.resolve("model.safetensors");
            cli(join(List.of("export", "--model-file", model.toString(), "--format", "safetensors", "--out",
                out.toString()), network ? List.of() : List.of("--precision", precision)));
            ModelFile m = ModelFile.read(model);
            ExportData.Data rows = ExportData.csv(Path.of(files.train().get(3)), files.train().get(5),
                m.columns().features());
            jobs.add(new TorchRun.Job(precision, Files.readAllBytes(out), rows.rows()));
            models.add(m);
            inputs.add(files);
        }
        List<double[]> torch = TorchRun.run(dir, jobs);     // one Python process for both: torch takes seconds to import
        for (int j = 0; j < jobs.size(); j++) {
            ModelFile m = models.get(j);
            String precision = precisions.get(j);
            boolean logistic = m.spec() instanceof ModelSpec.Logistic;
            int n = jobs.get(j).rows().length / m.features();
            Comparison c = Comparison.of(torch.get(j), TorchRun.labels(torch.get(j), n, logistic),
                TorchRun.comparable(OnnxExportTest.predicted(m, inputs.get(j), dir.resolve(precision)), logistic));
            String what = name + " on " + data + ", " + precision + ": " + c;
            assertTrue(precision.equals("float64") ? c.relative() <= 1e-9 : c.row() <= 1e-5, what);
            assertEquals(0, c.labels(), what);
            TABLE.merge(name + " on " + data, String.format(Locale.ROOT, "%s %.2e (row %.2e, %d rows, %d bytes)",
                precision, c.relative(), c.row(), c.rows(), jobs.get(j).bytes().length), (a, b) -> a + " | " + b);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.paratrain.export.OnnxLayoutTest#models")
    void torchComputesWhatParatrainComputesInEveryShape(String name, ModelSpec spec, int features, int classes,
                                                        String scaling) throws IOException {
        PythonReference.needTorch();
        SplittableRandom r = new SplittableRandom(name.hashCode());
        boolean idx = scaling != null && scaling.contains("idx");
        int rows = 29;
        double[] params = new double[spec.newModel(features, classes).parameterCount()];
        for (int i = 0; i < params.length; i++) {
            params[i] = r.nextDouble(-1, 1);
        }
        double[] raw = new double[rows * features];
        double[] seen = new double[raw.length];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = idx ? r.nextInt(256) : r.nextDouble(-3, 5);
            seen[i] = idx ? raw[i] / 255.0 : raw[i];     // what IdxFormat makes of a pixel byte
        }
        Standardizer st = null;
        if (scaling != null && scaling.contains("standardize")) {
            st = new Standardizer(r.doubles(features, -1, 1).toArray(), r.doubles(features, 0.2, 3).toArray());
        }
        ModelFile file = new ModelFile(spec, features, classes, params, st, null, Columns.generated(features),
            idx ? DataSpec.Format.IDX : DataSpec.Format.CSV);
        boolean logistic = spec instanceof ModelSpec.Logistic;
        Comparison.Reference ref = TorchRun.comparable(Comparison.Reference.of(file, file.prepare(new Dataset(seen,
            new double[rows], rows, features))), logistic);
        List<TorchRun.Job> jobs = new ArrayList<>();
        for (Precision p : Precision.values()) {
            jobs.add(new TorchRun.Job(p.name(), SafetensorsExport.of(file).precision(p).bytes(), raw));
        }
        List<double[]> out = TorchRun.run(dir, jobs);
        for (int j = 0; j < jobs.size(); j++) {
            Comparison c = Comparison.of(out.get(j), TorchRun.labels(out.get(j), rows, logistic), ref);
            String what = name + " " + Precision.values()[j] + ": " + c;
            assertTrue(j == 0 ? c.relative() <= 1e-9 : c.row() <= 1e-5, what);
            assertEquals(0, c.labels(), what);
        }
    }

    @AfterAll
    static void printTable() {
        System.out.println("largest relative difference, PyTorch (load_state_dict strict) against paratrain predict, "
            + "value by value (and relative to the row's largest value), kind on data: F64 | F32");
        TABLE.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-32s %s%n", k, v));
    }

    private ExportData.Data files(String data) throws IOException, InterruptedException {
        return switch (data) {
            case "digits" -> ExportData.csv(ExportData.digitsCsv(dir), "target", List.of());
            case "iris" -> ExportData.csv(Path.of("src/test/resources/fixtures/iris.csv"), "species", List.of());
            default -> ExportData.csv(ExportData.fixtureCsv(data, dir), "target", List.of());
        };
    }
}
