package org.paratrain.cli.bench;


import java.util.Locale;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;

/**
 * The measurements of {@code paratrain bench mpi} on this process's MPI rank, made exactly
 * as the C reference (resources/c/mpi_bench.c) makes them: best of 5 repetitions of a
 * ping-pong of 8 bytes, an allreduce of 1 double and an allreduce of 1,000,000 doubles.
 * Also the self-test of the MPI binding ({@code bench mpi-selftest}). Both work on any
 * communicator with native collectives; {@code bench mpi} gives them an MPI rank.
 */
final class MpiBenchmark {
    private MpiBenchmark() { }

    /** An allreduce (sum) of part of a vector, in place. */
    @FunctionalInterface
    interface Sum {
        /** Sums {@code v[offset, offset + length)} over the ranks, in place. */
        void allreduce(double[] v, int offset, int length);
    }

    /**
     * Runs on every rank with the backend's own allreduce; returns the figures on rank 0 (in the C
     * program's output format), else null.
     */
    static String run(Communicator c) {
        return run(c, natives(c)::allreduceSum);
    }

    /**
     * Runs on every rank with {@code sum} as the allreduce, and times paratrain's ring allreduce of
     * 1,000,000 doubles too ({@code ring1m_ms}), which runs on any backend's messages and so
     * compares the transports alone; returns the figures on rank 0, else null.
     */
    static String run(Communicator c, Sum sum) {
        int large = 1_000_000;
        double[] buf = new double[large];
        org.paratrain.collective.Allreduce ring = org.paratrain.collective.Allreduces.create("ring");
        Sum ringSum = (v, o, n) -> ring.allreduce(c, v, o, n);
        double pp = Double.MAX_VALUE;
        double ar = Double.MAX_VALUE;
        double big = Double.MAX_VALUE;
        double ringBig = Double.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) {
            pp = Math.min(pp, pingpong(c, 20_000, buf));
            ar = Math.min(ar, allreduce(c, sum, 20_000, buf, 1));
            big = Math.min(big, allreduce(c, sum, 20, buf, large));
            ringBig = Math.min(ringBig, allreduce(c, ringSum, 20, buf, large));
        }
        return c.rank() != 0 ? null : String.format(Locale.ROOT, "pingpong_us %.4f%nallreduce8_us %.4f%n"
            + "allreduce1m_ms %.4f%nring1m_ms %.4f%n", pp * 1e6, ar * 1e6, big * 1e3, ringBig * 1e3);
    }

    private static double pingpong(Communicator c, int n, double[] buf) {
        c.barrier();
        double t = c.wtime();
        for (int i = 0; i < n; i++) {
            if (c.rank() == 0) {
                c.send(buf, 0, 1, 1, 0);
                c.recv(buf, 0, 1, 1, 0);
            } else if (c.rank() == 1) {
                c.recv(buf, 0, 1, 0, 0);
                c.send(buf, 0, 1, 0, 0);
            }
        }
        return (c.wtime() - t) / n / 2;
    }

    private static double allreduce(Communicator c, Sum sum, int n, double[] buf, int count) {
        c.barrier();
        double t = c.wtime();
        for (int i = 0; i < n; i++) {
            sum.allreduce(buf, 0, count);
        }
        return (c.wtime() - t) / n;
    }

    /**
     * Checks send/receive, the native allreduce and broadcast against sequential sums
     * (integer-valued doubles, so exact); throws on the first mismatch.
     */
    static void selfTest(Communicator c) {
        NativeCollectives mpi = natives(c);
        int p = c.size();
        int r = c.rank();
        for (int len : new int[] {1, p + 1, 100_003}) {
            double[] v = new double[len];
            for (int i = 0; i < len; i++) {
                v[i] = r * 1000.0 + i;
            }
            mpi.allreduceSum(v, 0, len);
            for (int i = 0; i < len; i++) {
                double expected = 1000.0 * p * (p - 1) / 2 + (double) i * p;
                if (v[i] != expected) {
                    throw new BackendException("allreduce of " + len + ": element " + i + " is " + v[i] + ", expected "
                        + expected);
                }
            }
            double[] b = new double[len];
            if (r == p - 1) {
                for (int i = 0; i < len; i++) {
                    b[i] = -i;
                }
            }
            mpi.broadcast(b, 0, len, p - 1);
            for (int i = 0; i < len; i++) {
                if (b[i] != -i) {
                    throw new BackendException("broadcast of " + len + ": element " + i + " is " + b[i]);
                }
            }
        }
        // 1 double goes through a native buffer, 100,003 straight into the array (see PolledCalls).
        for (int len : new int[] {1, 100_003}) {
            sendThenReceiveRing(c, p, r, len);
            sendRecvRing(c, p, r, len);
        }
        // Only small: MPICH 4.0 leaves the sender of a large message that did not fit waiting forever.
        tooLong(c, p, r, 1);
        c.barrier();
    }

    /**
     * The self-test of ranks that are threads of processes: messages in rings that cross
     * processes at every K-th rank, small and large, both by send-then-receive and by
     * sendRecv, and a message too long between processes.
     */
    static void threadSelfTest(Communicator c) {
        int p = c.size();
        int r = c.rank();
        for (int len : new int[] {1, 100_003}) {
            sendThenReceiveRing(c, p, r, len);
            sendRecvRing(c, p, r, len);
        }
        int k = c.processGroup().map(g -> g.localSize()).orElse(1);
        if (p > k && (r == 0 || r == k)) {
            tooLongBetween(c, 0, k, 1);
        }
        c.barrier();
    }

    /** A message longer than the receiver's buffer is an error naming both sizes, and is consumed. */
    private static void tooLong(Communicator c, int p, int r, int len) {
        if (p >= 2 && r <= 1) {
            tooLongBetween(c, 0, 1, len);
        }
    }

    /** As {@link #tooLong(Communicator, int, int, int)}, from rank {@code sender} to rank {@code receiver}. */
    private static void tooLongBetween(Communicator c, int sender, int receiver, int len) {
        if (c.rank() == sender) {
            c.send(new double[len + 1], 0, len + 1, receiver, 11);
            c.send(new double[] {7}, 0, 1, receiver, 11);
            return;
        }
        try {
            c.recv(new double[len], 0, len, sender, 11);
            throw new BackendException("a message of " + (len + 1) + " doubles fit a buffer of " + len);
        } catch (org.paratrain.comm.MessageTooLongException expected) {
            double[] next = new double[1];
            c.recv(next, 0, 1, sender, 11);
            if (next[0] != 7) {
                throw new BackendException("after a message too long, the next one held " + next[0]);
            }
        }
    }

    private static void sendRecvRing(Communicator c, int p, int r, int len) {
        double[] mine = new double[len];
        java.util.Arrays.fill(mine, r);
        double[] got = new double[len];
        int n = c.sendRecv(mine, 0, len, (r + 1) % p, 9, got, 0, len, (r - 1 + p) % p, 9);
        if (n != len || got[len - 1] != (r - 1 + p) % p) {
            throw new BackendException("sendRecv of " + len + ": rank " + r + " got " + n + " doubles ending "
                + got[len - 1]);
        }
    }

    private static void sendThenReceiveRing(Communicator c, int p, int r, int len) {
        if (p > 1) {
            double[] ring = new double[len];
            java.util.Arrays.fill(ring, r);
            // Even ranks send first, odd ranks receive first: no deadlock with blocking calls.
            int next = (r + 1) % p;
            int prev = (r - 1 + p) % p;
            double[] in = new double[len + 1];
            int n;
            if (r % 2 == 0) {
                c.send(ring, 0, len, next, 7);
                n = c.recv(in, 0, len + 1, prev, 7);
            } else {
                n = c.recv(in, 0, len + 1, prev, 7);
                c.send(ring, 0, len, next, 7);
            }
            if (n != len || in[len - 1] != prev) {
                throw new BackendException("ring of " + len + ": rank " + r + " got " + n + " doubles ending "
                    + in[len - 1] + " from " + prev);
            }
        }
    }

    /** The backend's own allreduce and broadcast, which both measurements and the self-test use. */
    private static NativeCollectives natives(Communicator c) {
        return c.nativeCollectives().orElseThrow(() -> new BackendException("the " + c.backend()
            + " backend has no native allreduce to measure or test"));
    }
}
