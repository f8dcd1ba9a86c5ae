package org.paratrain.train.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.paratrain.train.TrainingState;

/**
 * A directory of checkpoints, {@code checkpoint-e<EPOCH>-s<STEP>.ckpt}, the newest last.
 *
 * <p>Each file is written so that a crash at any moment leaves either the old set or the
 * new one, never half a file: written to a temporary file in the same directory, forced to
 * disk, renamed over its name, and the directory forced too (so the rename itself survives
 * a power cut). Only then are checkpoints beyond the newest {@code keep} deleted. Reading
 * takes the newest one that is whole and intact, and warns about any it skips.
 */
public final class CheckpointStore {
    private static final Pattern NAME = Pattern.compile("checkpoint-e(\\d+)-s(\\d+)\\.ckpt");
    private final Path dir;
    private final int keep;

    /**
     * A store in a directory; nothing is written until the first {@link #write}.
     *
     * @param dir  where the checkpoints go (made if missing)
     * @param keep how many of the newest to keep, at least 1
     */
    public CheckpointStore(Path dir, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("the number of checkpoints to keep must be at least 1, got " + keep);
        }
        this.dir = dir;
        this.keep = keep;
    }

    /** The directory. */
    Path dir() {
        return dir;
    }

    /**
     * {@return the name {@link #write} gives the checkpoint after {@code step} steps of epoch
     * {@code epoch}, for ranks that must all read the one file another rank chose}
     * @param epoch the epoch
     * @param step  the step within it
     */
    public static String fileName(int epoch, int step) {
        return String.format("checkpoint-e%09d-s%09d.ckpt", epoch, step);
    }

    /**
     * Writes a checkpoint durably, then deletes all but the newest {@code keep}.
     *
     * @param state the training state, which the trainer no longer changes
     * @param meta  what the run is (settings, data fingerprint, provenance), for {@code --resume}'s checks
     * @return the file written, {@code checkpoint-e<EPOCH>-s<STEP>.ckpt}
     * @throws UncheckedIOException naming the file, if it cannot be written
     */
    public Path write(TrainingState state, JsonNode meta) {
        Path target = dir.resolve(fileName(state.epoch(), state.step()));
        byte[] bytes = CheckpointFile.encode(state, meta);
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            removeStaleTemporaries();
            tmp = Files.createTempFile(dir, ".checkpoint-" + ProcessHandle.current().pid() + "-", ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            move(tmp, target);
            tmp = null;
            forceDirectory(dir);
            prune();
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write checkpoint " + target + ": " + e.getMessage(), e);
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

    /**
     * The newest intact checkpoint under {@code path} (a checkpoint directory or one file),
     * telling {@code warnings} about every newer one it had to skip and why.
     *
     * @param path     a checkpoint directory or one checkpoint file
     * @param warnings told, one line each, about every damaged or cut file skipped
     * @return the state and record of the newest intact checkpoint
     * @throws UncheckedIOException if there is none (the message says what was found)
     */
    public static CheckpointFile.Contents newest(Path path, Consumer<String> warnings) {
        List<Path> files = Files.isDirectory(path) ? list(path) : List.of(path);
        if (files.isEmpty()) {
            String m = path + ": no checkpoint files (checkpoint-e*-s*.ckpt) in this directory";
            throw new UncheckedIOException(m, new IOException(m));
        }
        List<String> skipped = new ArrayList<>();
        for (int i = files.size() - 1; i >= 0; i--) {
            Path f = files.get(i);
            try {
                CheckpointFile.Contents c = CheckpointFile.decode(Files.readAllBytes(f));
                skipped.forEach(warnings);
                return new CheckpointFile.Contents(c.state(), c.meta(), f);
            } catch (IOException | RuntimeException e) {
                skipped.add("skipping checkpoint " + f + ": " + e.getMessage());
            }
        }
        String m = path + ": no intact checkpoint; " + String.join("; ", skipped);
        throw new UncheckedIOException(m, new IOException(m));
    }

    /**
     * {@return the checkpoint files in {@code dir}, oldest first; none if it is no directory}
     * @param dir a checkpoint directory
     */
    public static List<Path> files(Path dir) {
        return list(dir);
    }

    /** The checkpoint files in {@code dir}, oldest first. */
    static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                .sorted(Comparator.comparing((Path p) -> position(p)[0]).thenComparing(p -> position(p)[1]))
                .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private static long[] position(Path p) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        m.matches();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    /**
     * Deletes temporary files that a killed writer left behind: their names carry the pid of
     * the process that made them, and that process is gone.
     */
    private void removeStaleTemporaries() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                Matcher m = TEMPORARY.matcher(p.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).map(h -> !h.isAlive()).orElse(true)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static final Pattern TEMPORARY = Pattern.compile("\\.checkpoint-(\\d+)-.*\\.tmp");

    private void prune() throws IOException {
        List<Path> files = list(dir);
        for (int i = 0; i < files.size() - keep; i++) {
            Files.deleteIfExists(files.get(i));
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Makes a rename in {@code d} durable: fsync of the directory itself (Linux allows it read-only). */
    private static void forceDirectory(Path d) {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open directories; the file itself is on disk already.
        }
    }
}
