package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package graph around the backends, read from the sources so that it cannot erode
 * unnoticed: outside {@code org.paratrain.comm} only the seam, {@code train/Backend.java},
 * names the MPI backend's package, and {@code comm} itself imports nothing from the layers
 * above it.
 */
class BackendSeamTest {
    private static final Path MAIN = Path.of("src/main/java/org/paratrain");
    private static final Path TEST = Path.of("src/test/java/org/paratrain");
    private static final Path SEAM = MAIN.resolve("train/Backend.java");
    /** An import from the MPI package, or a class of it named in full in code. */
    private static final Pattern MPI = Pattern.compile("org\\.paratrain\\.comm\\.mpi\\.([A-Z]|\\*)");
    private static final Pattern UPWARD = Pattern.compile(
        "^import (static )?org\\.paratrain\\.(cli|experiment|train|model|optim|collective|data)\\b", Pattern.MULTILINE);

    @Test
    void onlyTheSeamNamesTheMpiPackageOutsideComm() {
        List<String> offenders = Stream.of(MAIN, TEST).flatMap(BackendSeamTest::javaFiles)
            .filter(f -> !f.startsWith(MAIN.resolve("comm")) && !f.startsWith(TEST.resolve("comm")) && !f.equals(SEAM))
            .filter(f -> MPI.matcher(read(f)).find())
            .map(Path::toString).toList();
        assertEquals(List.of(), offenders, "outside org.paratrain.comm, reach the MPI backend through "
            + "org.paratrain.train.Backend (or Communicator.nativeCollectives()), not org.paratrain.comm.mpi");
        assertTrue(MPI.matcher(read(SEAM)).find(), "the seam itself moved: update this test");
    }

    @Test
    void commImportsNothingFromTheLayersAboveIt() {
        List<String> offenders = javaFiles(MAIN.resolve("comm"))
            .filter(f -> UPWARD.matcher(read(f)).find())
            .map(Path::toString).toList();
        assertEquals(List.of(), offenders, "comm is the bottom layer but one: it must not import the layers above");
    }

    private static Stream<Path> javaFiles(Path root) {
        assertTrue(Files.isDirectory(root), root + " not found; run from the project directory");
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
