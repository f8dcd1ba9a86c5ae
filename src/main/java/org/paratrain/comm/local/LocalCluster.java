package org.paratrain.comm.local;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.comm.RankFailedException;

/**
 * Runs a job as {@code size} ranks inside this JVM, one virtual thread each.
 *
 * <p>Virtual threads let 64 ranks share 2 cores: a rank that waits for a message parks and
 * gives its carrier to a rank that can run. If a rank throws, the others are woken and end
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
        if (size == 1) {
            // No thread to hand over to: the one rank runs on the caller's thread.
            fabric.register(0, Thread.currentThread());
            runRank(fabric, 0, task, results);
        } else {
            startAndJoin(fabric, task, results);
        }
        int failed = fabric.failedRank();
        if (failed >= 0) {
            throw new RankFailedException(failed, fabric.failureCause());
        }
        return results;
    }

    private static <T> void startAndJoin(LocalFabric fabric, RankTask<T> task, List<T> results) {
        Thread[] threads = new Thread[fabric.size()];
        for (int r = 0; r < threads.length; r++) {
            int rank = r;
            threads[r] = Thread.ofVirtual().name("rank-" + r).unstarted(() -> runRank(fabric, rank, task, results));
            fabric.register(r, threads[r]);
        }
        for (Thread t : threads) {
            t.start();
        }
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
