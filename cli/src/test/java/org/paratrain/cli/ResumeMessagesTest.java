package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --resume says where it resumed from; --resume-if-present starts a job's first run, and its restart resumes. */
class ResumeMessagesTest {
    @TempDir
    Path dir;

    @Test
    void theSameCommandStartsFreshThenResumesSayingFromWhere() throws Exception {
        Path data = dir.resolve("d");
        assertEquals(0, CliTest.run("generate", "regression", "--samples", "200", "--features", "2", "--out",
            data.toString()).status());
        Path ck = dir.resolve("ck");
        String[] cmd = {"train", "--x", data.resolve("X.in").toString(), "--y", data.resolve("y.in").toString(),
            "--epochs", "20", "--checkpoint-dir", ck.toString(), "--checkpoint-every", "5", "--resume", ck.toString(),
            "--resume-if-present", "--quiet"};
        CliTest.Run first = CliTest.run(cmd);
        assertEquals(0, first.status(), first.err());
        assertTrue(first.out().contains("no checkpoint in " + ck + " yet: starting from the beginning"), first.out());
        List<Path> files;
        try (var s = Files.list(ck)) {
            files = s.sorted().toList();
        }
        assertTrue(!files.isEmpty(), "checkpoints written");
        CliTest.Run again = CliTest.run(cmd);
        assertEquals(0, again.status(), again.err());
        assertTrue(again.out().contains("resuming from " + ck.resolve("checkpoint-e000000020")) && again.out().contains(
            ": after epoch 20"), again.out());
        CliTest.Run empty = CliTest.run("train", "--x", data.resolve("X.in").toString(), "--y",
            data.resolve("y.in").toString(), "--resume", Files.createDirectories(dir.resolve("none")).toString());
        assertEquals(1, empty.status());
        assertTrue(empty.err().contains("no checkpoint files"), empty.err());
        assertEquals(1, empty.err().strip().lines().count(), empty.err());
    }
}
