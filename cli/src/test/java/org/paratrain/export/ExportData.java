package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;

/**
 * The real data sets {@link OnnxExportTest} trains on, written as the files paratrain reads,
 * and read back here as raw rows for ONNX Runtime with readers of the test's own (not
 * paratrain's): scikit-learn's iris, breast cancer and diabetes from the fixtures, its digits
 * from {@code /usr/bin/python3}, and a part of Fashion-MNIST from {@code /usr/share/datasets}.
 */
final class ExportData {
    static final String PYTHON = "/usr/bin/python3";
    static final Path FASHION = Path.of("/usr/share/datasets/fashion-mnist");

    private ExportData() { }

    /**
     * Files to train on and to predict, and the rows ONNX Runtime is given (the same samples as
     * predict reads, raw: a CSV's numbers, an IDX file's pixel bytes).
     */
    record Data(List<String> train, List<String> predict, double[] rows, int samples, int features, int[] labels) { }

    /** A fixture's X and y (scikit-learn's own numbers) as a CSV with a header: x0, x1, ..., target. */
    static Path fixtureCsv(String name, Path dir) throws IOException {
        JsonNode j = new ObjectMapper().readTree(Path.of("core/src/test/resources/fixtures", name + ".json").toFile());
        int d = j.get("features").asInt();
        StringBuilder sb = new StringBuilder();
        for (int f = 0; f < d; f++) {
            sb.append("x").append(f).append(',');
        }
        sb.append("target\n");
        for (int i = 0; i < j.get("samples").asInt(); i++) {
            for (int f = 0; f < d; f++) {
                sb.append(j.get("X").get(i * d + f).asText()).append(',');
            }
            sb.append(j.get("y").get(i).asText()).append('\n');
        }
        return Files.writeString(dir.resolve(name + ".csv"), sb);
    }

    /** scikit-learn's digits (8x8 images, values 0..16) as a CSV, or the test is skipped where it is missing. */
    static Path digitsCsv(Path dir) throws IOException, InterruptedException {
        boolean present = Files.isExecutable(Path.of(PYTHON)) && new ProcessBuilder(PYTHON, "-c", "import sklearn")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        if (!present && System.getenv("PARATRAIN_REQUIRE_SKLEARN") != null) {
            fail("PARATRAIN_REQUIRE_SKLEARN is set, but " + PYTHON + " has no scikit-learn");
        }
        Assumptions.assumeTrue(present, "scikit-learn is not installed for " + PYTHON);
        Path csv = dir.resolve("digits.csv");
        Process p = new ProcessBuilder(PYTHON, "-c", String.join("\n",
            "import sys", "from sklearn.datasets import load_digits", "d = load_digits()",
            "with open(sys.argv[1], 'w') as f:",
            "    f.write(','.join('p%d' % i for i in range(64)) + ',target\\n')",
            "    for x, y in zip(d.data, d.target):",
            "        f.write(','.join('%d' % v for v in x) + ',%d\\n' % y)"), csv.toString())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        return csv;
    }

    /** A CSV's rows (all of them), its columns {@code names} in that order, and its labels as read. */
    static Data csv(Path csv, String label, List<String> names) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        List<String> header = Arrays.stream(lines.getFirst().split(",")).map(ExportData::unquote).toList();
        int n = lines.size() - 1;
        double[] rows = new double[n * names.size()];
        for (int i = 0; i < n; i++) {
            String[] fields = lines.get(i + 1).split(",");
            for (int j = 0; j < names.size(); j++) {
                rows[i * names.size() + j] = Double.parseDouble(unquote(fields[header.indexOf(names.get(j))]));
            }
        }
        List<String> files = List.of("--format", "csv", "--data", csv.toString(), "--label", label);
        return new Data(files, files, rows, n, names.size(), null);
    }

    private static String unquote(String s) {
        return s.startsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    /** The first {@code train} and {@code test} Fashion-MNIST images and labels as IDX files; skipped where absent. */
    static Data fashion(Path dir, int train, int test) throws IOException {
        boolean present = Files.isDirectory(FASHION);
        if (!present && System.getenv("PARATRAIN_REQUIRE_DATASETS") != null) {
            fail("PARATRAIN_REQUIRE_DATASETS is set, but " + FASHION + " is missing (apt-get install "
                + "dataset-fashion-mnist)");
        }
        Assumptions.assumeTrue(present, FASHION + " is not installed (apt-get install dataset-fashion-mnist)");
        Path trainX = head(FASHION.resolve("train-images-idx3-ubyte.gz"), dir.resolve("train-images"), train);
        Path trainY = head(FASHION.resolve("train-labels-idx1-ubyte.gz"), dir.resolve("train-labels"), train);
        Path testX = head(FASHION.resolve("t10k-images-idx3-ubyte.gz"), dir.resolve("test-images"), test);
        Path testY = head(FASHION.resolve("t10k-labels-idx1-ubyte.gz"), dir.resolve("test-labels"), test);
        byte[] pixels = Files.readAllBytes(testX);
        double[] rows = new double[test * 784];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = pixels[16 + i] & 0xff;        // raw bytes, 0..255: the graph scales them
        }
        byte[] y = Files.readAllBytes(testY);
        int[] labels = new int[test];
        for (int i = 0; i < test; i++) {
            labels[i] = y[8 + i] & 0xff;
        }
        return new Data(List.of("--format", "idx", "--data", trainX.toString(), "--labels", trainY.toString()),
            List.of("--format", "idx", "--data", testX.toString(), "--labels", testY.toString()), rows, test, 784,
            labels);
    }

    /** The header of an IDX file with its first dimension set to {@code n}, and its first n items. */
    private static Path head(Path gz, Path out, int n) throws IOException {
        try (InputStream raw = Files.newInputStream(gz);
             DataInputStream in = new DataInputStream(new GZIPInputStream(raw))) {
            int magic = in.readInt();
            int dims = magic & 0xff;
            int[] size = new int[dims];
            List<Integer> rest = new ArrayList<>();
            long item = 1;
            for (int d = 0; d < dims; d++) {
                size[d] = in.readInt();
                if (d > 0) {
                    item *= size[d];
                    rest.add(size[d]);
                }
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(bytes);
            o.writeInt(magic);
            o.writeInt(n);
            for (int s : rest) {
                o.writeInt(s);
            }
            o.write(in.readNBytes((int) (n * item)));
            return Files.write(out, bytes.toByteArray());
        }
    }
}
