package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertAll;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;
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

    /**
     * Every case trained and exported in both precisions, then one Python process for all of
     * them (importing torch takes seconds), then each compared, every failure reported.
     */
    @Test
    void torchPredictsWhatPredictPredicts() throws Exception {
        PythonReference.needTorch();
        List<TorchRun.Job> jobs = new ArrayList<>();
        List<Runnable> checks = new ArrayList<>();
        List<double[][]> outputs = new ArrayList<>();     // filled once Python has run
        for (Arguments a : cases().toList()) {
            String name = (String) a.get()[0];
            String data = (String) a.get()[1];
            @SuppressWarnings("unchecked")
            List<String> options = (List<String>) a.get()[2];
            boolean network = options.contains("mlp") || options.contains("mlp-regression") || options.contains("cnn");
            for (String precision : List.of("float64", "float32")) {
                String stem = (name + " " + precision).replaceAll("\\W", "_");
                Path run = Files.createDirectories(dir.resolve(stem));
                ExportData.Data files = files(data);
                cli(join(List.of("train"), files.train(), options, network ? List.of("--precision", precision)
                    : List.of(), List.of("--nodes", "2", "--out", run.toString())));
                Path model = run.resolve("model.json");
                Path out = run.resolve("model.safetensors");
                cli(join(List.of("export", "--model-file", model.toString(), "--format", "safetensors", "--out",
                    out.toString()), network ? List.of() : List.of("--precision", precision)));
                ModelFile m = ModelFile.read(model);
                ExportData.Data rows = ExportData.csv(Path.of(files.train().get(3)), files.train().get(5),
                    m.columns().features());
                int job = jobs.size();
                jobs.add(new TorchRun.Job(stem, Files.readAllBytes(out), rows.rows()));
                boolean logistic = m.spec() instanceof ModelSpec.Logistic;
                Comparison.Reference ref = TorchRun.comparable(OnnxExportTest.predicted(m, files, run), logistic);
                checks.add(() -> {
                    double[] torch = outputs.getFirst()[job];
                    Comparison c = Comparison.of(torch, TorchRun.labels(torch, rows.samples(), logistic), ref);
                    String what = name + " on " + data + ", " + precision + ": " + c;
                    TABLE.merge(name + " on " + data, String.format(Locale.ROOT, "%s %.2e (row %.2e, %d rows, %d "
                        + "bytes)", precision, c.relative(), c.row(), c.rows(), jobs.get(job).bytes().length),
                        (x, y) -> x + " | " + y);
                    assertTrue(precision.equals("float64") ? c.relative() <= 1e-9 : c.row() <= 1e-5, what);
                    assertEquals(0, c.labels(), what);
                });
            }
        }
        outputs.add(TorchRun.run(dir, jobs).toArray(double[][]::new));
        assertAll(checks.stream().map(c -> (Executable) c::run));
    }

    /** The shapes of {@link OnnxLayoutTest} on random parameters, in both precisions, in one Python process. */
    @Test
    void torchComputesWhatParatrainComputesInEveryShape() throws IOException {
        PythonReference.needTorch();
        List<TorchRun.Job> jobs = new ArrayList<>();
        List<Comparison.Reference> refs = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Boolean> logistics = new ArrayList<>();
        for (Arguments a : OnnxLayoutTest.models().toList()) {
            Object[] g = a.get();
            String name = (String) g[0];
            ModelSpec spec = (ModelSpec) g[1];
            ModelFile file = randomModel(name, spec, (Integer) g[2], (Integer) g[3], (String) g[4]);
            boolean logistic = spec instanceof ModelSpec.Logistic;
            Comparison.Reference ref = TorchRun.comparable(Comparison.Reference.of(file, file.prepare(new Dataset(
                seen(file), new double[ROWS], ROWS, file.features()))), logistic);
            for (Precision p : Precision.values()) {
                jobs.add(new TorchRun.Job(name.replaceAll("\\W", "_") + "_" + p, SafetensorsExport.of(file).precision(p)
                    .bytes(), raw(file)));
                refs.add(ref);
                names.add(name + " " + p);
                logistics.add(logistic);
            }
        }
        List<double[]> out = TorchRun.run(dir, jobs);
        assertAll(java.util.stream.IntStream.range(0, jobs.size()).mapToObj(j -> (Executable) () -> {
            Comparison c = Comparison.of(out.get(j), TorchRun.labels(out.get(j), ROWS, logistics.get(j)), refs.get(j));
            assertTrue(names.get(j).endsWith("FLOAT64") ? c.relative() <= 1e-9 : c.row() <= 1e-5, names.get(j) + ": "
                + c);
            assertEquals(0, c.labels(), names.get(j) + ": " + c);
        }));
    }

    private static final int ROWS = 29;

    /** A model of random parameters, scaled as {@code scaling} says (idx, standardize or both). */
    private static ModelFile randomModel(String name, ModelSpec spec, int features, int classes, String scaling) {
        SplittableRandom r = new SplittableRandom(name.hashCode());
        // Drawn positive with batchnorm, as OnnxLayoutTest draws them: a running variance must be.
        double[] params = r.doubles(spec.newModel(features, classes).parameterCount(), name.contains("batchnorm")
            ? 0.05 : -1, 1).toArray();
        Standardizer st = scaling != null && scaling.contains("standardize")
            ? new Standardizer(r.doubles(features, -1, 1).toArray(), r.doubles(features, 0.2, 3).toArray()) : null;
        boolean idx = scaling != null && scaling.contains("idx");
        return new ModelFile(spec, features, classes, params, st, null, Columns.generated(features),
            idx ? DataSpec.Format.IDX : DataSpec.Format.CSV);
    }

    /** Raw rows for the model: pixel bytes for IDX, else numbers in [-3, 5). */
    private static double[] raw(ModelFile file) {
        SplittableRandom r = new SplittableRandom(file.features() * 31L + file.params().length);
        double[] raw = new double[ROWS * file.features()];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = file.dataFormat() == DataSpec.Format.IDX ? r.nextInt(256) : r.nextDouble(-3, 5);
        }
        return raw;
    }

    /** The rows as reading makes them: IDX pixel bytes divided by 255. */
    private static double[] seen(ModelFile file) {
        double[] v = raw(file);
        for (int i = 0; file.dataFormat() == DataSpec.Format.IDX && i < v.length; i++) {
            v[i] = v[i] / 255.0;
        }
        return v;
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
            case "iris" -> ExportData.csv(Path.of("core/src/test/resources/fixtures/iris.csv"), "species", List.of());
            default -> ExportData.csv(ExportData.fixtureCsv(data, dir), "target", List.of());
        };
    }
}
