package org.paratrain.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result's files appear together or not at all: into a new directory, into one that holds an
 * older result, and when a rename fails part way (the older files come back); and single files
 * written through links and into FIFOs without replacing them.
 */
class StagedFilesTest {
    private static final List<String> NAMES = List.of("a.txt", "b.txt", "c.txt");

    @TempDir
    Path dir;

    private static void write(StagedFiles s, String text) {
        for (String n : NAMES) {
            AtomicFiles.writeText(s.dir().resolve(n), w -> w.write(text + " " + n));
        }
    }

    private static Map<String, String> contents(Path d) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (var files = Files.list(d)) {
            for (Path f : files.toList()) {
                m.put(f.getFileName().toString(), Files.readString(f));
            }
        }
        return m;
    }

    private Map<String, String> siblings() throws IOException {
        return contents(dir);
    }

    @Test
    void aNewDirectoryAppearsWholeAndNothingElseIsLeft() throws IOException {
        Path out = dir.resolve("deep/er/out");
        try (StagedFiles s = StagedFiles.into(out)) {
            write(s, "new");
            s.publish(NAMES);
        }
        assertEquals(Map.of("a.txt", "new a.txt", "b.txt", "new b.txt", "c.txt", "new c.txt"), contents(out));
        assertEquals(List.of("out"), Files.list(dir.resolve("deep/er")).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void aFailedRunLeavesNoDirectoryItMade() throws IOException {
        Path out = dir.resolve("deep/er/out");
        try (StagedFiles s = StagedFiles.into(out)) {
            write(s, "new");
            // no publish: the run failed
        }
        assertEquals(Map.of(), siblings(), "the parents made for the staging directory are gone again");
    }

    @Test
    void aRenameThatFailsPartWayPutsTheOlderFilesBack() throws IOException {
        Path out = Files.createDirectory(dir.resolve("out"));
        Files.writeString(out.resolve("a.txt"), "old a");
        Files.writeString(out.resolve("b.txt"), "old b");
        Files.writeString(out.resolve("mine.txt"), "the user's own");
        Map<String, String> before = contents(out);
        int[] renames = {0};
        try (StagedFiles s = StagedFiles.into(out)) {
            write(s, "new");
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> s.publish(NAMES, (from, to) -> {
                if (++renames[0] == 3) {
                    throw new java.nio.file.FileSystemException(to.toString(), null, "No space left on device");
                }
                AtomicFiles.rename(from, to);
            }));
            assertEquals("cannot write " + out + ": no space left on device", e.getMessage());
        }
        assertEquals(3, renames[0]);
        assertEquals(before, contents(out), "a and b are the older files again; c, which was new, is not there");
        assertEquals(List.of("out"), Files.list(dir).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void aNameTakenByADirectoryOrLinkRefusesTheWholeResultFirst() throws IOException {
        Path out = Files.createDirectory(dir.resolve("out"));
        Files.writeString(out.resolve("a.txt"), "old a");
        Files.createDirectory(out.resolve("b.txt"));
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "not to be touched");
        try (StagedFiles s = StagedFiles.into(out)) {
            write(s, "new");
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> s.publish(NAMES));
            assertTrue(e.getMessage().contains(out.resolve("b.txt") + " is a directory"), e.getMessage());
        }
        assertEquals("old a", Files.readString(out.resolve("a.txt")));
        Files.delete(out.resolve("b.txt"));
        Files.createSymbolicLink(out.resolve("b.txt"), elsewhere);
        try (StagedFiles s = StagedFiles.into(out)) {
            write(s, "new");
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> s.publish(NAMES));
            assertTrue(e.getMessage().contains(out.resolve("b.txt") + " is a symbolic link"), e.getMessage());
        }
        assertEquals("old a", Files.readString(out.resolve("a.txt")));
        assertEquals("not to be touched", Files.readString(elsewhere));
        assertTrue(Files.isSymbolicLink(out.resolve("b.txt")));
    }

    @Test
    void aSymbolicLinkIsWrittenThroughAndStaysALink() throws IOException {
        Path real = Files.writeString(dir.resolve("real.txt"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.txt"), Path.of("real.txt"));
        Path chain = Files.createSymbolicLink(dir.resolve("chain.txt"), link);
        AtomicFiles.writeText(chain, w -> w.write("new"));
        assertTrue(Files.isSymbolicLink(link) && Files.isSymbolicLink(chain));
        assertEquals("new", Files.readString(real));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.txt"), Path.of("made.txt"));
        AtomicFiles.writeText(dangling, w -> w.write("made"));
        assertTrue(Files.isSymbolicLink(dangling));
        assertEquals("made", Files.readString(dir.resolve("made.txt")));
    }

    @Test
    void aFifoIsWrittenAsAStreamAndStaysAFifo() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Process reader = new ProcessBuilder("cat", fifo.toString()).start();
        try {
            AtomicFiles.writeText(Files.createSymbolicLink(dir.resolve("to-fifo"), fifo), w -> w.write("through\n"));
            assertEquals("through\n", new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            reader.destroyForcibly().waitFor();
        }
        assertTrue(Files.isSymbolicLink(dir.resolve("to-fifo")));
        assertFalse(Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS), "still a FIFO");
        assertEquals(0010000, (Integer) Files.getAttribute(fifo, "unix:mode") & 0170000);
    }

    @Test
    void aDirectoryIsRefusedAndLeftAsItWas() throws IOException {
        Path d = Files.createDirectory(dir.resolve("d"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> AtomicFiles.writeText(d, w -> w.write("x")));
        assertEquals(d + " is a directory, expected a file", e.getMessage());
        assertTrue(Files.isDirectory(d));
    }
}
