package org.paratrain.comm.mpi;

import java.util.Locale;

/**
 * The measurements of {@code paratrain bench mpi} on this process's MPI rank, made exactly
 * as the C reference (resources/c/mpi_bench.c) makes them: best of 5 repetitions of a
 * ping-pong of 8 bytes, an allreduce of 1 double and an allreduce of 1,000,000 doubles.
 */
public final class MpiBenchmark {
    private MpiBenchmark() { }

    /** Runs on every rank; returns the figures on rank 0 (in the C program's output format), else null. */
    public static String run(MpiCommunicator c) {
        int large = 1_000_000;
        double[] buf = new double[large];
        double pp = Double.MAX_VALUE;
        double ar = Double.MAX_VALUE;
        double big = Double.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) {
            pp = Math.min(pp, pingpong(c, 20_000, buf));
            ar = Math.min(ar, allreduce(c, 20_000, buf, 1));
            big = Math.min(big, allreduce(c, 20, buf, large));
        }
        return c.rank() != 0 ? null : String.format(Locale.ROOT, "pingpong_us %.4f%nallreduce8_us %.4f%n"
            + "allreduce1m_ms %.4f%n", pp * 1e6, ar * 1e6, big * 1e3);
    }

    private static double pingpong(MpiCommunicator c, int n, double[] buf) {
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

    private static double allreduce(MpiCommunicator c, int n, double[] buf, int count) {
        c.barrier();
        double t = c.wtime();
        for (int i = 0; i < n; i++) {
            c.allreduceSum(buf, 0, count);
        }
        return (c.wtime() - t) / n;
    }

    /**
     * Checks send/receive, the native allreduce and broadcast against sequential sums
     * (integer-valued doubles, so exact); throws on the first mismatch.
     */
    public static void selfTest(MpiCommunicator c) {
        int p = c.size();
        int r = c.rank();
        for (int len : new int[] {1, p + 1, 100_003}) {
            double[] v = new double[len];
            for (int i = 0; i < len; i++) {
                v[i] = r * 1000.0 + i;
            }
            c.allreduceSum(v, 0, len);
            for (int i = 0; i < len; i++) {
                double expected = 1000.0 * p * (p - 1) / 2 + (double) i * p;
                if (v[i] != expected) {
                    throw new MpiException("allreduce of " + len + ": element " + i + " is " + v[i] + ", expected "
                        + expected);
                }
            }
            double[] b = new double[len];
            if (r == p - 1) {
                for (int i = 0; i < len; i++) {
                    b[i] = -i;
                }
            }
            c.broadcast(b, 0, len, p - 1);
            for (int i = 0; i < len; i++) {
                if (b[i] != -i) {
                    throw new MpiException("broadcast of " + len + ": element " + i + " is " + b[i]);
                }
            }
        }
        sendThenReceiveRing(c, p, r);
        sendRecvRing(c, p, r);
        c.barrier();
    }

    private static void sendRecvRing(MpiCommunicator c, int p, int r) {
        double[] mine = {r};
        double[] got = new double[1];
        c.sendRecv(mine, 0, 1, (r + 1) % p, 9, got, 0, 1, (r - 1 + p) % p, 9);
        if (got[0] != (r - 1 + p) % p) {
            throw new MpiException("sendRecv: rank " + r + " got " + got[0]);
        }
    }

    private static void sendThenReceiveRing(MpiCommunicator c, int p, int r) {
        double[] ring = {r};
        if (p > 1) {
            // Even ranks send first, odd ranks receive first: no deadlock with blocking calls.
            int next = (r + 1) % p;
            int prev = (r - 1 + p) % p;
            double[] in = new double[2];
            if (r % 2 == 0) {
                c.send(ring, 0, 1, next, 7);
                c.recv(in, 0, 2, prev, 7);
            } else {
                c.recv(in, 0, 2, prev, 7);
                c.send(ring, 0, 1, next, 7);
            }
            if (in[0] != prev) {
                throw new MpiException("ring: rank " + r + " got " + in[0] + " from " + prev);
            }
        }
    }
}
