package org.paratrain.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.Training;

class BenchBalanceTest {
    private record Run(int status, String out, String err) { }

    private static Run run(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int status = Main.execute(new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true), args);
        return new Run(status, out.toString(), err.toString());
    }

    @TempDir
    Path dir;

    /**
     * Each run is a child JVM: their final loss is the one this JVM computes for the same training,
     * at 1 and 2 ranks, free and busy; the busy process is gone afterwards; every file is written.
     */
    @Test
    void childRunsTrainWhatThisJvmTrainsAndTheBusyProcessEnds() throws IOException {
        Path out = dir.resolve("balance");
        Run r = run("bench", "balance", "--samples", "300", "--features", "3", "--epochs", "40",
            "--rounds", "1", "--quiet", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("| both free | 1 | master-worker |") && r.out().contains("| one busy | 2 | shared |")
            && r.out().contains("| one busy | 2 | master-worker |"), r.out());
        assertTrue(r.out().contains("both cores free: 2 ranks (shared) are") && r.out().contains(
            "one core busy: 2 ranks (master-worker) take"), r.out());
        double loss = Training.local(KernelData.generate(300, 3), BenchBalanceCommand.training(300, 40, 1, "master-worker")).finalLoss();
        assertTrue(r.out().contains("ended with the final loss of the same training in this JVM, to the bit: " + loss),
            r.out());
        JsonNode json = RunWriter.json().readTree(out.resolve("balance.json").toFile());
        assertEquals(6, json.get("rows").size(), "free and busy: 1 rank, 2 with master-worker, 2 shared");
        assertEquals(loss, json.get("final_loss").asDouble());
        assertEquals(loss, json.get("final_losses").get("master-worker").asDouble());
        assertEquals(loss, json.get("final_losses").get("shared").asDouble(), "shared sums by block, as master-worker");
        for (JsonNode row : json.get("rows")) {
            assertTrue(row.get("first_run_ms").asDouble() > 0 && row.get("later_run_ms").asDouble() > 0, row.toString());
            // A fresh JVM compiles the training loop while it runs: the child really was a new JVM.
            assertTrue(row.get("jit_compiling_ms").asDouble() > 0, row.toString());
        }
        assertEquals(7, Files.readAllLines(out.resolve("balance.csv")).size());
        for (String f : List.of("balance.md", "balance.png", "balance.svg")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        assertFalse(busyLoops().stream().anyMatch(ProcessHandle::isAlive), "a busy process was left running");
    }

    /** The busy process ends by itself once whoever started it has gone (its standard input closes). */
    @Test
    void theBusyProcessEndsWhenItsParentGoes() throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command("bench", "busy-loop"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        try {
            assertFalse(p.waitFor(1, TimeUnit.SECONDS), "the busy process ended on its own");
            long cpu = p.toHandle().info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(1000L);
            assertTrue(cpu >= 300, "the busy process used only " + cpu + " ms of CPU in a second");
            p.getOutputStream().close();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the busy process outlived its parent's end");
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * A run that fails (a child JVM out of heap) while the busy process spins ends the benchmark
     * with the child's own one-line error, leaves no busy process, and writes nothing.
     */
    @Test
    void aFailingRunEndsTheBenchmarkAndTheBusyProcess() {
        Path out = dir.resolve("failed");
        // 40,000,000 x 10 doubles are 3.2 GB: more than a child's heap (this JVM's -Xmx is passed on).
        Run r = run("bench", "balance", "--samples", "40000000", "--features", "10", "--epochs", "1",
            "--rounds", "1", "--modes", "busy", "--quiet", "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("a run failed") && r.err().contains("out of memory"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(Files.exists(out), "files were written");
        assertFalse(busyLoops().stream().anyMatch(ProcessHandle::isAlive), "a busy process was left running");
    }

    /** Options a child JVM must not get: each would open the same file or port in every child. */
    @Test
    void childrenGetTheHeapAndCollectorButNoAgentsOrRecordings() {
        for (String kept : List.of("-Xmx2g", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED",
            "-Dparatrain.bind=true", "--add-modules=jdk.incubator.vector", "-XX:AOTCache=/x/paratrain-cli.aot",
            "-Xlog:aot=off", "-Xlog:cds=off")) {
            assertTrue(ChildJvm.passedOn(kept), kept);
        }
        for (String dropped : List.of("-XX:StartFlightRecording=filename=a.jfr", "-agentlib:jdwp=transport=dt_socket",
            "-javaagent:x.jar", "-agentpath:/x.so", "-Xrunjdwp:server=y", "-Dcom.sun.management.jmxremote.port=9010",
            "-Xlog:gc:file=gc.log", "-Duser.dir=/tmp")) {
            assertFalse(ChildJvm.passedOn(dropped), dropped);
        }
    }

    @Test
    void badOptionsAreOneLineErrors() {
        Run r = run("bench", "balance", "--rounds", "0");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("--rounds must be in [1, 1000], got 0"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        Run modes = run("bench", "balance", "--modes", "idle");
        assertEquals(2, modes.status());
        assertTrue(modes.err().contains("--modes: 'idle' is not free, busy or slow"), modes.err());
    }

    /**
     * On MPI, with rank 1 half as fast and a rebalanced run beside the even split: every run is an
     * MPI job that ends with this JVM's final loss (the benchmark fails otherwise), the rows and
     * the verdicts name the rebalanced exchange, and the files say which backend ran.
     */
    @Test
    void mpiRunsWithASlowRankAndRebalancing() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/mpirun"))
            || System.getenv("PARATRAIN_REQUIRE_MPI") != null, "mpirun is not installed");
        Path out = dir.resolve("balance-mpi");
        Run r = run("bench", "balance", "--backend", "mpi", "--modes", "slow", "--rebalance", "10",
            "--samples", "2000", "--features", "3", "--epochs", "200", "--rounds", "1", "--quiet", "--out",
            out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("MPI processes") && r.out().contains("| one slow rank | 1 | master-worker |")
            && r.out().contains("| one slow rank | 2 | master-worker, rebalance 10 |"), r.out());
        assertTrue(r.out().contains("rank 1 half as fast: 2 ranks (master-worker, rebalance 10) take"), r.out());
        JsonNode json = RunWriter.json().readTree(out.resolve("balance.json").toFile());
        assertEquals("mpi", json.get("backend").asText());
        assertEquals(3, json.get("rows").size(), "1 rank, 2 ranks split evenly, 2 ranks rebalanced");
        // The rebalanced exchange's name has a comma: the CSV quotes it, so every record has the header's 8 fields.
        try (var parser = org.apache.commons.csv.CSVFormat.DEFAULT.builder().setHeader().get()
            .parse(Files.newBufferedReader(out.resolve("balance.csv")))) {
            List<org.apache.commons.csv.CSVRecord> records = parser.getRecords();
            assertEquals(3, records.size());
            for (org.apache.commons.csv.CSVRecord rec : records) {
                assertEquals(8, rec.size(), rec.toString());
            }
            assertEquals("master-worker, rebalance 10", records.get(2).get("exchange"));
        }
        double loss = Training.local(KernelData.generate(2000, 3), BenchBalanceCommand.training(2000, 200, 1,
            "master-worker")).finalLoss();
        assertEquals(loss, json.get("final_loss").asDouble());
    }

    private static List<ProcessHandle> busyLoops() {
        return ProcessHandle.current().descendants().filter(h -> h.info().commandLine().orElse("")
            .contains("busy-loop")).toList();
    }
}
