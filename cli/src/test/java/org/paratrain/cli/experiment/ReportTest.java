package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;

/** A small paper sweep end to end: every file exists and parses; numbers agree with a single run. */
class ReportTest {
    @TempDir
    Path dir;

    @Test
    void everyOutputIsValidAndTheTableAgreesWithASingleRun() throws Exception {
        // One warm-up run asked for, and 0.2 s of warm-up at least: more rounds run, and the report says how many.
        SweepSpec spec = new SweepSpec(new int[] {1, 2, 3}, 3, 1, 0.2, PaperSetup.config().withEpochs(40));
        Report.Inputs in = new Report.Inputs(PaperSetup.TITLE, PaperSetup.data(),
            RunWriter.json().createObjectNode().put("generator", "make_regression"), spec, new int[] {500, 4000}, null);
        Path out = dir.resolve("paper");
        List<String> files = Report.run(out, in, Provenance.capture(List.of("paper")), (p, d, t) -> { });

        for (String f : files) {
            Path p = out.resolve(f);
            assertTrue(Files.size(p) > 0, f);
            if (f.endsWith(".png")) {
                BufferedImage img = ImageIO.read(p.toFile());
                assertNotNull(img, f + " does not decode");
                assertTrue(img.getWidth() >= 600 && img.getHeight() >= 400, f);
            } else if (f.endsWith(".svg")) {
                DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
                xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
                assertEquals("svg", xml.newDocumentBuilder().parse(p.toFile()).getDocumentElement().getNodeName(), f);
            } else if (f.endsWith(".json")) {
                new ObjectMapper().readTree(p.toFile());
            }
        }
        assertTrue(files.containsAll(List.of("table1.md", "table1.csv", "table1.json", "figure1_data.png",
            "figure2_fits.svg", "figure3_fit.png", "scaling.png", "scaling.svg", "breakdown.png", "loss.svg",
            "analysis.md", "run.json")), files.toString());
        try (var left = Files.list(dir)) {
            assertEquals(List.of(out), left.toList(), "no staging directory is left behind");
        }

        TrainingResult single = Training.local(PaperSetup.data(), PaperSetup.config().withEpochs(40).withNodes(2));
        List<String> csv = Files.readAllLines(out.resolve("table1.csv"));
        assertEquals(4, csv.size());
        String[] header = csv.get(0).split(",");
        for (int row = 1; row <= 3; row++) {
            String[] cells = csv.get(row).split(",");
            assertEquals(header.length, cells.length);
            assertEquals(single.params()[0], Double.parseDouble(cells[col(header, "weight_mean")]), 0.0);
            assertEquals(0.0, Double.parseDouble(cells[col(header, "weight_var")]), 0.0);
            assertEquals(single.finalLoss(), Double.parseDouble(cells[col(header, "loss_mean")]), 0.0);
            assertEquals("true", cells[col(header, "same_bits")]);
            assertEquals(3, Integer.parseInt(cells[col(header, "runs")]));
        }
        JsonNode table = new ObjectMapper().readTree(out.resolve("table1.json").toFile());
        assertEquals("sample (n - 1)", table.get("variance").asText());
        assertEquals(1.0, table.get("rows").get(0).get("speedup").asDouble(), 0.0);
        JsonNode run = new ObjectMapper().readTree(out.resolve("run.json").toFile());
        assertTrue(run.get("provenance").has("paratrain_version"));
        assertEquals(3, run.get("sweep").get("repeats").asInt());
        int warmup = run.get("sweep").get("warmup").asInt();
        assertTrue(warmup > 1, "rounds of 40 epochs last far less than 0.2 s, yet " + warmup + " ran");
        assertEquals(0.2, run.get("sweep").get("warmup_min_seconds").asDouble(), 0.0);
        assertEquals(warmup, table.get("warmup_runs_per_count").asInt());
        assertTrue(Files.readString(out.resolve("table1.md")).contains("after " + warmup + " untimed warm-up runs"));
        String analysis = Files.readString(out.resolve("analysis.md"));
        assertTrue(analysis.contains("## Where the time goes") && analysis.contains("## When parallelism pays"),
            analysis);
        // The paper named, and each of its findings beside what was measured: here the bits of one 2-rank run.
        assertTrue(analysis.contains("Parallel training methods for machine learning and deep learning")
            && analysis.contains("Southwest Minzu University"), analysis);
        assertTrue(analysis.contains(String.format(java.util.Locale.ROOT, "the same bits at 1, 2, 3 nodes: weight %.10g",
            single.params()[0])), analysis);
    }

    @Test
    void aFailingRunLeavesTheOutputDirectoryAsItWas() throws Exception {
        Path out = dir.resolve("paper");
        Files.createDirectories(out);
        Files.writeString(out.resolve("table1.md"), "old");
        // Diverges on purpose: the run fails after some files would have been written.
        SweepSpec spec = new SweepSpec(new int[] {1}, 1, 0, PaperSetup.config().withLearningRate(0.05));
        Report.Inputs in = new Report.Inputs("diverging", PaperSetup.data(), RunWriter.json().createObjectNode(),
            spec, null, null);
        assertThrows(RuntimeException.class,
            () -> Report.run(out, in, Provenance.capture(List.of()), (p, d, t) -> { }));
        assertEquals("old", Files.readString(out.resolve("table1.md")));
        try (var left = Files.list(out)) {
            assertEquals(1, left.count());
        }
        try (var left = Files.list(dir)) {
            assertFalse(left.anyMatch(p -> p.getFileName().toString().contains("partial")));
        }
    }

    private static int col(String[] header, String name) {
        for (int i = 0; i < header.length; i++) {
            if (header[i].equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no column " + name);
    }
}
