package org.paratrain.cli.bench;

import static org.paratrain.io.Executables.onPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;
import org.paratrain.experiment.RunWriter;

/**
 * {@code bench network} end to end, small: the MLP across two emulated hosts on a shaped link
 * at 2 and 4 ranks (2 x 1, 2 x 2), beside PyTorch DDP where torch is installed. The two
 * layouts must train the same bits (the fixed-point sum across a real TCP link), the files
 * must all be written, and the hosts must be gone afterwards.
 *
 * <p>Skipped where namespaces cannot be made (not root, no ip) or there is no mpirun; where
 * {@code PARATRAIN_REQUIRE_MPI} is set (CI, as root) those fail instead.
 */
class BenchNetworkTest {
    @TempDir
    Path dir;

    record Run(int status, String out, String err) { }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void theMlpAcrossTwoHostsTrainsTheSameBitsAtTwoAndFourRanksAndWritesEveryFile() throws Exception {
        assumeHostsCanBeMade();
        Path out = dir.resolve("bench");
        Run r = run("bench", "network", "--links", "1gbit", "--models", "mlp", "--layouts", "2x1,2x2", "--steps", "3",
            "--rounds", "1", "--sum", "fixed:half", "--bucket-size", "0,1", "--allreduce", "ring,auto", "--out",
            out.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        // The same bits at both layouts, with the gradient sent whole after backward and in buckets during it
        // (one a layer, summed across the two hosts while the lower layer's backward runs).
        assertTrue(r.out().contains("same bits: mlp fixed:half yes"), r.out());
        // Every row of the printed table has the header's cells, the failed guesses a step among them.
        List<String> table = r.out().lines().filter(l -> l.startsWith("| ")).toList();
        assertTrue(table.get(0).contains("| failed guesses (a step) |"), table.get(0));
        long cells = table.get(0).chars().filter(c -> c == '|').count();
        assertEquals(9, table.size(), r.out());
        for (String row : table) {
            assertEquals(cells, row.chars().filter(c -> c == '|').count(), row);
        }
        JsonNode json = RunWriter.json().readTree(out.resolve("bench-network.json").toFile());
        assertEquals(8, json.get("rows").size(), json.toString());
        assertEquals(List.of("0/ring", "0/auto", "1/ring", "1/auto", "0/ring", "0/auto", "1/ring", "1/auto"),
            java.util.stream.StreamSupport.stream(json.get("rows").spliterator(), false)
                .map(n -> n.get("bucket_size").asText() + "/" + n.get("allreduce").asText()).toList());
        boolean torch = System.getenv("PARATRAIN_REQUIRE_TORCH") != null;
        for (JsonNode row : json.get("rows")) {
            assertEquals("1gbit", row.get("link").asText());
            double share = row.get("exchange_share").asDouble();
            assertTrue(share > 0 && share < 1, "the exchange's share of the step: " + row);
            assertTrue(row.get("paratrain_samples_per_s").asDouble() > 0, row.toString());
            assertTrue(row.get("exchange_ms_per_step").asDouble() > 0, row.toString());
            // The median step too (of 3: the middle one), and the model's error against each (predicted / measured - 1).
            double median = row.get("exchange_median_ms_per_step").asDouble();
            assertTrue(median > 0 && median <= 3 * row.get("exchange_ms_per_step").asDouble(), row.toString());
            double predicted = row.get("predicted_exchange_ms_per_step").asDouble();
            assertEquals(predicted / row.get("exchange_ms_per_step").asDouble() - 1, row.get("model_error").asDouble(),
                1e-9, row.toString());
            // Two predictions: the mean step's (fitted to the mean calls) and the typical step's (the median calls).
            double typical = row.get("predicted_exchange_median_ms_per_step").asDouble();
            assertTrue(typical > 0, row.toString());
            assertEquals(typical / median - 1, row.get("model_error_median").asDouble(), 1e-9, row.toString());
            // The wait is rank 0's exchange beyond the least over the ranks: never below zero.
            assertTrue(row.get("wait_ms_per_step").asDouble() >= 0, row.toString());
            // Each run's 3 untimed steps (the grid agreed, the guesses settling) are trained but not timed.
            assertEquals(3, row.get("timed_steps").asInt(), row.toString());
            // A figure a rank: 2 or 4 of them.
            assertEquals(2 * Integer.parseInt(row.get("layout").asText().substring(2)),
                row.get("compute_ms_per_step_per_rank").size(), row.toString());
            double misses = row.get("guess_misses_per_step").asDouble(-1);
            assertTrue(misses >= 0 && misses <= 1, "a share of the steps: " + row);
            String ran = row.get("ran").asText();
            assertTrue(org.paratrain.collective.Allreduces.names().contains(ran), "auto ran an allreduce: " + row);
            if (row.get("allreduce").asText().equals("ring")) {
                assertEquals("ring", ran);
                assertTrue(!row.has("probe_ms"), "only auto probes: " + row);
            } else {
                // auto's figures: every candidate timed (master-worker priced), and what ran the least of them.
                JsonNode probe = row.get("probe_ms");
                assertEquals(1 + org.paratrain.collective.Allreduces.names().size(), probe.size(), row.toString());
                double least = Double.POSITIVE_INFINITY;
                String fastest = null;
                for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) probe::fields) {
                    assertTrue(e.getValue().asDouble() > 0, row.toString());
                    if (e.getValue().asDouble() < least) {
                        least = e.getValue().asDouble();
                        fastest = e.getKey();
                    }
                }
                assertEquals(fastest, ran, "auto ran the least of its figures: " + row);
            }
            assertTrue(row.get("predicted_exchange_ms_per_step").asDouble() > 0, "the link's cost model: " + row);
            // The fit's own figures: the calls at 1,000 words and around the step's, each [words, ms], and the line.
            JsonNode calls = row.get("link_call_ms");
            assertEquals(4, calls.size(), row.toString());
            assertEquals(1000, calls.get(0).get(0).asLong(), row.toString());
            for (int i = 0; i < calls.size(); i++) {
                // [words, median ms, mean ms]
                assertEquals(3, calls.get(i).size(), row.toString());
                assertTrue(calls.get(i).get(1).asDouble() > 0 && calls.get(i).get(2).asDouble() > 0, row.toString());
                assertTrue(i == 0 || calls.get(i).get(0).asLong() > calls.get(i - 1).get(0).asLong(), row.toString());
            }
            assertTrue(row.get("beta_seconds_per_byte").asDouble() > 0, row.toString());
            // Buckets of 1 parameter cut the MLP after its output layer: priced bucket by bucket behind backward.
            assertEquals(row.get("bucket_size").asText().equals("1"), row.get("model_overlap").asBoolean(), row.toString());
            // Buckets of 1 parameter: the output layer, then the first layer with the loss; else the whole gradient.
            assertEquals(row.get("bucket_size").asText().equals("1") ? 2 : 1, row.get("buckets").asInt(), row.toString());
            assertTrue(row.get("predicted_conversion_ms_per_step").asDouble() > 0, "half words convert: " + row);
            assertTrue(row.get("predicted_conversion_median_ms_per_step").asDouble() > 0, "half words convert: " + row);
            // Buckets are priced on the link as a call beside the computation meets it, timed so on the hosts.
            assertEquals(row.get("bucket_size").asText().equals("1"), row.path("beside_work_beta_seconds_per_byte")
                .asDouble(0) > 0, row.toString());
            // The MLP's blocks go whole: only the CNN runs its last block's chunks stage by stage.
            assertFalse(row.has("staged_chunk_share"), row.toString());
            // Each failed guess redoes the sum: priced only where the run had some, and then more than nothing.
            assertEquals(misses > 0, row.get("predicted_retry_ms_per_step").asDouble() > 0, row.toString());
            if (torch) {
                assertTrue(row.get("pytorch_samples_per_s").asDouble() > 0, "DDP ran on the same hosts: " + row);
            }
        }
        for (String ext : List.of("csv", "md", "png", "svg")) {
            assertTrue(Files.size(out.resolve("bench-network." + ext)) > 0, ext);
        }
        // The cost model beside the measurement, as a picture of the chart's size.
        assertTrue(Files.readString(out.resolve("bench-network-model.svg")).contains("<svg"), "the model's plot");
        java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(out.resolve("bench-network-model.png").toFile());
        assertTrue(png != null && png.getWidth() > 100 && png.getHeight() > 100, "the model's plot as PNG");
        // The link's fit, as plan --machine reads it: a beta of the order of 1 Gbit/s's 8 ns a byte. Not
        // closer: the token bucket lets a burst through at the veth's speed, and on a short run the fit has
        // come out as fast as 5 ns a byte.
        org.paratrain.cli.experiment.MachineFile.Contents fit = org.paratrain.cli.experiment.MachineFile.read(
            out.resolve("machine-1gbit-2x1.json"));
        assertTrue(fit.machine().beta() > 0.4 * 8e-9, "a 1 Gbit/s link carries at most 1 bit a ns, and a burst: " + fit);
        assertTrue(fit.machine().beta() < 2.5 * 8e-9, "and TCP over it at least 0.4 Gbit/s: " + fit);
        String summary = r.out().lines().filter(l -> l.startsWith("summary: ")).findFirst().orElseThrow();
        assertTrue(summary.contains("mlp_1gbit_2x1_fixedhalf_bucket0_samples_per_s=")
            && summary.contains("mlp_1gbit_2x2_fixedhalf_bucket1_exchange_share=")
            && summary.contains("mlp_1gbit_2x2_fixedhalf_bucket1_overlap_speedup=")
            && summary.contains("mlp_1gbit_2x1_fixedhalf_bucket0_auto_pick=")
            && summary.contains("mlp_1gbit_2x2_fixedhalf_bucket1_auto_vs_fastest="), summary);
        assertFalse(namespaces().contains("ptbench0"), "the hosts are removed: " + namespaces());
    }

    /**
     * Without PyTorch (a Python that is not there) paratrain's side runs alone: its rows, a dash where
     * DDP's figure would be, once each however many rounds DDP would have had between them.
     */
    @Test
    void withoutPyTorchParatrainRunsAlone() throws Exception {
        assumeHostsCanBeMade();
        Path out = dir.resolve("alone");
        Run r = run("bench", "network", "--links", "unshaped", "--models", "mlp", "--layouts", "2x1", "--steps", "2",
            "--rounds", "3", "--sum", "fixed:half", "--bucket-size", "0", "--python", dir.resolve("no-python").toString(),
            "--out", out.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("PyTorch: not available"), r.out());
        List<String> rows = r.out().lines().filter(l -> l.startsWith("| unshaped | mlp")).toList();
        assertEquals(1, rows.size(), r.out());
        assertTrue(rows.get(0).contains("| - | - |"), "no DDP figure: " + rows.get(0));
        assertFalse(RunWriter.json().readTree(out.resolve("bench-network.json").toFile()).path("rows").get(0)
            .has("pytorch_samples_per_s"), "no DDP figure in the JSON");
    }

    @Test
    void aBenchEndedBySigtermRemovesItsHosts() throws Exception {
        assumeHostsCanBeMade();
        List<String> cmd = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            // The bench's temporary files go where this test looks for what it left.
            "--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
            "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "bench", "network", "--links", "unshaped", "--models", "cnn", "--layouts", "2x1", "--steps", "200",
            "--batch-size", "64", "--out", dir.resolve("killed").toString()));
        long started = System.currentTimeMillis();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile())
            .start();
        try {
            long until = System.nanoTime() + 60_000_000_000L;
            while (!namespaces().contains("ptbench0") && System.nanoTime() < until && p.isAlive()) {
                Thread.sleep(200);
            }
            assertTrue(namespaces().contains("ptbench0"), "the hosts came up: " + Files.readString(dir.resolve("log")));
            Thread.sleep(3000);                      // into the training job
            p.destroy();                             // SIGTERM
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the bench ended");
            assertFalse(namespaces().contains("ptbench"), "no host is left (and so none of its processes): "
                + namespaces());
            assertFalse(Files.exists(dir.resolve("killed")), "no half-written results");
            assertFalse(Files.exists(Path.of("/run/paratrain-bench-netns")), "the hosts' files are removed");
            String log = Files.readString(dir.resolve("log"));
            assertFalse(log.contains("\tat "), "no stack trace: " + log);
            try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                assertFalse(left.anyMatch(f -> f.getFileName().toString()
                    .startsWith(".paratrain-bench-network.partial-") && isNewerThan(f, started)),
                    "the work directory is removed");
            }
            try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                assertFalse(left.anyMatch(f -> f.getFileName().toString().startsWith("bench-network")
                    && isNewerThan(f, started)), "no file of the hosts' script is left");
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void badOptionsAreOneLineAndWriteNothing() {
        Path out = dir.resolve("bad");
        Run r = run("bench", "network", "--layouts", "3x1", "--out", out.toString());
        assertEquals(2, r.status(), r.err());
        assertEquals("paratrain bench network: error: --layouts must be like 2x1 or 2x2 (two hosts, 1 to 4 ranks "
            + "each), got '3x1'", r.err().strip());
        r = run("bench", "network", "--links", "fast", "--out", out.toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().strip().endsWith("--links must be rates like 100mbit or 1gbit, or unshaped, got 'fast'"),
            r.err());
        r = run("bench", "network", "--layouts", "2x3", "--out", out.toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("--batch-size 256 must divide over the 6 ranks of --layouts 2x3"), r.err());
        r = run("bench", "network", "--allreduce", "ring,fastest", "--out", out.toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().strip().endsWith("--allreduce must be among star, tree, recursive-doubling, ring, "
            + "rabenseifner, native or auto, got 'fastest'"), r.err());
        assertFalse(Files.exists(out));
    }

    private static boolean isNewerThan(Path f, long millis) {
        try {
            return Files.getLastModifiedTime(f).toMillis() >= millis - 1000;
        } catch (IOException e) {
            return false;                        // gone meanwhile
        }
    }

    private static String namespaces() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return text;
    }

    /** Skips where the emulated hosts cannot be made (root, ip, mpirun); fails instead where CI requires MPI. */
    private static void assumeHostsCanBeMade() throws IOException {
        boolean ready = onPath("mpirun") && onPath("ip") && isRoot();
        if (!ready && System.getenv("PARATRAIN_REQUIRE_MPI") != null && isRoot()) {
            fail("PARATRAIN_REQUIRE_MPI is set and this runs as root, but mpirun or ip is missing");
        }
        Assumptions.assumeTrue(ready, "needs root, ip (iproute2) and mpirun");
    }

    private static boolean isRoot() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.split("\\s+")[2].equals("0");
            }
        }
        return false;
    }

}
