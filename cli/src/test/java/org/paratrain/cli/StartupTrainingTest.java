package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher records its start-up cache from {@code paratrain startup-training}: if one of its
 * commands stops working (an option renamed, say), the launcher would quietly go without a
 * cache. So: every command succeeds, and nothing is left behind.
 */
class StartupTrainingTest {
    @TempDir
    Path dir;

    @Test
    void everyCommandRunsAndNothingIsLeftBehind() throws IOException {
        CliTest.Run r = CliTest.run("startup-training", "--work-dir", dir.toString());
        assertEquals(0, r.status(), r.err());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "its temporary directory is removed");
        }
    }
}
