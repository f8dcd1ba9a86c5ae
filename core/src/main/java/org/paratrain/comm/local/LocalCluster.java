package org.paratrain.comm.local;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.comm.RankFailedException;

/**
 * Runs a job as {@code size} ranks inside this JVM, one thread each.
 *
 * <p>When every rank can have a core, ranks are platform threads that poll briefly while
 * they wait, which keeps message latency low; the operating system spreads them over the
 * cores, and a rank it starts on the CPU of a lower rank moves off once (see
 * {@code spread}). With more ranks than cores they are virtual threads: a rank that waits
 * parks at once and gives its carrier to a rank that can run, so 64 ranks share 2 cores. (Polling
 * virtual threads would be wrong here: two of them queued on one carrier can hold up
 * each other for the whole polling time.) If a rank throws, the others are woken and end
 * with a {@link PeerFailedException}; {@link #run} then throws a {@link RankFailedException}
 * that names the first rank to fail and carries what it threw.
 */
public final class LocalCluster {
    private LocalCluster() { }

    /**
     * The work of one rank.
     *
     * @param <T> what each rank returns
     */
    @FunctionalInterface
    public interface RankTask<T> {
        /**
         * Runs on rank {@code comm.rank()}.
         *
         * @param comm the rank's communicator, valid until this returns
         * @return the rank's result, collected by {@link #run}
         * @throws Exception anything: it fails the job, and every other rank is woken and ends
         */
        T run(Communicator comm) throws Exception;
    }

    /**
     * Runs {@code task} on {@code size} ranks, with the default communication timeout of 300 s.
     *
     * @param <T>  what each rank returns
     * @param size ranks, at least 1
     * @param task the program every rank runs
     * @return each rank's result, by rank
     * @throws RankFailedException if any rank threw
     */
    public static <T> List<T> run(int size, RankTask<T> task) {
        return run(size, java.time.Duration.ofSeconds(300), task);
    }

    /**
     * As {@link #run(int, RankTask)}, with no rank waiting longer than {@code timeout} for
     * another: a rank that waits longer fails with a
     * {@link org.paratrain.comm.CommTimeoutException} naming the rank it waited for.
     *
     * @param <T>     what each rank returns
     * @param size    ranks, at least 1
     * @param timeout the longest any rank may wait in one communication call
     * @param task    the program every rank runs
     * @return each rank's result, by rank
     * @throws RankFailedException naming the first rank that threw, or that timed out
     */
    public static <T> List<T> run(int size, java.time.Duration timeout, RankTask<T> task) {
        return run(size, timeout, Runtime.getRuntime().availableProcessors(), task);
    }

    /**
     * As {@link #run(int, java.time.Duration, RankTask)}, for ranks that may use only
     * {@code cores} of this process's CPUs (other processes of the same job share the machine):
     * platform threads when every rank can have one of those, virtual threads otherwise; ranks
     * are bound to CPUs only when {@code cores} is every CPU this process may use.
     *
     * @param <T>     what each rank returns
     * @param size    ranks, at least 1
     * @param timeout the longest any rank may wait in one communication call
     * @param cores   the cores these ranks may use, at least 1
     * @param task    the program every rank runs
     * @return each rank's result, by rank
     * @throws RankFailedException naming the first rank that threw, or that timed out
     */
    public static <T> List<T> run(int size, java.time.Duration timeout, int cores, RankTask<T> task) {
        if (size < 1) {
            throw new IllegalArgumentException("number of ranks must be at least 1, got " + size);
        }
        return run(new LocalFabric(size, timeout), cores, task);
    }

    /** As {@link #run(int, java.time.Duration, int, RankTask)}, on a fabric a test made to look at afterwards. */
    static <T> List<T> run(LocalFabric fabric, int cores, RankTask<T> task) {
        int size = fabric.size();
        List<T> results = new ArrayList<>(Collections.nCopies(size, null));
        boolean coreEach = size <= cores;
        boolean allCores = cores >= Runtime.getRuntime().availableProcessors();
        if (coreEach && !allCores) {
            joinAll(fabric, start(fabric, task, results, 0, () -> Thread.ofPlatform().daemon()));
        } else if (coreEach) {
            // Rank 0 runs on the caller's thread; with -Dparatrain.bind=true each rank is bound to
            // its own CPU (CpuAffinity says why), and the caller's own binding is restored
            // afterwards; otherwise a rank that starts on another rank's CPU moves off it once.
            long[] allowed = CpuAffinity.current();
            RankTask<T> placed = CpuAffinity.binding() ? bound(task, allowed) : spread(task, size);
            fabric.register(0, Thread.currentThread());
            Thread[] threads = start(fabric, placed, results, 1, () -> Thread.ofPlatform().daemon());
            try {
                runRank(fabric, 0, placed, results);
            } finally {
                CpuAffinity.set(allowed);
                Thread.interrupted();   // clear what a failing rank's wake-up may have set on the caller
            }
            joinAll(fabric, threads);
            Thread.interrupted();
        } else {
            joinAll(fabric, start(fabric, task, results, 0, Thread::ofVirtual));
        }
        int failed = fabric.failedRank();
        if (failed >= 0) {
            throw new RankFailedException(failed, fabric.failureCause());
        }
        return results;
    }

    private static <T> Thread[] start(LocalFabric fabric, RankTask<T> task, List<T> results, int firstRank,
                                      java.util.function.Supplier<Thread.Builder> builders) {
        Thread[] threads = new Thread[fabric.size() - firstRank];
        for (int r = firstRank; r < fabric.size(); r++) {
            int rank = r;
            Thread t = builders.get().name("rank-" + r).unstarted(() -> runRank(fabric, rank, task, results));
            fabric.register(r, t);
            threads[r - firstRank] = t;
        }
        for (Thread t : threads) {
            t.start();
        }
        return threads;
    }

    /**
     * The task, run after the rank has noted the CPU it starts on and, if another rank of the
     * run noted the same one, moved off once to a CPU no rank noted ({@link CpuAffinity#moveOff}).
     *
     * <p>Why: the kernel starts the thread of rank 1 on the CPU of rank 0 (the caller) in some
     * runs, even with the other core idle. Two ranks that wait on each other there hand the
     * core back and forth (see {@link LocalFabric}'s polling), both look cache-hot, and the
     * kernel leaves them together for the rest of a short run: the paper's 300-epoch run at 2
     * ranks then took about 2.5 ms instead of 0.25. In three sets of 200 such runs in one JVM
     * after 20 warm-ups, the runs that started on one CPU ended there, slow, in 26 of 26, 70 of
     * 73 and 42 of 44; moved off at the start, in two sets, 39 of 66 and 50 of 61 ended apart
     * and fast. With both cores free or one busy with another process, 20,000 x 10 over 3,000
     * epochs took as long with the move as without (fresh JVMs alternated, 6 each); with
     * {@code bench balance --modes busy --allreduce master-worker}, two runs each alternated,
     * later runs took 1.17x and 0.87x one rank's time with the move, 1.27x and 1.36x without.
     */
    private static <T> RankTask<T> spread(RankTask<T> task, int size) {
        java.util.concurrent.atomic.AtomicIntegerArray starts = new java.util.concurrent.atomic.AtomicIntegerArray(size);
        for (int r = 1; r < size; r++) {
            starts.set(r, -1);
        }
        starts.set(0, CpuAffinity.cpu());    // the caller's, before the other ranks' threads start
        return comm -> {
            int rank = comm.rank();
            int mine = CpuAffinity.cpu();
            starts.set(rank, mine);
            long[] taken = crowded(rank, mine, starts);
            int moved = taken == null ? -1 : CpuAffinity.moveOff(taken);
            if (moved >= 0) {
                starts.set(rank, moved);
            }
            return task.run(comm);
        };
    }

    /**
     * The CPUs the other ranks noted, as a bit set, when a lower rank noted {@code cpu}, the one
     * {@code rank} starts on (so that of two ranks on one CPU the higher moves, even when both
     * look at once); otherwise, or when {@code cpu} is unknown, null.
     *
     * @param rank   the rank that starts
     * @param cpu    the CPU it starts on, or -1
     * @param starts each rank's noted CPU, or -1
     */
    static long[] crowded(int rank, int cpu, java.util.concurrent.atomic.AtomicIntegerArray starts) {
        if (cpu < 0) {
            return null;
        }
        long[] taken = new long[CpuAffinity.SET_WORDS];
        boolean below = false;
        for (int r = 0; r < starts.length(); r++) {
            int c = starts.get(r);
            if (r != rank && c >= 0 && c < Long.SIZE * CpuAffinity.SET_WORDS) {
                taken[c >> 6] |= 1L << (c & 63);
                below |= r < rank && c == cpu;
            }
        }
        return below ? taken : null;
    }

    /** The task, run after binding the calling thread to the rank's own CPU. */
    private static <T> RankTask<T> bound(RankTask<T> task, long[] allowed) {
        return comm -> {
            CpuAffinity.set(CpuAffinity.nth(allowed, comm.rank()));
            return task.run(comm);
        };
    }

    /**
     * Waits for every rank; once one has failed, gives the others {@link #GRACE_MILLIS} to end
     * and then leaves behind any that do not (a rank stuck in its own computation cannot be
     * stopped from outside; its thread is a daemon and holds nothing the caller needs).
     */
    private static void joinAll(LocalFabric fabric, Thread[] threads) {
        long graceEnd = Long.MAX_VALUE;
        for (Thread t : threads) {
            while (t.isAlive()) {
                if (fabric.failedRank() >= 0 && graceEnd == Long.MAX_VALUE) {
                    graceEnd = System.nanoTime() + GRACE_MILLIS * 1_000_000L;
                }
                if (System.nanoTime() > graceEnd) {
                    return;
                }
                joinFor(t, 50);
            }
        }
    }

    /** How long ranks get to end after another rank failed. */
    private static final long GRACE_MILLIS = 5_000;

    private static <T> void runRank(LocalFabric fabric, int rank, RankTask<T> task, List<T> results) {
        try {
            T value = task.run(new LocalCommunicator(fabric, rank));
            synchronized (results) {
                results.set(rank, value);
            }
        } catch (PeerFailedException e) {
            // Another rank failed first; it is the one reported.
            fabric.fail(rank, e);
        } catch (Throwable t) {
            fabric.fail(rank, t);
        }
    }

    private static void joinFor(Thread t, long millis) {
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            // A failing rank wakes every rank's thread, the caller's too (it ran rank 0): keep waiting.
        }
    }
}
