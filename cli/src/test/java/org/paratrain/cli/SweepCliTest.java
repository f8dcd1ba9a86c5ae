package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.paratrain.cli.CliTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.CliTest.Run;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.data.PaperFormat;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;

/** The sweeps (paper, scale) and the benchmarks' tables end to end, in process, as {@link CliTest} does for train. */
class SweepCliTest {
    @TempDir
    Path dir;

    @Test
    void paperWritesTheTableTheFiguresAndTheAnalysis() throws IOException {
        Path out = dir.resolve("paper");
        Run r = run("paper", "--nodes", "1,2", "--repeats", "2", "--warmup", "1", "--epochs", "30",
            "--no-break-even", "--quiet", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        for (String f : List.of("table1.md", "table1.csv", "table1.json", "figure1_data.png", "figure2_fits.svg",
            "figure3_fit.png", "scaling.png", "breakdown.svg", "loss.png", "analysis.md", "run.json")) {
            assertTrue(Files.exists(out.resolve(f)), f);
            assertTrue(r.out().contains(f), "the summary names " + f);
        }
        assertEquals("", r.err());
    }

    /**
     * {@code paper} with a one-vector fixed-point sum: the sweep, its table and run.json say which
     * sum ran, and the final weight is the same bits at 1 and 2 nodes (and those of the API's run).
     */
    @Test
    void paperWithTheFixedSumRecordsItAndKeepsTheBits() throws IOException {
        Path out = dir.resolve("paper-fixed");
        Run r = run("paper", "--sum", "fixed", "--allreduce", "ring", "--nodes", "1,2", "--repeats", "1", "--warmup",
            "0", "--epochs", "20", "--no-break-even", "--quiet", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        ObjectMapper json = new ObjectMapper();
        JsonNode table = json.readTree(out.resolve("table1.json").toFile());
        assertEquals("fixed:1", table.get("sum").asText());
        assertEquals("ring", table.get("exchange").asText());
        JsonNode training = json.readTree(out.resolve("run.json").toFile()).get("sweep").get("training");
        assertEquals("fixed:1", training.get("sum").asText());
        assertEquals("ring", training.get("exchange").asText());
        JsonNode rows = table.get("rows");
        assertTrue(rows.get(1).get("same_bits").asBoolean(), "2 nodes gave other bits than 1");
        TrainingResult api = Training.local(org.paratrain.cli.experiment.PaperSetup.data(), TrainSpec.paper()
            .withEpochs(20).withExchange(ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1)).withNodes(2));
        for (JsonNode row : rows) {
            assertEquals(Double.doubleToRawLongBits(api.params()[0]),
                Double.doubleToRawLongBits(row.get("weight_mean").asDouble()), row.toString());
        }
        assertTrue(Files.readString(out.resolve("analysis.md")).contains("summed by fixed:1"));
    }

    /** {@code scale} takes the sum and exchange too, here two words by the tree at 1 and 3 nodes. */
    @Test
    void scaleTakesTheSum() throws IOException {
        Path out = dir.resolve("scale-fixed2");
        Run r = run("scale", "--samples", "2000", "--features", "2", "--nodes", "1,3", "--repeats", "1", "--warmup",
            "0", "--allreduce", "tree", "--sum", "fixed:2", "--quiet", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        List<String> csv = Files.readAllLines(out.resolve("table1.csv"));
        List<String> header = List.of(csv.get(0).split(","));
        assertEquals(3, csv.size());
        for (String line : csv.subList(1, csv.size())) {
            List<String> row = List.of(line.split(",", -1));
            assertEquals("true", row.get(header.indexOf("same_bits")), line);
            assertEquals("tree", row.get(header.indexOf("exchange")), line);
            assertEquals("fixed:2", row.get(header.indexOf("sum")), line);
        }
    }

    @Test
    void scaleRunsOnGeneratedDataOrFilesButNotBoth() throws IOException {
        Path out = dir.resolve("scale");
        Run r = run("scale", "--samples", "3000", "--features", "3", "--nodes", "1,3", "--repeats", "1",
            "--quiet", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(Files.exists(out.resolve("table1.csv")));
        assertFalse(Files.exists(out.resolve("figure1_data.png")), "data figures need one feature");
        JsonNode run = new ObjectMapper().readTree(out.resolve("run.json").toFile());
        assertEquals(3000, run.get("data").get("n_samples").asInt());

        PaperFormat.write(new MakeRegression(400, 1, 1, 0, 1, true).generate(new NumpyRandomState(2)).data(), dir);
        Run files = run("scale", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--nodes", "1,2", "--repeats", "1", "--quiet", "--out", dir.resolve("scale2").toString());
        assertEquals(0, files.status(), files.err());
        assertTrue(Files.exists(dir.resolve("scale2").resolve("figure3_fit.svg")));

        Run both = run("scale", "--samples", "10", "--features", "1", "--x", "a", "--y", "b");
        assertEquals(2, both.status());
        Run dup = run("scale", "--samples", "10", "--features", "1", "--nodes", "2,2");
        assertEquals(2, dup.status());
        assertTrue(dup.err().contains("--nodes"), dup.err());
    }

    @Test
    void benchKernelsPrintsATableForEachShape() {
        Run r = run("bench", "kernels", "--shapes", "400x3,90x12", "--repeats", "1", "--stream-mb", "64");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("| 400 x 3 |") && r.out().contains("| 90 x 12 |"), r.out());
        assertTrue(r.out().contains("read bandwidth of one core"), r.out());
        // The Vector API's kernels ran in a second JVM (which said so) and ended with this JVM's final loss
        // (else the bench fails); a runtime without the module says that instead.
        if (java.lang.module.ModuleFinder.ofSystem().find("jdk.incubator.vector").isEmpty()) {
            assertTrue(r.out().contains("Vector API: not measured (this Java runtime has no"), r.out());
            return;
        }
        assertTrue(r.out().contains("Vector API us/epoch") && r.out().contains("the Vector API's in a second JVM"),
            r.out());
        assertFalse(r.out().contains("not measured"), r.out());
        java.util.regex.Matcher row = java.util.regex.Pattern.compile("\\| 400 x 3 \\|[^\n]*\\| ([0-9.,]+) \\| "
            + "([0-9.-]+) \\|\\s*$", java.util.regex.Pattern.MULTILINE).matcher(r.out());
        assertTrue(row.find(), r.out());
        assertTrue(Double.parseDouble(row.group(1).replace(",", "")) > 0, r.out());
    }

    @Test
    void benchPaperPrintsATableForEachNodeCount() {
        Run r = run("bench", "paper", "--nodes", "1,3", "--repeats", "2", "--warmup", "1", "--rounds", "2");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("|     1 |") && r.out().contains("|     3 |"), r.out());
        assertTrue(r.out().contains("best of 2 alternating rounds on each side"), r.out());
    }
}
