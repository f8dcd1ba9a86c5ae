package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.RankFailedException;

/**
 * Failures that come from the machine rather than the command line: a missing MPI library,
 * memory running out, a byte-order mark from a spreadsheet. Some need a process of their own
 * (an environment variable, a small heap), started from this JVM's class path.
 */
class EnvironmentErrorsTest {
    @TempDir
    Path dir;

    record Proc(int status, String out, String err) { }

    /** Runs paratrain's main in a new JVM with {@code env} added and {@code jvm} options. */
    static Proc java(Map<String, String> env, List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        var out = p.getInputStream().readAllBytes();
        var err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished");
        return new Proc(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    void data() throws IOException {
        StringBuilder x = new StringBuilder();
        StringBuilder y = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            x.append(i % 7).append(' ').append(i % 5).append('\n');
            y.append(i % 7 + 2 * (i % 5)).append('\n');
        }
        Files.writeString(dir.resolve("X.in"), x);
        Files.writeString(dir.resolve("y.in"), y);
    }

    static void oneCleanLine(Proc p, String... mentions) {
        assertEquals(1, p.err().lines().count(), p.err());
        for (String m : mentions) {
            assertTrue(p.err().contains(m), m + ": " + p.err());
        }
        assertFalse(p.err().contains("Exception") || p.err().contains("\tat "), p.err());
    }

    @Test
    void aMissingMpiLibraryIsOneLineBeforeMpirunStarts() throws Exception {
        data();
        Proc p = java(Map.of("PARATRAIN_MPI_LIB", "/nonexistent/libmpi.so.40"), List.of(), "train", "--x",
            dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(), "--backend", "mpi", "--nodes", "2",
            "--out", dir.resolve("run").toString());
        assertEquals(1, p.status(), p.err());
        oneCleanLine(p, "PARATRAIN_MPI_LIB", "/nonexistent/libmpi.so.40");
        assertFalse(Files.exists(dir.resolve("run")));
    }

    @Test
    void aMissingMpiLibraryInsideAnMpiJobIsSaidOnceByRankZero() throws Exception {
        data();
        String[] args = {"train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--backend", "mpi", "--nodes", "2"};
        for (int rank = 0; rank < 2; rank++) {
            // What mpirun puts in each rank's environment.
            Proc p = java(Map.of("PARATRAIN_MPI_LIB", "libnompi-at-all.so.1", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_COMM_WORLD_RANK", Integer.toString(rank)), List.of(), args);
            assertEquals(1, p.status(), p.err());
            if (rank == 0) {
                oneCleanLine(p, "libnompi-at-all.so.1");
            } else {
                assertEquals("", p.err(), "only rank 0 says it");
            }
        }
    }

    @Test
    void theLibraryCheckNamesWhatIsWrong() {
        assertTrue(assertThrows(BackendException.class, () -> InputFiles.mpiLibrary("/no/such/libmpi.so")).getMessage()
            .contains("does not exist"));
        assertTrue(assertThrows(BackendException.class, () -> InputFiles.mpiLibrary("libno-such-mpi.so.7")).getMessage()
            .contains("cannot be loaded"));
        InputFiles.mpiLibrary(null);
        InputFiles.mpiLibrary(" ");
    }

    @Test
    void runningOutOfMemoryInARankIsOneLineWithAdvice() throws Exception {
        data();
        // Scratch space of an MLP over a block of 2000 samples x 20000 units, on a heap of 64 MB.
        Proc p = java(Map.of(), List.of("-Xmx64m"), "train", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--model", "mlp-regression", "--layers", "20000", "--block-size", "2000",
            "--batch-size", "0", "--epochs", "2", "--lr", "1e-6", "--out", dir.resolve("run").toString());
        assertEquals(1, p.status(), p.err());
        oneCleanLine(p, "out of memory", "PARATRAIN_JAVA_OPTS=-Xmx");
        assertFalse(Files.exists(dir.resolve("run")));
    }

    @Test
    void outOfMemoryAnywhereIsDescribed() {
        Failures.Outcome o = Failures.describe(new RankFailedException(3, new OutOfMemoryError("Java heap space")));
        assertEquals(1, o.status());
        assertTrue(o.message().startsWith("rank 3: out of memory (Java heap space)") && o.message()
            .contains("PARATRAIN_JAVA_OPTS=-Xmx"), o.message());
        NoClassDefFoundError later = new NoClassDefFoundError("Could not initialize class X$Lib");
        later.initCause(new ExceptionInInitializerError("Exception " + BackendException.class.getName()
            + ": no MPI library found [in thread \"main\"]"));
        assertEquals(new Failures.Outcome(1, "no MPI library found"), Failures.describe(later));
        assertEquals(3, Failures.describe(new IllegalStateException("a bug")).status());
    }

    @Test
    void byteOrderMarksFromSpreadsheetsAreAccepted() throws IOException {
        String bom = "\uFEFF";
        Files.writeString(dir.resolve("X.in"), bom + "1 2\n2 1\n3 3\n4 0\n");
        Files.writeString(dir.resolve("y.in"), bom + "5\n4\n9\n4\n");
        Files.writeString(dir.resolve("d.csv"), bom + "label,a,b\n0,1,2\n1,2,1\n0,3,3\n1,4,0\n");
        Files.writeString(dir.resolve("d.svm"), bom + "0 1:1 2:2\n1 1:2 2:1\n");
        List<String[]> runs = List.of(
            new String[] {"train", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString()},
            new String[] {"train", "--format", "csv", "--x", dir.resolve("d.csv").toString(), "--label", "label",
                "--model", "logistic"},
            new String[] {"train", "--format", "libsvm", "--x", dir.resolve("d.svm").toString(), "--model",
                "logistic"});
        for (String[] args : runs) {
            StringWriter err = new StringWriter();
            String[] all = BadInput.concat(args, "--epochs", "3", "--lr", "0.001");
            int status = Main.execute(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), all);
            assertEquals(0, status, String.join(" ", all) + ": " + err);
        }
    }
}
