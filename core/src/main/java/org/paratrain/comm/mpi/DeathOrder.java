package org.paratrain.comm.mpi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.paratrain.io.CFunctions;

/**
 * Which rank process of this machine ended first, seen as it happened: the launching process
 * opens a Linux pidfd for every rank whose progress record ({@link RankRecord}) names its PID,
 * and a thread of its own waits in {@code poll} for any of them to end.
 *
 * <p>Why: MPICH's hydra names one process when ranks die, the first of its list that a signal
 * ended, and its clean-up kills every other rank with SIGKILL. When the clean-up's kill of
 * rank 0 was counted with the death that set it off, hydra named rank 0 for a rank 1 that had
 * been killed (once in about twenty runs of the fault test). The clean-up comes after that
 * death, so the order of the deaths tells them apart.
 *
 * <p>Only an order seen in full counts: a death is reported as first when every rank with a
 * record was watched by then and it ended alone, not in the same wake-up as another. A rank
 * that aborts because its peer is going (UCX's shared-memory transport does, with SIGABRT)
 * can end before the dying peer has: then this and hydra both name it, as before. Where pidfds
 * are not available (not Linux 5.3 or later, no C library found) nothing is seen.
 */
final class DeathOrder implements AutoCloseable {
    private static final long PIDFD_OPEN = 434;     // the same number on x86-64 and AArch64
    private static final short POLLIN = 1;
    private static final int WAKE_MILLIS = 200;
    private static final MethodHandle SYSCALL;
    private static final MethodHandle POLL;
    private static final MethodHandle CLOSE;

    static {
        MethodHandle syscall = CFunctions.find("syscall", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1));
        POLL = CFunctions.find("poll", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        CLOSE = CFunctions.find("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        SYSCALL = POLL != null && CLOSE != null ? syscall : null;     // without all three, nothing is watched
    }

    private final Path records;
    private final Thread thread;
    private volatile boolean stop;
    /** The PID seen to end first, alone and with every rank watched; 0 until then, or if not so. */
    private volatile long first;
    /** The PIDs watched: the rank processes of this machine. */
    private final Set<Long> watched = ConcurrentHashMap.newKeySet();
    /** Whether a death has been seen (the first wake-up with one decides {@link #first}). */
    private boolean decided;
    /** Whether a rank's PID could not be watched (it may have ended before it was). */
    private boolean missed;

    private DeathOrder(Path records) {
        this.records = records;
        this.thread = SYSCALL == null ? null
            : Thread.ofPlatform().daemon().name("paratrain-death-order").start(this::watch);
    }

    /** Starts watching the ranks whose records appear in {@code records}. */
    static DeathOrder watch(Path records) {
        return new DeathOrder(records);
    }

    /** {@return the PID of the rank process seen to end first, or 0 if none was, or not beyond doubt} */
    long first() {
        return first;
    }

    /** {@return whether the process {@code pid} was watched: a rank of this machine, with a record} */
    boolean watched(long pid) {
        return watched.contains(pid);
    }

    /** Stops watching and closes what it opened; {@link #first()} keeps its answer. */
    @Override
    public void close() {
        stop = true;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(WAKE_MILLIS * 5L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void watch() {
        Map<Long, Integer> open = new LinkedHashMap<>();    // pid -> pidfd, of ranks still running
        Set<Long> known = new HashSet<>();
        try {
            while (!stop && !decided) {
                for (long pid : pids()) {
                    if (known.add(pid)) {
                        int fd = pidfd(pid);
                        if (fd < 0) {
                            missed = true;
                        } else {
                            open.put(pid, fd);
                            watched.add(pid);
                        }
                    }
                }
                if (open.isEmpty()) {
                    Thread.sleep(WAKE_MILLIS);
                } else {
                    pollOnce(open);
                }
            }
        } catch (InterruptedException e) {
            // closed
        } catch (Throwable t) {
            first = 0;     // a failure to watch only means nothing is seen
        } finally {
            for (int fd : open.values()) {
                closeFd(fd);
            }
        }
    }

    /** Waits up to {@link #WAKE_MILLIS} for any of {@code open} to end, and judges the first wake-up with a death. */
    private void pollOnce(Map<Long, Integer> open) throws Throwable {
        List<Long> pids = new ArrayList<>(open.keySet());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(8L * pids.size(), 4);    // struct pollfd: int fd; short events, revents
            for (int i = 0; i < pids.size(); i++) {
                fds.set(ValueLayout.JAVA_INT, 8L * i, open.get(pids.get(i)));
                fds.set(ValueLayout.JAVA_SHORT, 8L * i + 4, POLLIN);
            }
            int ready = (int) POLL.invokeExact(fds, (long) pids.size(), WAKE_MILLIS);
            if (ready <= 0) {
                return;     // nothing ended (or a signal interrupted the wait): scan and wait again
            }
            List<Long> ended = new ArrayList<>();
            for (int i = 0; i < pids.size(); i++) {
                if (fds.get(ValueLayout.JAVA_SHORT, 8L * i + 6) != 0) {
                    ended.add(pids.get(i));
                }
            }
            decided = true;
            first = ended.size() == 1 && !missed ? ended.getFirst() : 0;
        }
    }

    /** The PIDs in the records so far. */
    private List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> files = Files.list(records)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith("rank-")) {
                    RankRecord.Snapshot s = RankRecord.read(records, Integer.parseInt(name.substring(5)));
                    if (s != null && s.pid() > 0) {
                        pids.add(s.pid());
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // No records (yet, or gone): nothing to watch.
        }
        return pids;
    }

    private static int pidfd(long pid) {
        try {
            return (int) (long) SYSCALL.invokeExact(PIDFD_OPEN, pid, 0L);
        } catch (Throwable t) {
            return -1;
        }
    }

    private static void closeFd(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            // nothing more to do
        }
    }
}
