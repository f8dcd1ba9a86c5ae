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
 *
 * <p>Staging directories are named {@code .NAME.partial-PID-NNN} after the process that made
 * them. A process ended by a signal deletes its own (see {@link ExitCleanup}); one killed
 * outright cannot, so the next staging directory made beside the same target removes those
 * whose process is gone.
 */
public final class AtomicFiles {
    private AtomicFiles() { }

    /** Receives a writer for the file's content. */
    @FunctionalInterface
    public interface Content {
        /**
         * Writes the whole content; what it throws leaves the target as it was.
         *
         * @param out a buffered UTF-8 writer into the temporary file, flushed and closed by the caller
         * @throws IOException if writing fails
         */
        void write(Writer out) throws IOException;
    }

    /** Receives a stream for the file's bytes. */
    @FunctionalInterface
    public interface Bytes {
        /**
         * Writes the whole content; what it throws leaves the target as it was.
         *
         * @param out a buffered stream into the temporary file, closed by the caller
         * @throws IOException if writing fails
         */
        void write(OutputStream out) throws IOException;
    }

    /**
     * Writes UTF-8 text to {@code target} atomically, creating parent directories.
     *
     * @param target  the file to write or replace
     * @param content writes the text
     * @throws UncheckedIOException naming the target, if it cannot be written
     */
    public static void writeText(Path target, Content content) {
        writeBytes(target, out -> {
            Writer w = new BufferedWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
            content.write(w);
            w.flush();
        });
    }

    /**
     * Writes bytes to {@code target} atomically, creating parent directories. A symbolic link
     * is written through to its final target and stays a link; a device or FIFO is written as
     * a stream; a directory, disk or socket is refused (see {@link OutputTarget}). A failure
     * leaves the target as it was and removes the directories this call made.
     *
     * @param target  the file to write or replace
     * @param content writes the bytes
     * @throws UncheckedIOException naming the target, if it cannot be written
     * @throws java.util.concurrent.CancellationException if a guard ({@link ExitCleanup#guardPublishing}) refuses it
     */
    public static void writeBytes(Path target, Bytes content) {
        Path tmp = null;
        java.util.List<Path> made = java.util.List.of();
        boolean done = false;
        try {
            ExitCleanup.checkGuards();      // before the temporary file: a refusal leaves nothing behind
            OutputTarget.Resolved where = OutputTarget.resolve(target);
            if (where.kind() == OutputTarget.Kind.STREAM) {
                stream(where.path(), content);
                done = true;
                return;
            }
            Path file = where.path();
            made = Directories.make(file.getParent());
            tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
            ExitCleanup.deleteOnExit(tmp);
            readableByAll(tmp);
            try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
                content.write(out);
            }
            ExitCleanup.checkGuards();      // a refusal now deletes the temporary file (below)
            rename(tmp, file);
            ExitCleanup.forget(tmp);
            tmp = null;
            done = true;
        } catch (IOException e) {
            throw new UncheckedIOException(Directories.message(target, e), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // The write already failed; that is the error to report.
                }
                ExitCleanup.forget(tmp);
            }
            if (!done) {
                Directories.remove(made);
            }
        }
    }

    /** Renames {@code from} over {@code to}, atomically where the file system can. */
    static void rename(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Writes into a device or FIFO as it is. This process's own standard output and error are
     * written through the descriptors it already has, so that a shell's {@code >>} still appends.
     */
    private static void stream(Path path, Bytes content) throws IOException {
        String self = "/proc/" + ProcessHandle.current().pid() + "/fd/";
        String p = path.toString();
        java.io.FileDescriptor fd = p.equals("/proc/self/fd/1") || p.equals(self + "1") ? java.io.FileDescriptor.out
            : p.equals("/proc/self/fd/2") || p.equals(self + "2") ? java.io.FileDescriptor.err : null;
        if (fd != null) {
            OutputStream out = new java.io.BufferedOutputStream(new java.io.FileOutputStream(fd), 1 << 16);
            content.write(out);
            out.flush();        // not closed: the descriptor stays the process's
            return;
        }
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(path,
            java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.APPEND), 1 << 16)) {
            content.write(out);
        }
    }

    /** Temporary files are created private (0600); results are meant to be read by others too. */
    private static void readableByAll(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    /**
     * Makes a hidden empty directory beside {@code target} (on the same file system, so that
     * its files can be renamed into place): a run's outputs are made there and moved only
     * when every one exists. It is deleted if the process is ended by a signal, and those a
     * killed process left beside the same target are removed.
     *
     * @param target the output directory the files are meant for
     * @return the new directory
     * @throws UncheckedIOException if it cannot be made
     * @throws java.util.concurrent.CancellationException if the process is exiting or a guard
     *     ({@link ExitCleanup#guardPublishing}) refuses
     */
    public static Path stagingDirectory(Path target) {
        Path parent = target.toAbsolutePath().getParent();
        String prefix = "." + target.getFileName() + ".partial-";
        try {
            ExitCleanup.checkGuards();
            Files.createDirectories(parent);
            StaleStaging.remove(parent, prefix);
            // Registered before it exists: a signal between making it and registering it would leave it behind.
            java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
            while (true) {
                Path dir = parent.resolve(prefix + ProcessHandle.current().pid() + "-" + Long.toUnsignedString(
                    random.nextLong(), 36));
                ExitCleanup.deleteOnExit(dir);
                try {
                    Files.createDirectory(dir, parent.getFileSystem().supportedFileAttributeViews().contains("posix")
                        ? new java.nio.file.attribute.FileAttribute<?>[] {java.nio.file.attribute.PosixFilePermissions
                            .asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"))}
                        : new java.nio.file.attribute.FileAttribute<?>[0]);
                    if (ExitCleanup.exiting()) {
                        // The exit's clean-up may have run before the directory existed: undo it here.
                        deleteQuietly(dir);
                        throw new java.util.concurrent.CancellationException("the process is exiting");
                    }
                    return dir;
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    ExitCleanup.forget(dir);        // another's name: draw again
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory beside " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes a directory tree, ignoring failures: the clean-up after an error, which must
     * not hide that error.
     *
     * @param dir the tree's root; nothing happens if it does not exist
     */
    public static void deleteQuietly(Path dir) {
        ExitCleanup.forget(dir);
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // Best effort: a leftover staging file is harmless.
                }
            });
        } catch (IOException ignored) {
            // Best effort, as above.
        }
    }
}
