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
 * cores. With more ranks than cores they are virtual threads: a rank that waits parks at
 * once and gives its carrier to a rank that can run, so 64 ranks share 2 cores. (Polling
 * virtual threads would be wrong here: two of them queued on one carrier can hold up
 * each other for the whole polling time.) If a rank throws, the others are woken and end
 * with a {@link PeerFailedException}; {@link #run} then throws a {@link RankFailedException}
 * that names the first rank to fail and carries what it threw.
 */
public final class LocalCluster {
    private LocalCluster() { }

    /** The work of one rank. */
    @FunctionalInterface
    public interface RankTask<T> {
        /** Runs on rank {@code comm.rank()}; its return value is collected by {@link #run}. */
        T run(Communicator comm) throws Exception;
    }

    /**
     * Runs {@code task} on {@code size} ranks and returns each rank's result, by rank.
     *
     * @throws RankFailedException if any rank threw
     */
    public static <T> List<T> run(int size, RankTask<T> task) {
        if (size < 1) {
            throw new IllegalArgumentException("number of ranks must be at least 1, got " + size);
        }
        LocalFabric fabric = new LocalFabric(size);
        List<T> results = new ArrayList<>(Collections.nCopies(size, null));
        boolean coreEach = size <= Runtime.getRuntime().availableProcessors();
        if (coreEach) {
            // Rank 0 runs on the caller's thread, each rank bound to its own CPU (CpuAffinity says
            // why); the caller's own binding is restored afterwards.
            long[] allowed = CpuAffinity.current();
            fabric.register(0, Thread.currentThread());
            Thread[] threads = start(fabric, bound(task, allowed), results, 1, () -> Thread.ofPlatform().daemon());
            try {
                runRank(fabric, 0, bound(task, allowed), results);
            } finally {
                CpuAffinity.set(allowed);
            }
            joinAll(threads);
        } else {
            joinAll(start(fabric, task, results, 0, Thread::ofVirtual));
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

    /** The task, run after binding the calling thread to the rank's own CPU. */
    private static <T> RankTask<T> bound(RankTask<T> task, long[] allowed) {
        return comm -> {
            CpuAffinity.set(CpuAffinity.nth(allowed, comm.rank()));
            return task.run(comm);
        };
    }

    private static void joinAll(Thread[] threads) {
        for (Thread t : threads) {
            joinUninterruptibly(t);
        }
    }

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

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
