package org.paratrain.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What a path named for output is, and so how it may be written without harm.
 *
 * <p>An atomic write renames a new file over its target. That is right for a regular file and
 * wrong for everything else: renamed over a symbolic link it replaces the link (as root,
 * {@code /dev/stdout} becomes a plain file for the whole machine), over a FIFO or a device it
 * replaces the node. So:
 * <ul>
 *   <li>a regular file, or nothing yet, is replaced by rename ({@link Kind#FILE});</li>
 *   <li>a symbolic link is followed, and its final target is treated by these rules: the link
 *       itself stays as it was;</li>
 *   <li>a character device or FIFO (a terminal, {@code /dev/null}, a pipe to another program),
 *       and anything under {@code /proc} ({@code /dev/stdout} leads to {@code /proc/self/fd/1},
 *       whose target may be a pipe with no path), is written in place as a stream
 *       ({@link Kind#STREAM});</li>
 *   <li>a directory, a block device (a disk) and a socket are refused.</li>
 * </ul>
 */
public final class OutputTarget {
    /** How a target is written. */
    public enum Kind {
        /** A regular file (or none yet): written beside it and renamed over it. */
        FILE,
        /** A device or FIFO: opened for writing, as a shell's {@code >} would, and never replaced. */
        STREAM
    }

    /**
     * Where the bytes go and how.
     *
     * @param path the path to write: a symbolic link's final target for {@link Kind#FILE}
     * @param kind how to write it
     */
    public record Resolved(Path path, Kind kind) { }

    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;
    /** At most this many links are followed, as the kernel's own limit (40) on a path lookup. */
    private static final int MAX_LINKS = 40;

    private OutputTarget() { }

    /**
     * Resolves {@code given} for writing.
     *
     * @param given the path named for output
     * @return where and how to write it
     * @throws IOException naming {@code given}, if it must not be written (a directory, a disk,
     *     a socket, a loop of links)
     */
    public static Resolved resolve(Path given) throws IOException {
        Path p = given.toAbsolutePath();
        for (int links = 0; ; links++) {
            if (special(p)) {
                return new Resolved(p, Kind.STREAM);
            }
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (java.nio.file.NoSuchFileException e) {
                return new Resolved(p, Kind.FILE);
            }
            if (a.isRegularFile()) {
                return new Resolved(p, Kind.FILE);
            }
            if (a.isDirectory()) {
                throw new IOException(given + " is a directory, expected a file");
            }
            if (a.isSymbolicLink()) {
                if (links == MAX_LINKS) {
                    throw new IOException(given + ": too many levels of symbolic links");
                }
                Path target = Files.readSymbolicLink(p);
                p = p.getParent().resolve(target).normalize();
                continue;
            }
            return new Resolved(p, other(given, p));
        }
    }

    /** A FIFO or character device is a stream; a disk or socket is refused. */
    private static Kind other(Path given, Path p) throws IOException {
        int type = mode(p) & S_IFMT;
        if (type == S_IFIFO || type == S_IFCHR) {
            return Kind.STREAM;
        }
        if (type == S_IFBLK) {
            throw new IOException(given + " is a block device, expected a file");
        }
        if (type == S_IFSOCK) {
            throw new IOException(given + " is a socket, expected a file");
        }
        throw new IOException(given + " is not a regular file");
    }

    private static int mode(Path p) throws IOException {
        try {
            return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return 0;   // no unix view: refused as "not a regular file"
        }
    }

    /** The processes' descriptors: links that may lead to no path at all, opened as they are. */
    private static boolean special(Path abs) {
        return abs.startsWith("/proc");
    }
}
