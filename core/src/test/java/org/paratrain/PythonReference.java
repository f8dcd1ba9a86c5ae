package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Python with numpy, scikit-learn or PyTorch, as the independent reference that tests of the
 * NumPy and LibSVM readers and of the safetensors export compare against: a test has Python write files in its temporary
 * directory with numpy's or scikit-learn's own writers, and what they read back. Skipped where
 * {@code /usr/bin/python3} or the module is missing, except where {@code PARATRAIN_REQUIRE_NUMPY}
 * (or {@code PARATRAIN_REQUIRE_SKLEARN}, {@code PARATRAIN_REQUIRE_TORCH}) is set, as CI sets them after installing both: there
 * a skip would hide a failure.
 */
public final class PythonReference {
    /** Debian's interpreter, whose numpy and scikit-learn are Debian's packages (not a user's environment). */
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    private PythonReference() { }

    /** Skips the test (or fails it, under {@code PARATRAIN_REQUIRE_NUMPY}) where numpy cannot be imported. */
    public static void needNumpy() {
        need("numpy", "PARATRAIN_REQUIRE_NUMPY", "python3-numpy");
    }

    /** Skips the test (or fails it, under {@code PARATRAIN_REQUIRE_SKLEARN}) where scikit-learn cannot be imported. */
    public static void needSklearn() {
        need("sklearn", "PARATRAIN_REQUIRE_SKLEARN", "python3-sklearn");
    }

    /** Skips the test (or fails it, under {@code PARATRAIN_REQUIRE_TORCH}) where PyTorch cannot be imported. */
    public static void needTorch() {
        need("torch", "PARATRAIN_REQUIRE_TORCH", "python3-torch");
    }

    private static void need(String module, String requiredBy, String apt) {
        boolean have = Files.isExecutable(PYTHON) && exitStatus(Path.of("."), "import " + module,
            ProcessBuilder.Redirect.DISCARD) == 0;
        if (!have && System.getenv(requiredBy) != null) {
            fail(requiredBy + " is set, but " + PYTHON + " cannot import " + module + " (apt-get install " + apt + ")");
        }
        Assumptions.assumeTrue(have, PYTHON + " with " + module + " is not installed (apt-get install " + apt + ")");
    }

    /**
     * Runs {@code script} in {@code dir}; fails the test with Python's output if it fails.
     *
     * @param dir    the working directory, where the script writes its files
     * @param script Python source
     */
    public static void run(Path dir, String script) {
        Path log = dir.resolve(".python.log");
        assertEquals(0, exitStatus(dir, script, ProcessBuilder.Redirect.to(log.toFile())), () -> "python failed:\n"
            + read(log));
    }

    private static int exitStatus(Path dir, String script, ProcessBuilder.Redirect output) {
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c", script).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(output).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("python did not finish in 120 s");
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /**
     * {@return the little-endian float64 values of a file that numpy wrote with
     * {@code a.astype('<f8').tofile(name)}: the reference, bit for bit}
     * @param file the raw file
     */
    public static double[] float64(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        double[] v = new double[b.remaining() / 8];
        b.asDoubleBuffer().get(v);
        return v;
    }
}
