package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.experiment.ModelFile;

/**
 * {@code train --tensorboard DIR} writes an event file that a reader sharing nothing with the
 * writer reads back ({@code read_events.py}: the TFRecord framing, every masked CRC-32C and the
 * protobuf wire format decoded in plain Python with TensorBoard's field numbers): the file
 * version, every epoch's training and validation loss as history.csv has them (rounded to
 * float, as TensorBoard stores scalars), and histograms of the final parameters whose counts,
 * sum and range are those of the model file's. Skipped where /usr/bin/python3 is missing.
 */
class TensorBoardTest {
    @TempDir
    Path dir;

    @Test
    void theEventFileReadsBackAsTheRunsHistoryAndParameters() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")));
        Path logs = dir.resolve("logs");
        Path out = dir.resolve("run");
        CliTest.Run r = CliTest.run("train", "--format", "csv", "--data", "core/src/test/resources/fixtures/iris.csv",
            "--label", "species", "--model", "mlp", "--layers", "8,dropout:0.2", "--epochs", "12", "--val-fraction",
            "0.2", "--nodes", "2", "--tensorboard", logs.toString(), "--tensorboard-histograms", "5", "--quiet",
            "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        List<Path> files;
        try (var s = Files.list(logs)) {
            files = s.toList();
        }
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.getFirst().getFileName().toString().startsWith("events.out.tfevents."));
        JsonNode events = read(files.getFirst());
        assertEquals("brain.Event:2", events.get("version").asText());

        List<String> history = Files.readAllLines(out.resolve("history.csv"));
        List<String> header = List.of(history.getFirst().split(","));
        int loss = header.indexOf("loss");
        int val = header.indexOf("val_loss");
        assertTrue(loss >= 0 && val >= 0, history.getFirst());
        JsonNode train = events.get("scalars").get("loss/train");
        JsonNode held = events.get("scalars").get("loss/validation");
        assertEquals(12, train.size());
        assertEquals(12, held.size());
        for (int e = 1; e <= 12; e++) {
            String[] row = history.get(e).split(",");
            assertEquals(e, train.get(e - 1).get(0).asInt());
            assertEquals((float) Double.parseDouble(row[loss]), (float) train.get(e - 1).get(1).asDouble(), 0f,
                "epoch " + e);
            assertEquals((float) Double.parseDouble(row[val]), (float) held.get(e - 1).get(1).asDouble(), 0f);
        }
        for (String tag : List.of("learning_rate", "time/epoch_seconds", "time/step_milliseconds",
            "time/compute_seconds", "time/communication_seconds", "accuracy/validation")) {
            assertEquals(12, events.get("scalars").get(tag).size(), tag);
        }

        JsonNode histograms = events.get("histograms").get("params");
        List<Integer> steps = new ArrayList<>();
        histograms.forEach(h -> steps.add(h.get(0).asInt()));
        assertEquals(List.of(5, 10, 12), steps, "every 5 epochs and after the last");
        double[] params = ModelFile.read(out.resolve("model.json")).params();
        JsonNode last = histograms.get(2).get(1);
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double p : params) {
            sum += p;
            min = Math.min(min, p);
            max = Math.max(max, p);
        }
        assertEquals(params.length, last.get("num").asDouble(), 0.0);
        assertEquals(min, last.get("min").asDouble(), 0.0);
        assertEquals(max, last.get("max").asDouble(), 0.0);
        assertEquals(sum, last.get("sum").asDouble(), 1e-12 * Math.abs(sum) + 1e-12);
        double counted = 0;
        for (JsonNode c : last.get("counts")) {
            counted += c.asDouble();
        }
        assertEquals(params.length, counted, 0.0, "every parameter in a bucket");
        assertEquals(max, last.get("limits").get(last.get("limits").size() - 1).asDouble(), 0.0);
    }

    @Test
    void aLogDirectoryThatIsAFileIsRefusedBeforeTraining() throws Exception {
        Path file = Files.writeString(dir.resolve("taken"), "x");
        CliTest.Run r = CliTest.run("train", "--format", "csv", "--data", "core/src/test/resources/fixtures/iris.csv",
            "--label", "species", "--model", "softmax", "--tensorboard", file.toString(), "--out",
            dir.resolve("never").toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("--tensorboard " + file + ": exists and is not a directory"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(!Files.exists(dir.resolve("never")), "nothing written");
        assertArrayEquals("x".getBytes(), Files.readAllBytes(file));
    }

    private JsonNode read(Path events) throws Exception {
        Path script = Path.of("cli/src/test/resources/tensorboard/read_events.py").toAbsolutePath();
        Path json = dir.resolve("events.json");
        Process p = new ProcessBuilder("/usr/bin/python3", script.toString(), events.toString())
            .redirectOutput(json.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the reader did not end");
        assertEquals(0, p.exitValue(), "the reader refused the file");
        return new ObjectMapper().readTree(json.toFile());
    }
}
