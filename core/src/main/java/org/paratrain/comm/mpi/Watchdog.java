package org.paratrain.comm.mpi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The deadline of every MPI operation of one rank: a daemon thread that looks a few times a
 * second at which operation the rank's thread is in, and ends the job when one has lasted
 * longer than {@code --comm-timeout}.
 *
 * <p>Why a separate thread, and not deadline checks in the waiting loops: some calls cannot
 * be left by the thread that makes them (a large {@code MPI_Send} waits inside MPI until the
 * receiver takes the message), and a thread inside a {@code critical} downcall holds off the
 * JVM's safepoints, so neither an exception nor {@code System.exit} could end it. The watchdog
 * prints its line and calls the C library's {@code _exit}, which needs neither; mpirun (or
 * MPICH's hydra) then ends the other ranks. The cost on the rank's thread is three plain
 * stores and two ordered stores per operation, no clock read.
 *
 * <p>It also keeps the rank's progress record: a heartbeat each tick, and the operation waited
 * in once it has lasted a tick, so that a rank that times out can tell (see {@link Blame})
 * whether its peer is stopped or itself waiting for a third rank.
 */
final class Watchdog {
    private static final VarHandle SEQ;
    private static final long MAX_TICK_MILLIS = 200;
    /** A heartbeat older than this means the process is stopped or gone. */
    private static final long FRESH_MILLIS = 2_000;

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(Watchdog.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int rank;
    private final int size;
    private final RankRecord record;
    private final Path records;
    /** Odd while the rank is inside an operation; written by the rank's thread only. */
    private long seq;
    private Op op = Op.NONE;
    private int peer;
    private int tag;
    private volatile int epoch;
    private volatile long timeoutMillis;
    private volatile int ranksPerProcess = 1;
    private volatile MethodHandle exit;

    Watchdog(int rank, int size, RankRecord record, long timeoutMillis) {
        this.rank = rank;
        this.size = size;
        this.record = record;
        this.records = record == null ? null : RankRecord.directory();
        this.timeoutMillis = timeoutMillis;
        Thread.ofPlatform().daemon().name("paratrain-mpi-watchdog").start(this::watch);
    }

    /** The rank's thread enters {@code op}, waiting for {@code peer} (-1 for a collective). */
    void begin(Op op, int peer, int tag) {
        this.op = op;
        this.peer = peer;
        this.tag = tag;
        SEQ.setRelease(this, seq + 1);
    }

    /** The rank's thread left the operation it began. */
    void end() {
        SEQ.setRelease(this, seq + 1);
    }

    void epoch(int epoch) {
        this.epoch = epoch;
        if (record != null) {
            record.epoch(epoch);
        }
    }

    /** {@return the deadline of every operation, in milliseconds} */
    long timeoutMillis() {
        return timeoutMillis;
    }

    void timeoutMillis(long millis) {
        this.timeoutMillis = millis;
    }

    private void watch() {
        // Made now, on this thread: making it at the moment of need could wait for a safepoint.
        exit = Linker.nativeLinker().downcallHandle(Linker.nativeLinker().defaultLookup().find("_exit").orElseThrow(),
            FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        long seen = -1;
        long since = 0;
        while (true) {
            long tick = Math.max(1, Math.min(MAX_TICK_MILLIS, timeoutMillis / 10));
            try {
                Thread.sleep(tick);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.currentTimeMillis();
            long s = (long) SEQ.getAcquire(this);
            Op o = op;
            int p = peer;
            int t = tag;
            if (record != null) {
                record.heartbeat(now);
            }
            if ((s & 1) == 0 || s != seen || (long) SEQ.getAcquire(this) != s) {
                seen = s;
                since = now;
                if (record != null) {
                    record.notWaiting();
                }
                continue;
            }
            if (record != null) {
                record.waiting(o, p, t, since);
            }
            if (now - since >= timeoutMillis) {
                expired(o, p, t, now - since, now);
            }
        }
    }

    /** The operation has lasted past the deadline: end the job, unless another rank should say why. */
    private void expired(Op o, int p, int t, long waited, long now) {
        RankRecord.Snapshot[] all = records == null ? null : readAll();
        if (all != null && anotherExplained(all)) {
            // Another rank has printed why the job ends. This one may only now see its wait: it was
            // stopped, and mpirun's SIGCONT before ending the job let it run again first.
            quietExit();
            return;
        }
        Blame.Verdict v = all == null ? new Blame.Verdict(o.collective() ? -1 : p, o.collective() ? -1 : p)
            : Blame.of(rank, o, p, all, now, FRESH_MILLIS);
        long grace = Math.min(timeoutMillis, 10_000);
        if (v.indirect() && waited < timeoutMillis + grace) {
            return;   // the rank that waits for the culprit directly ends the job with the better message
        }
        StringBuilder m = new StringBuilder("paratrain: ").append(who(rank)).append(" waited ")
            .append(seconds(waited)).append(v.waitedFor() < 0 ? " for the other ranks" : " for " + who(v.waitedFor()))
            .append(" (").append(o.label()).append(o.collective() ? "" : ", tag " + t).append(')');
        int e = epoch;
        if (e > 0) {
            m.append(" in epoch ").append(e);
        }
        if (v.indirect()) {
            m.append(", which waits for ").append(who(v.culprit()));
        }
        fire(m.append("; ending the job").toString());
    }

    /**
     * Sets how many ranks of the job each process holds, so that messages name the job's ranks
     * ({@code ranks 2-3 (process 1)}) where a process holds several.
     */
    void ranksPerProcess(int k) {
        this.ranksPerProcess = k;
    }

    /** {@code rank 3}, or {@code ranks 2-3 (process 1)} where processes hold several ranks. */
    private String who(int process) {
        int k = ranksPerProcess;
        return k == 1 ? "rank " + process
            : "ranks " + process * k + "-" + (process * k + k - 1) + " (process " + process + ")";
    }

    private RankRecord.Snapshot[] readAll() {
        RankRecord.Snapshot[] all = new RankRecord.Snapshot[size];
        for (int r = 0; r < size; r++) {
            all[r] = r == rank ? null : RankRecord.read(records, r);
        }
        return all;
    }

    private static boolean anotherExplained(RankRecord.Snapshot[] all) {
        for (RankRecord.Snapshot s : all) {
            if (s != null && s.state() == RankRecord.EXPLAINED) {
                return true;
            }
        }
        return false;
    }

    /** Ends the process at once, with status 1: the C library's _exit, which needs no safepoint. */
    private void quietExit() {
        try {
            exit.invokeExact(1);
        } catch (Throwable e) {
            Runtime.getRuntime().halt(1);
        }
    }

    private void fire(String message) {
        if (record != null) {
            record.state(RankRecord.EXPLAINED);
        }
        System.err.println(message);
        System.err.flush();
        quietExit();
    }

    /** Whole seconds as "10 s"; waits under 2 s with a decimal, "1.5 s". */
    static String seconds(long millis) {
        return millis >= 2_000 ? Math.round(millis / 1000.0) + " s"
            : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
