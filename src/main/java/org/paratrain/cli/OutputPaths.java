package org.paratrain.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Output paths checked before any work: a run of hours must not end in "cannot write". A path
 * is refused when it, or a directory it would be made in, is a file, or when nothing may be
 * written there. Write permission is tested twice: {@link Files#isWritable} for the mode bits,
 * and by creating (and deleting) a file, since root passes every mode check yet cannot write
 * on a read-only file system.
 */
final class OutputPaths {
    private OutputPaths() { }

    /** {@code dir} is, or can be made as, a directory paratrain may write files into. */
    static void directory(String option, Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.exists(abs) && !Files.isDirectory(abs)) {
            throw new IllegalArgumentException(option + " " + dir + " is a file, not a directory");
        }
        writable(option, dir, existingAncestor(option, dir, abs));
    }

    /** {@code file} can be written (it may exist; it must not be a directory). */
    static void file(String option, Path file) {
        Path abs = file.toAbsolutePath().normalize();
        if (Files.isDirectory(abs)) {
            throw new IllegalArgumentException(option + " " + file + " is a directory, expected a file name");
        }
        if (Files.exists(abs) && !Files.isWritable(abs)) {
            throw new IllegalArgumentException(option + " " + file + ": permission denied (the file may not be written)");
        }
        Path parent = abs.getParent();
        writable(option, file, parent == null ? abs : existingAncestor(option, file, parent));
    }

    /** The nearest directory on the way up from {@code abs} that exists; refuses a file on the way. */
    private static Path existingAncestor(String option, Path given, Path abs) {
        Path p = abs;
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        if (p != null && !Files.isDirectory(p)) {
            throw new IllegalArgumentException(option + " " + given + ": " + p + " is a file, not a directory");
        }
        return p;
    }

    private static void writable(String option, Path given, Path dir) {
        if (dir == null) {
            return;
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalArgumentException(option + " " + given + ": permission denied (cannot write in " + dir
                + ")");
        }
        try {
            Files.delete(Files.createTempFile(dir, ".paratrain-write-test", ".tmp"));
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(option + " " + given + ": permission denied (cannot write in " + dir
                + ")");
        } catch (FileSystemException e) {
            String why = e.getReason() == null ? "cannot write" : e.getReason().toLowerCase(java.util.Locale.ROOT);
            throw new IllegalArgumentException(option + " " + given + ": " + why + " (cannot write in " + dir + ")");
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + given + ": cannot write in " + dir + ": "
                + e.getMessage());
        }
    }
}
