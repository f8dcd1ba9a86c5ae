package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The launcher records its start-up cache from {@code paratrain startup-training}: if one of its
 * commands stops working (an option renamed, say), the launcher would quietly go without a
 * cache. So: every command succeeds, and nothing is left in the temporary directory.
 */
class StartupTrainingTest {
    @Test
    void everyCommandRunsAndNothingIsLeftBehind() throws IOException {
        List<Path> before = leftovers();
        CliTest.Run r = CliTest.run("startup-training");
        assertEquals(0, r.status(), r.err());
        assertEquals(before, leftovers());
    }

    private static List<Path> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("paratrain-startup")).sorted().toList();
        }
    }
}
