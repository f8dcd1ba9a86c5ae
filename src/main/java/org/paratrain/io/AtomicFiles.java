package org.paratrain.io;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes files whole or not at all: into a temporary file beside the target, then renamed
 * over it, so a reader (or a crash) never sees half a file.
 */
public final class AtomicFiles {
    private AtomicFiles() { }

    /** Receives a writer for the file's content. */
    @FunctionalInterface
    public interface Content {
        /** Writes the whole content. */
        void write(Writer out) throws IOException;
    }

    /** Receives a stream for the file's bytes. */
    @FunctionalInterface
    public interface Bytes {
        /** Writes the whole content. */
        void write(OutputStream out) throws IOException;
    }

    /** Writes UTF-8 text to {@code target} atomically, creating parent directories. */
    public static void writeText(Path target, Content content) {
        writeBytes(target, out -> {
            Writer w = new BufferedWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
            content.write(w);
            w.flush();
        });
    }

    /** Writes bytes to {@code target} atomically, creating parent directories. */
    public static void writeBytes(Path target, Bytes content) {
        Path dir = target.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
            try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
                content.write(out);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // The write already failed; that is the error to report.
                }
            }
        }
    }
}
