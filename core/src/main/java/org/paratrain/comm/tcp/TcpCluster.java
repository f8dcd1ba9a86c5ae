package org.paratrain.comm.tcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.paratrain.comm.PeerFailedException;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * Runs a job as {@code size} ranks on threads of this JVM that talk over loopback TCP, exactly
 * as ranks on separate hosts would: for tests of the TCP transport and for measuring it beside
 * the in-JVM and MPI backends. Ranks spread across machines are started by a scheduler instead
 * (the Spark module), with {@link TcpEndpoint} directly.
 */
public final class TcpCluster {
    private TcpCluster() { }

    /**
     * Runs {@code task} on {@code size} ranks over loopback.
     *
     * @param <T>     what each rank returns
     * @param size    ranks, at least 1
     * @param timeout the longest any rank waits in one call (and for the mesh to form)
     * @param task    the program every rank runs
     * @return each rank's result, by rank
     * @throws RankFailedException naming the first rank that threw (a rank that only saw another's
     *         failure is not blamed)
     */
    public static <T> List<T> run(int size, Duration timeout, LocalCluster.RankTask<T> task) {
        if (size < 1) {
            throw new IllegalArgumentException("ranks must be at least 1, got " + size);
        }
        JobKey key = JobKey.random("loopback-" + System.nanoTime());
        List<TcpEndpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            endpoints.add(TcpEndpoint.listen("127.0.0.1"));
        }
        List<String> addresses = endpoints.stream().map(TcpEndpoint::address).toList();
        Object[] results = new Object[size];
        Throwable[] thrown = new Throwable[size];
        long[] failedAt = new long[size];
        Thread[] threads = new Thread[size];
        for (int r = 0; r < size; r++) {
            int rank = r;
            threads[r] = new Thread(() -> {
                try {
                    results[rank] = runRank(endpoints.get(rank), rank, addresses, key, timeout, task);
                } catch (Throwable t) {
                    failedAt[rank] = System.nanoTime();
                    thrown[rank] = t;
                }
            }, "tcp-rank-" + r);
            threads[r].start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the ranks", e);
            }
        }
        int blamed = firstFailure(thrown, failedAt);
        if (blamed >= 0) {
            throw new RankFailedException(blamed, thrown[blamed]);
        }
        @SuppressWarnings("unchecked")
        List<T> out = (List<T>) Arrays.asList(results);
        return out;
    }

    private static <T> T runRank(TcpEndpoint endpoint, int rank, List<String> addresses, JobKey key,
                                 Duration timeout, LocalCluster.RankTask<T> task) throws Exception {
        TcpCommunicator comm;
        try {
            comm = endpoint.connect(rank, addresses, key, timeout);
        } finally {
            endpoint.close();
        }
        try {
            T result = task.run(comm);
            comm.close();
            return result;
        } catch (Throwable t) {
            comm.abortFor(t);
            throw t;
        }
    }

    /** The rank to blame: the first that failed of its own accord, else the first that failed. */
    private static int firstFailure(Throwable[] thrown, long[] at) {
        int own = -1;
        int any = -1;
        for (int r = 0; r < thrown.length; r++) {
            if (thrown[r] == null) {
                continue;
            }
            if (any < 0 || at[r] < at[any]) {
                any = r;
            }
            if (!(thrown[r] instanceof PeerFailedException) && (own < 0 || at[r] < at[own])) {
                own = r;
            }
        }
        return own >= 0 ? own : any;
    }
}
