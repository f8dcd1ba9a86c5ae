package org.paratrain.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A guard of {@link ExitCleanup#guardPublishing} that says no (an MPI rank whose launcher died)
 * leaves the older file whole and nothing beside it: no temporary file, no new directory.
 */
class PublishGuardTest {
    @TempDir
    Path dir;

    @Test
    void aRefusalLeavesTheTargetAsItWas() throws Exception {
        Path target = dir.resolve("result.json");
        Files.writeString(target, "older");
        StagedFiles staged = StagedFiles.into(dir.resolve("out"));
        AtomicFiles.writeText(staged.dir().resolve("result.json"), w -> w.write("newer"));
        boolean[] answers = {true, false};
        int[] asked = {0};
        // Yes before the temporary file is made, no before the rename: the file written in between goes.
        Runnable unregister = ExitCleanup.guardPublishing(() -> answers[Math.min(asked[0]++, 1)]);
        try {
            assertThrows(CancellationException.class, () -> AtomicFiles.writeText(target, w -> w.write("newer")));
            assertEquals(2, asked[0]);
            assertThrows(CancellationException.class, () -> staged.publish(List.of("result.json")));
            assertThrows(CancellationException.class, () -> StagedFiles.into(dir.resolve("other")));
        } finally {
            unregister.run();
            staged.close();
        }
        assertEquals("older", Files.readString(target));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(target), files.toList());
        }
        AtomicFiles.writeText(target, w -> w.write("newer"));   // unguarded again
        assertEquals("newer", Files.readString(target));
    }
}
