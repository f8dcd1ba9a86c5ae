package org.paratrain.io;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Finds the staging directories of processes that are gone ({@code .NAME.partial-PID-NNN}
 * whose PID no longer runs) and deletes them.
 *
 * <p>A PID may have been reused by an unrelated process since: the directory's creator was
 * alive while it last changed the directory, so a process with that PID that started after the
 * directory's last modification cannot be its creator (with a margin of a few seconds: the JVM
 * knows process start times only to about a second). Names without a PID (made by older
 * versions) are left alone, since nothing tells whether their process still runs.
 */
final class StaleStaging {
    private static final long START_TIME_SLACK_SECONDS = 5;

    private StaleStaging() { }

    /** Deletes the stale directories in {@code parent} whose names start with {@code prefix}. */
    static void remove(Path parent, String prefix) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, e -> isCandidate(e, prefix))) {
            for (Path dir : entries) {
                long pid = pid(dir.getFileName().toString().substring(prefix.length()));
                if (pid > 0 && !creatorRuns(pid, dir)) {
                    AtomicFiles.deleteQuietly(dir);
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // Cleaning up after others is a courtesy: failing at it must not fail this run.
        }
    }

    private static boolean isCandidate(Path entry, String prefix) {
        return entry.getFileName().toString().startsWith(prefix) && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS);
    }

    /** The PID in {@code PID-NNN}, or -1 when the name has none. */
    static long pid(String suffix) {
        int dash = suffix.indexOf('-');
        if (dash <= 0) {
            return -1;
        }
        try {
            return Long.parseLong(suffix.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether the process that made {@code dir} may still be running. */
    static boolean creatorRuns(long pid, Path dir) {
        if (pid == ProcessHandle.current().pid()) {
            return true;
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return false;
        }
        Optional<Instant> started = p.get().info().startInstant();
        try {
            Instant changed = Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toInstant();
            return started.isEmpty() || !started.get().isAfter(changed.plusSeconds(START_TIME_SLACK_SECONDS));
        } catch (IOException e) {
            return true;
        }
    }
}
