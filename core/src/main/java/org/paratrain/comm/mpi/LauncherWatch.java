package org.paratrain.comm.mpi;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.paratrain.io.CFunctions;
import org.paratrain.io.ExitCleanup;

/**
 * A rank's watch on the processes that launched it: the moment the launching paratrain process
 * (the front) or the rank's own parent (mpirun, Open MPI's orted, MPICH's hydra_pmi_proxy) is
 * gone, the rank ends at once, and it publishes no result once they are gone.
 *
 * <p>Why the ranks watch, although the front starts mpirun with a parent-death signal (see
 * {@link JobSupervisor}): a kill -9 of the front runs none of its clean-up, and a rank does not
 * depend on mpirun while it computes and talks to its peers through shared memory. Measured with
 * mpirun killed by SIGKILL, its ranks went on for about 2 s, on Open MPI and MPICH alike, long
 * enough to finish a run and write over {@code --out}; and the signal itself is not delivered if
 * the front dies in the moment before mpirun is started.
 *
 * <p>The front is named by {@value #ENV} (see {@link #describeSelf}): its PID, its start time
 * (so that a PID used again is not taken for it), and the machine's boot id and PID namespace
 * (so that a rank of another machine or container, which cannot see the front, does not take
 * the PID for one of its own). Such a rank watches its parent only: its daemon ends when mpirun
 * does, and it is then reparented. The parent is also all that is watched under a user's own
 * mpirun. A front or parent that is a zombie counts as gone.
 *
 * <p>The watch is a daemon thread that looks 10 times a second (two reads of {@code /proc}); it
 * ends the process with the C library's {@code _exit}, which needs no safepoint (as the
 * {@link Watchdog} does), and says nothing: nobody reads the rank's output any more. Before a
 * result is made visible it looks once more ({@link ExitCleanup#guardPublishing}), so that a
 * rank does not publish in the tenth of a second after the front died: the write is refused
 * and leaves no temporary file, and the watch ends the process within its tick.
 */
public final class LauncherWatch {
    /** The variable, set in each rank's command line, that describes the front. */
    static final String ENV = "PARATRAIN_LAUNCHER";
    private static final long TICK_MILLIS = 100;
    private static final Path SELF = Path.of("/proc/self/stat");
    private static LauncherWatch started;

    private final long frontPid;
    private final long frontStart;
    private final long parent;
    /** Made on the watch's thread: making a downcall handle costs up to 0.2 s, not to be spent at start-up. */
    private volatile MethodHandle exit;

    private LauncherWatch(long frontPid, long frontStart, long parent) {
        this.frontPid = frontPid;
        this.frontStart = frontStart;
        this.parent = parent;
    }

    /**
     * {@return this process as {@value #ENV} names a front: {@code PID:START:BOOT_ID:PID_NAMESPACE},
     * or null where {@code /proc} does not tell (not Linux)}
     */
    static String describeSelf() {
        Stat s = stat(SELF);
        String boot = bootId();
        String ns = pidNamespace();
        return s == null || boot == null || ns == null ? null
            : ProcessHandle.current().pid() + ":" + s.start() + ":" + boot + ":" + ns;
    }

    /**
     * Starts this process's watch, once (later calls do nothing): a rank of an MPI job calls it as
     * early as it can, before the data is read and before {@code MPI_Init}. Outside an MPI job
     * (MPI initialised without mpirun) nothing is watched: a process that outlives its parent is
     * then no job's orphan.
     */
    public static synchronized void start() {
        if (started != null || !MpiJob.insideMpirun()) {
            return;
        }
        Stat self = stat(SELF);
        if (self == null) {
            return;     // no /proc: nothing can be watched, and nothing changes
        }
        long[] front = front(System.getenv(ENV));
        started = new LauncherWatch(front[0], front[1], self.parent());
        LauncherWatch w = started;
        ExitCleanup.guardPublishing(() -> !w.gone());
        Thread.ofPlatform().daemon().name("paratrain-launcher-watch").start(started::watch);
    }

    /**
     * {@return the front's PID and start time from {@code described}, or zeros when there is no
     * front this process can see: none named, or one on another machine or in another PID namespace}
     */
    static long[] front(String described) {
        String[] f = described == null ? new String[0] : described.strip().split(":");
        if (f.length != 4 || !f[2].equals(bootId()) || !f[3].equals(pidNamespace())) {
            return new long[] {0, 0};
        }
        try {
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        } catch (NumberFormatException e) {
            return new long[] {0, 0};
        }
    }

    /**
     * {@return true if the process {@code pid} that started at {@code start} (clock ticks since
     * boot, as {@code /proc} says) still runs: not ended, not a zombie, not another with its PID}
     */
    static boolean running(long pid, long start) {
        Stat s = stat(Path.of("/proc", Long.toString(pid), "stat"));
        return s != null && s.start() == start && s.state() != 'Z' && s.state() != 'X';
    }

    /** {@return true if the front or this process's parent is gone} */
    boolean gone() {
        if (frontPid > 0 && !running(frontPid, frontStart)) {
            return true;
        }
        Stat self = stat(SELF);
        return self != null && self.parent() != parent;
    }

    private void watch() {
        exit = CFunctions.find("_exit", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        while (true) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            if (gone()) {
                end();
            }
        }
    }

    /** Ends the process at once, with status 1 (no safepoint needed, no shutdown hook run). */
    private void end() {
        MethodHandle h = exit;
        try {
            if (h != null) {
                h.invokeExact(1);
            }
        } catch (Throwable e) {
            // Fall through to the JVM's own way.
        }
        Runtime.getRuntime().halt(1);
    }

    /** What {@code /proc/PID/stat} says of a process: its state letter, parent and start time. */
    record Stat(char state, long parent, long start) { }

    /** {@return the stat of {@code file}, or null if the process is gone or the file unreadable} */
    static Stat stat(Path file) {
        try {
            String s = Files.readString(file);
            // The command name, in parentheses, may hold spaces and parentheses: fields follow the last ')'.
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return new Stat(f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[19]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String bootId() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        } catch (IOException e) {
            return null;
        }
    }

    /** The inode of this process's PID namespace: a PID means the same process only within one. */
    private static String pidNamespace() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();   // pid:[4026531836]
            return link.replaceAll("\\D", "");
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
