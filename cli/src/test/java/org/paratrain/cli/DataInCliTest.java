package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data in without traps, checked against references that do not go through the feature
 * matching: the same file in its own column order, the argmin of the validation history, a
 * 1-rank run.
 */
class DataInCliTest {
    private static final Path IRIS = ClassifierCliTest.IRIS;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path train(String name, String... extra) {
        Path out = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("train", "--format", "csv", "--data", IRIS.toString(), "--label",
            "species", "--model", "softmax", "--quiet", "--out", out.toString()));
        args.addAll(List.of(extra));
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), r.err());
        return out;
    }

    /** The iris fixture with its columns in another order: label first, features reversed. */
    private Path reordered() throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(IRIS)) {
            String[] f = line.split(",");
            out.add(String.join(",", f[4], f[3], f[2], f[1], f[0]));
        }
        return Files.write(dir.resolve("reordered.csv"), out);
    }

    @Test
    void columnsAreMatchedByNameWhateverTheirOrder() throws IOException {
        Path run = train("run", "--epochs", "30");
        JsonNode model = JSON.readTree(run.resolve("model.json").toFile());
        assertEquals("[\"sepal length (cm)\",\"sepal width (cm)\",\"petal length (cm)\",\"petal width (cm)\"]",
            model.get("feature_names").toString());
        assertEquals("header", model.get("feature_names_from").asText());
        Path a = dir.resolve("a.json");
        Path b = dir.resolve("b.json");
        assertEquals(0, CliTest.run("evaluate", "--model-file", run.resolve("model.json").toString(), "--format", "csv",
            "--data", IRIS.toString(), "--out", a.toString()).status());
        CliTest.Run r = CliTest.run("evaluate", "--model-file", run.resolve("model.json").toString(), "--format",
            "csv", "--data", reordered().toString(), "--out", b.toString());
        assertEquals(0, r.status(), r.err());
        JsonNode ma = JSON.readTree(a.toFile());
        JsonNode mb = JSON.readTree(b.toFile());
        assertEquals(ma.get("accuracy"), mb.get("accuracy"));
        assertEquals(ma.get("log_loss"), mb.get("log_loss"));
        assertEquals(ma.get("confusion_matrix"), mb.get("confusion_matrix"));
    }

    @Test
    void aMissingFeatureIsNamedAndAHeaderlessFileIsTakenByPositionWithAWarning() throws IOException {
        Path run = train("run", "--epochs", "5");
        List<String> lines = Files.readAllLines(IRIS);
        List<String> short3 = lines.stream().map(l -> l.substring(0, l.indexOf(',')) + l.substring(l.lastIndexOf(',')))
            .toList();
        Path bad = Files.write(dir.resolve("short.csv"), short3);
        CliTest.Run r = CliTest.run("evaluate", "--model-file", run.resolve("model.json").toString(), "--format", "csv",
            "--data", bad.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("no column 'sepal width (cm)', 'petal length (cm)', 'petal width (cm)'"), r.err());
        Path headerless = Files.write(dir.resolve("nohead.csv"), lines.subList(1, lines.size()));
        CliTest.Run h = CliTest.run("evaluate", "--model-file", run.resolve("model.json").toString(), "--format",
            "csv", "--no-header", "--label", "4", "--data", headerless.toString());
        assertEquals(0, h.status(), h.err());
        assertTrue(h.err().contains("has no header: its columns are taken as the model's 4 features"), h.err());
    }

    @Test
    void pandasIndexColumnIsDroppedNotTrainedOn() throws IOException {
        List<String> lines = Files.readAllLines(IRIS);
        List<String> indexed = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            indexed.add((i == 0 ? "" : Integer.toString(i - 1)) + "," + lines.get(i));
        }
        Path f = Files.write(dir.resolve("pandas.csv"), indexed);
        CliTest.Run r = CliTest.run("train", "--format", "csv", "--data", f.toString(), "--label", "species",
            "--model", "softmax", "--epochs", "3", "--quiet", "--out", dir.resolve("p").toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains("dropped the first column, unnamed in the header: pandas' index"), r.err());
        assertEquals(4, JSON.readTree(dir.resolve("p/model.json").toFile()).get("features").asInt());
    }

    @Test
    void validationAndEarlyStoppingGiveTheSameBitsAt1To3Ranks() throws IOException {
        String[] opts = {"--val-fraction", "0.2", "--test-fraction", "0.2", "--early-stop", "5", "--epochs", "400", "--lr", "0.05"};
        JsonNode first = null;
        JsonNode firstResult = null;
        for (int nodes = 1; nodes <= 3; nodes++) {
            List<String> args = new ArrayList<>(List.of(opts));
            args.addAll(List.of("--nodes", Integer.toString(nodes)));
            Path run = train("n" + nodes, args.toArray(String[]::new));
            JsonNode model = JSON.readTree(run.resolve("model.json").toFile());
            JsonNode result = JSON.readTree(run.resolve("result.json").toFile());
            if (first == null) {
                first = model;
                firstResult = result;
                bestEpochIsTheArgminOfTheHistory(run, result);
            } else {
                assertEquals(first.get("params"), model.get("params"), nodes + " ranks");
                assertEquals(firstResult.get("validation"), result.get("validation"), nodes + " ranks");
                assertEquals(firstResult.get("test_metrics"), result.get("test_metrics"), nodes + " ranks");
            }
        }
        assertEquals(24, firstResult.get("validation").get("samples").asInt(), "0.2 of the 120 left by the test split");
        assertTrue(firstResult.get("validation").get("kept_best").asBoolean());
    }

    private static void bestEpochIsTheArgminOfTheHistory(Path run, JsonNode result) throws IOException {
        List<String> rows = Files.readAllLines(run.resolve("history.csv"));
        int col = List.of(rows.get(0).split(",")).indexOf("val_loss");
        assertTrue(col > 0, rows.get(0));
        int best = -1;
        double min = Double.POSITIVE_INFINITY;
        for (int i = 1; i < rows.size(); i++) {
            String[] f = rows.get(i).split(",", -1);
            if (!f[col].isEmpty() && Double.parseDouble(f[col]) < min) {
                min = Double.parseDouble(f[col]);
                best = Integer.parseInt(f[0]);
            }
        }
        assertEquals(best, result.get("validation").get("best_epoch").asInt());
        assertEquals(min, result.get("validation").get("best_loss").asDouble(), Math.ulp(min) * 4);
        assertTrue(rows.size() - 1 < 400, "stopped early: " + (rows.size() - 1) + " epochs");
    }

    @Test
    void earlyStoppingRefusesToSelectOnTheTestData() {
        CliTest.Run r = CliTest.run("train", "--format", "csv", "--data", IRIS.toString(), "--label", "species",
            "--model", "softmax", "--test-fraction", "0.2", "--early-stop", "3", "--out", "x");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("--early-stop needs validation data apart from the test data: give --val-fraction "
            + "or --val-data"), r.err());
        assertFalse(Files.exists(Path.of("x")));
    }
}
