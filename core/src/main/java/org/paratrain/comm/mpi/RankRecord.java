package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A rank's progress record: a small memory-mapped file in a per-job directory that the
 * launching process makes and names in {@code PARATRAIN_PROGRESS_DIR}. The rank writes its
 * PID once, its epoch once per epoch, and (from its watchdog, a few times a second) a heartbeat
 * and what it has been waiting in for a while; writing is a store into mapped memory, no system
 * call. Others read it: the launching process, to say which epoch a rank that died was in and
 * which rank a PID was; a rank that waited too long, to tell a peer that is itself waiting from
 * one that is stopped or busy.
 *
 * <p>Without the variable (a rank started by the user's own mpirun) or where the directory
 * does not exist (a rank on another machine), there is no record and messages say less.
 *
 * <p>Layout, native byte order: pid, epoch, heartbeat (ms since 1970), waiting since (ms, 0
 * when not waiting) as longs; then the {@link Op} waited in, the peer, the tag and the state
 * as ints.
 */
final class RankRecord {
    /** The environment variable naming the per-job directory. */
    static final String DIR_ENV = "PARATRAIN_PROGRESS_DIR";
    static final int RUNNING = 0;
    /** The rank printed why it ends (a failure or a timeout); the launcher need not. */
    static final int EXPLAINED = 1;
    static final int FINALIZED = 2;

    private static final int BYTES = 64;
    private static final long PID = 0;
    private static final long EPOCH = 8;
    private static final long HEARTBEAT = 16;
    private static final long SINCE = 24;
    private static final long OP = 32;
    private static final long PEER = 36;
    private static final long TAG = 40;
    private static final long STATE = 44;

    private final MemorySegment seg;

    private RankRecord(MemorySegment seg) {
        this.seg = seg;
    }

    /** What a record held when read. */
    record Snapshot(long pid, long epoch, long heartbeat, long waitingSince, Op op, int peer, int tag, int state) {
        /** True if the rank's watchdog wrote within {@code freshMillis} of {@code now}: the process runs. */
        boolean alive(long now, long freshMillis) {
            return now - heartbeat <= freshMillis;
        }

        /** True if the rank runs and has been waiting in an operation for a while. */
        boolean waiting(long now, long freshMillis) {
            return alive(now, freshMillis) && waitingSince != 0 && op != Op.NONE;
        }
    }

    /** The directory named by the environment, or null. */
    static Path directory() {
        String d = System.getenv(DIR_ENV);
        return d == null || d.isBlank() ? null : Path.of(d);
    }

    /** This rank's record, created in {@link #directory()}; null when there is none or it cannot be made. */
    static RankRecord create(int rank) {
        Path dir = directory();
        if (dir == null || !Files.isDirectory(dir)) {
            return null;
        }
        try (FileChannel ch = FileChannel.open(file(dir, rank), StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
            RankRecord r = new RankRecord(ch.map(FileChannel.MapMode.READ_WRITE, 0, BYTES, Arena.global()));
            r.seg.set(JAVA_LONG, PID, ProcessHandle.current().pid());
            r.heartbeat(System.currentTimeMillis());
            return r;
        } catch (IOException | UnsupportedOperationException e) {
            return null;   // no record: messages about this rank say less
        }
    }

    static Path file(Path dir, int rank) {
        return dir.resolve("rank-" + rank);
    }

    void epoch(long epoch) {
        seg.set(JAVA_LONG, EPOCH, epoch);
    }

    void heartbeat(long millis) {
        seg.set(JAVA_LONG, HEARTBEAT, millis);
    }

    /** Publishes that the rank has been waiting in {@code op} for {@code peer} since {@code millis}. */
    void waiting(Op op, int peer, int tag, long millis) {
        seg.set(JAVA_INT, OP, op.ordinal());
        seg.set(JAVA_INT, PEER, peer);
        seg.set(JAVA_INT, TAG, tag);
        seg.set(JAVA_LONG, SINCE, millis);
    }

    void notWaiting() {
        seg.set(JAVA_LONG, SINCE, 0L);
    }

    void state(int state) {
        seg.set(JAVA_INT, STATE, state);
    }

    /** Reads rank {@code rank}'s record in {@code dir}; null if there is none. */
    static Snapshot read(Path dir, int rank) {
        try {
            byte[] b = Files.readAllBytes(file(dir, rank));
            if (b.length < BYTES) {
                return null;
            }
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
            return new Snapshot(bb.getLong((int) PID), bb.getLong((int) EPOCH), bb.getLong((int) HEARTBEAT),
                bb.getLong((int) SINCE), Op.of(bb.getInt((int) OP)), bb.getInt((int) PEER), bb.getInt((int) TAG),
                bb.getInt((int) STATE));
        } catch (IOException e) {
            return null;
        }
    }
}
