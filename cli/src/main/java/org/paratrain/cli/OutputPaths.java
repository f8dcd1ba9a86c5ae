package org.paratrain.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.paratrain.io.OutputTarget;

/**
 * Output paths checked before any work: a run of hours must not end in "cannot write". A path
 * is refused when it, or a directory it would be made in, is a file, or when nothing may be
 * written there. Write permission is tested twice: {@link Files#isWritable} for the mode bits,
 * and by creating (and deleting) a file, since root passes every mode check yet cannot write
 * on a read-only file system.
 */
public final class OutputPaths {
    private OutputPaths() { }

    /**
     * Checks that {@code dir} is, or can be made as, a directory paratrain may write files into.
     *
     * @param option the option that names it, for the message
     * @param dir    the directory
     * @throws IllegalArgumentException naming the option and what is wrong
     */
    public static void directory(String option, Path dir) {
        named(option, dir);
        if (stdout(dir)) {
            throw new IllegalArgumentException(option + " - would be standard output, which cannot hold a directory of "
                + "files; give a directory");
        }
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.isSymbolicLink(abs) && !Files.isDirectory(abs)) {
            throw new IllegalArgumentException(option + " " + dir + " is a symbolic link that leads to no directory");
        }
        if (Files.exists(abs) && !Files.isDirectory(abs)) {
            throw new IllegalArgumentException(option + " " + dir + " is a file, not a directory");
        }
        writable(option, dir, existingAncestor(option, dir, abs));
    }

    /**
     * {@code dir} can take a result of the files {@code names}: a directory as {@link #directory}
     * wants, where none of those names is taken by a directory, link or device (which would
     * refuse the result only after the work).
     */
    static void directoryFor(String option, Path dir, java.util.List<String> names) {
        directory(option, dir);
        for (String n : names) {
            Path t = dir.resolve(n);
            if (Files.exists(t, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(t, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalArgumentException(option + " " + dir + ": " + t + " is "
                    + (Files.isDirectory(t, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? "a directory"
                    : Files.isSymbolicLink(t) ? "a symbolic link" : "not a regular file")
                    + ", where the result's " + n + " would go");
            }
        }
    }

    /**
     * {@code file} can be written (it may exist; it must not be a directory, a disk or a
     * socket). A device or FIFO is written as a stream and needs no more checks; {@code -}
     * (standard output) is the caller's to handle.
     */
    static void file(String option, Path file) {
        named(option, file);
        if (stdout(file)) {
            return;
        }
        try {
            if (OutputTarget.resolve(file).kind() == OutputTarget.Kind.STREAM) {
                return;
            }
            file = OutputTarget.resolve(file).path();
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + e.getMessage());
        }
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

    /** {@return whether {@code file} is {@code -}, standard output} */
    static boolean stdout(Path file) {
        return file != null && file.toString().equals("-");
    }

    /** An empty value would mean the current directory, which nobody asks for by saying nothing. */
    private static void named(String option, Path p) {
        if (p.toString().isBlank()) {
            throw new IllegalArgumentException(option + " is empty; expected a path");
        }
    }

    /**
     * Refuses an output that is one of the command's inputs: writing it would destroy what the
     * command reads (or read next time), and the result would not say what it was made from.
     *
     * @param option the output's option
     * @param out    the output file
     * @param inputs the command's input files (null entries skipped)
     */
    static void notAnInput(String option, Path out, Path... inputs) {
        Path in = stdout(out) ? null : input(out, inputs);
        if (in != null) {
            throw new IllegalArgumentException(option + " " + out + " is one of this command's inputs (" + in
                + "); choose another file, or the input would be overwritten");
        }
    }

    /**
     * Refuses an output directory where one of the files a command writes ({@code names}) is one
     * of its inputs.
     */
    static void notIntoInputs(String option, Path dir, java.util.List<String> names, Path... inputs) {
        for (String n : names) {
            Path in = input(dir.resolve(n), inputs);
            if (in != null) {
                throw new IllegalArgumentException(option + " " + dir + " would overwrite " + in + ", one of this "
                    + "command's inputs; choose another directory");
            }
        }
    }

    private static Path input(Path out, Path... inputs) {
        for (Path in : inputs) {
            if (in != null && same(out, in)) {
                return in;
            }
        }
        return null;
    }

    /** Whether two paths name one file: the same inode where both exist, else the same normalised path. */
    private static boolean same(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) {
                return Files.isSameFile(a, b);
            }
        } catch (IOException e) {
            // fall through to the names
        }
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
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
