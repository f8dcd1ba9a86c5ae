package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run of scale removes the staging directories that killed runs left beside its output
 * ({@code .NAME.partial-PID-NNN}, PID gone), and keeps those of a process that still runs.
 */
class StagingCleanupTest {
    @TempDir
    Path dir;

    @Test
    void scaleRemovesStagingOfDeadProcessesAndKeepsThatOfLiveOnes() throws Exception {
        Process live = new ProcessBuilder("sleep", "60").start();
        try {
            Process dead = new ProcessBuilder("true").start();
            dead.waitFor();
            Path out = dir.resolve("scale");
            Path stale = staging(out, dead.pid());
            Path running = staging(out, live.pid());
            Path legacy = Files.createDirectory(dir.resolve(".scale.partial-123456789"));

            StringWriter err = new StringWriter();
            int status = Main.execute(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "scale",
                "--samples", "200", "--features", "1", "--nodes", "1,2", "--repeats", "1", "--warmup", "0",
                "--epochs", "5", "--quiet", "--out", out.toString());

            assertEquals(0, status, err.toString());
            assertTrue(Files.exists(out.resolve("table1.csv")));
            assertFalse(Files.exists(stale), "the directory of a process that is gone was removed");
            assertTrue(Files.exists(running.resolve("table1.csv")), "the directory of a running process was kept");
            assertTrue(Files.exists(legacy), "a name without a PID is left alone");
            try (var left = Files.list(dir)) {
                assertEquals(2, left.filter(p -> p.getFileName().toString().startsWith(".scale.partial-")).count(),
                    "the run removed its own staging directory");
            }
        } finally {
            live.destroyForcibly();
        }
    }

    /** SIGTERM to a running scale: exit status 143, its staging directory gone, --out never made. */
    @Test
    void sigtermToScaleRemovesItsStagingAndWritesNothing() throws Exception {
        Path out = dir.resolve("scale");
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "scale", "--samples", "2000", "--features", "4", "--nodes", "1,2", "--repeats", "1000", "--epochs", "2000",
            "--quiet", "--out", out.toString()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("scale.log").toFile()).start();
        try {
            long end = System.nanoTime() + 20_000_000_000L;
            while (stagingDirectories() == 0 && p.isAlive() && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            assertEquals(1, stagingDirectories(), Files.readString(dir.resolve("scale.log")));
            p.destroy();
            assertTrue(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(143, p.exitValue());
            assertEquals(0, stagingDirectories());
            assertFalse(Files.exists(out));
        } finally {
            p.destroyForcibly();
        }
    }

    private long stagingDirectories() throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.filter(e -> e.getFileName().toString().startsWith(".scale.partial-")).count();
        }
    }

    /** A staging directory as process {@code pid} would have made it, with a file in it. */
    private static Path staging(Path target, long pid) throws IOException {
        Path d = Files.createDirectory(target.resolveSibling("." + target.getFileName() + ".partial-" + pid + "-42"));
        Files.writeString(d.resolve("table1.csv"), "half-written");
        return d;
    }
}
