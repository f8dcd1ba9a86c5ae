package org.paratrain.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files of one result, made in a staging directory beside the output directory and
 * published all together or not at all.
 *
 * <p>Publishing into an output directory that does not exist yet renames the staging directory
 * itself: one atomic step. Into an existing one, every file is checked first (a name taken by a
 * directory, a link or a device refuses the whole result before anything moves); each older file
 * is kept as a hard link in the staging directory while the new ones are renamed over; if a
 * rename fails (a full disk, a file system gone read-only), the files already replaced get their
 * older versions back, so the directory ends either wholly new or exactly as it was. Only a
 * kill -9 between two renames (microseconds) could leave it mixed; a SIGTERM or Ctrl-C waits for
 * the renames ({@link ExitCleanup#publish}).
 *
 * <p>Usage: {@code try (StagedFiles s = StagedFiles.into(out)) { write into s.dir(); s.publish(names); }}.
 * Closing deletes the staging directory and, when nothing was published, the parent directories
 * made for it.
 */
public final class StagedFiles implements AutoCloseable {
    private static final String BACKUP = ".old-";
    private final Path target;
    private final Path stage;
    private final List<Path> madeParents;
    private boolean published;

    private StagedFiles(Path target, Path stage, List<Path> madeParents) {
        this.target = target;
        this.stage = stage;
        this.madeParents = madeParents;
    }

    /**
     * Makes a staging directory for a result that goes into {@code target}.
     *
     * @param target the output directory (it may exist, or be a link to one)
     * @return the staging area
     * @throws UncheckedIOException naming {@code target}, if it cannot be made
     */
    public static StagedFiles into(Path target) {
        Path dir = outputDirectory(target);
        List<Path> made;
        try {
            made = Directories.make(dir.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(Directories.message(target, e), e);
        }
        try {
            return new StagedFiles(dir, AtomicFiles.stagingDirectory(dir), made);
        } catch (RuntimeException e) {
            Directories.remove(made);
            throw e;
        }
    }

    /** {@return the directory to write the result's files into} */
    public Path dir() {
        return stage;
    }

    /**
     * Moves the named files of {@link #dir} into the output directory, all or none.
     *
     * @param names the files' names, relative to {@link #dir}
     * @throws UncheckedIOException naming the output, if it cannot take them (nothing changed then)
     */
    public void publish(List<String> names) {
        publish(names, AtomicFiles::rename);
    }

    /** A rename step; tests put in one that fails part way. */
    @FunctionalInterface
    interface Rename {
        void move(Path from, Path to) throws IOException;
    }

    /** {@link #publish(List)} with the renames into an existing directory done by {@code rename}. */
    void publish(List<String> names, Rename rename) {
        try {
            for (String n : names) {
                if (!Files.isRegularFile(stage.resolve(n), LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException("the result has no file " + n);
                }
            }
            ExitCleanup.publish(() -> {
                if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                    whole(names);
                } else if (Files.isDirectory(target)) {
                    fileByFile(names, rename);
                } else if (Files.isSymbolicLink(target)) {
                    throw new IOException(target + " is a symbolic link that leads to no directory");
                } else {
                    throw new IOException(target + " is a file, not a directory");
                }
            });
            published = true;
        } catch (IOException e) {
            throw new UncheckedIOException(Directories.message(target, e), e);
        }
    }

    /** A new output directory: the staging directory, with only the result in it, renamed. */
    private void whole(List<String> names) throws IOException {
        try (var entries = Files.list(stage)) {
            for (Path p : entries.toList()) {
                if (!names.contains(p.getFileName().toString())) {
                    AtomicFiles.deleteQuietly(p);
                }
            }
        }
        if (stage.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(stage, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.move(stage, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        ExitCleanup.forget(stage);
    }

    private void fileByFile(List<String> names, Rename rename) throws IOException {
        for (String n : names) {
            Path t = target.resolve(n);
            if (Files.exists(t, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(t, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(t + " is " + (Files.isDirectory(t, LinkOption.NOFOLLOW_LINKS) ? "a directory"
                    : Files.isSymbolicLink(t) ? "a symbolic link" : "not a regular file")
                    + ", where the result's " + n + " goes; nothing was written");
            }
        }
        List<String> replaced = new ArrayList<>();
        try {
            for (String n : names) {
                Path t = target.resolve(n);
                if (Files.exists(t, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createLink(stage.resolve(BACKUP + n), t);
                }
                replaced.add(n);
                rename.move(stage.resolve(n), t);
            }
        } catch (IOException e) {
            undo(replaced);
            throw e;
        }
    }

    /** Puts back the older file (or none) of every name replaced. */
    private void undo(List<String> replaced) {
        for (int i = replaced.size() - 1; i >= 0; i--) {
            String n = replaced.get(i);
            Path old = stage.resolve(BACKUP + n);
            try {
                if (Files.exists(old, LinkOption.NOFOLLOW_LINKS)) {
                    AtomicFiles.rename(old, target.resolve(n));
                } else if (!Files.exists(stage.resolve(n), LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(target.resolve(n));     // it was new: it goes again
                }
            } catch (IOException ignored) {
                // The first failure is the one to report; this one could only be worse luck.
            }
        }
    }

    /** A symbolic link to a directory is written through, and stays a link. */
    private static Path outputDirectory(Path target) {
        if (Files.isSymbolicLink(target) && Files.isDirectory(target)) {
            try {
                return target.toRealPath();
            } catch (IOException e) {
                return target;
            }
        }
        return target;
    }

    @Override
    public void close() {
        AtomicFiles.deleteQuietly(stage);
        if (!published) {
            Directories.remove(madeParents);
        }
    }
}
