package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.experiment.RunWriter;

/**
 * The Vector API's gradient updates (a JVM started with {@code --add-modules jdk.incubator.vector})
 * give the scalar loops' bits: the same training in a child JVM with the module and in this one
 * without it ends with the same parameters, final loss and loss of every epoch, to the bit; and
 * each result says which kernels ran.
 */
class VectorKernelsTest {
    @TempDir
    Path dir;

    /**
     * Linear regression with ten and eleven features (four parts a block), 41 (eight parts) and an
     * intercept, at 1 to 3 ranks; logistic regression (the shared four-row update); mini-batches.
     * Odd feature counts leave a tail after the vectors at any lane count.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "linear 10; regression; 10; --nodes 1 --lr 1e-5",
        "linear 11 (a tail after the vectors); regression; 11; --nodes 2 --lr 1e-5",
        "linear 41 with an intercept; regression; 41; --nodes 3 --intercept --lr 1e-5",
        "logistic 13; classification; 13; --nodes 2 --model logistic --intercept --loss-reduction mean --lr 0.5",
        "linear 10 in mini-batches; regression; 10; --nodes 2 --batch-size 256 --optimizer adam --lr 0.05"})
    void theVectorApiGivesTheScalarBits(String name, String kind, int features, String options) throws Exception {
        Path data = dir.resolve("data");
        CliTest.Run g = CliTest.run("generate", kind, "--samples", "3000", "--features", Integer.toString(features),
            "--out", data.toString());
        assertEquals(0, g.status(), g.err());
        List<String> train = new ArrayList<>(List.of("train", "--x", data.resolve("X.in").toString(), "--y",
            data.resolve("y.in").toString(), "--epochs", "40"));
        train.addAll(List.of(options.strip().split(" +")));
        Path scalar = dir.resolve("scalar");
        List<String> here = new ArrayList<>(train);
        here.addAll(List.of("--quiet", "--out", scalar.toString()));
        CliTest.Run s = CliTest.run(here.toArray(String[]::new));
        assertEquals(0, s.status(), s.err());
        Path vector = dir.resolve("vector");
        List<String> there = new ArrayList<>(train);
        there.addAll(List.of("--quiet", "--out", vector.toString()));
        childWithVectorApi(there, dir.resolve("child.log"));
        JsonNode a = RunWriter.json().readTree(scalar.resolve("result.json").toFile());
        JsonNode b = RunWriter.json().readTree(vector.resolve("result.json").toFile());
        assertEquals("scalar", a.at("/provenance/kernels").asText(), a.toString());
        assertEquals("Vector API", b.at("/provenance/kernels").asText(), b.toString());
        assertEquals(a.get("params").size(), b.get("params").size());
        for (int i = 0; i < a.get("params").size(); i++) {
            assertEquals(Double.doubleToRawLongBits(a.get("params").get(i).asDouble()),
                Double.doubleToRawLongBits(b.get("params").get(i).asDouble()), name + ", parameter " + i);
        }
        assertEquals(Double.doubleToRawLongBits(a.get("final_loss").asDouble()),
            Double.doubleToRawLongBits(b.get("final_loss").asDouble()), name);
        assertEquals(Files.readString(scalar.resolve("history.csv")).lines().map(VectorKernelsTest::loss).toList(),
            Files.readString(vector.resolve("history.csv")).lines().map(VectorKernelsTest::loss).toList(), name);
    }

    /** The loss column of a history.csv line (the third). */
    private static String loss(String line) {
        return line.split(",")[2];
    }

    private static void childWithVectorApi(List<String> args, Path log) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java,
            "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp",
            System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError("the child JVM did not finish in 120 s: " + Files.readString(log));
            }
            assertEquals(0, p.exitValue(), Files.readString(log));
        } finally {
            p.destroyForcibly();
        }
    }
}
