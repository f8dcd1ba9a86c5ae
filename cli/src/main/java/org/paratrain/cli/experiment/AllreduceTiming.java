package org.paratrain.cli.experiment;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;

/**
 * Times one allreduce on ranks that all call it: loops of about 2 ms after a warm-up, the best
 * or the typical loop, optionally each after an idle spell as a training step's exchange comes
 * after its computation. {@link Calibration} fits the machine's cost model from these figures;
 * {@code bench network} fits a link's.
 */
public final class AllreduceTiming {
    private AllreduceTiming() { }

    /**
     * Runs on every rank; rank 0's view of each size's time is returned (others time the same
     * loops). Each size is first run untimed for about 20 ms, so that the JIT has compiled the
     * algorithm, then timed in {@code rounds} loops of about 2 ms; the best loop counts.
     *
     * @param comm   this rank's communicator, of any backend
     * @param name   the allreduce (one of {@link Allreduces#portableNames()})
     * @param sizes  vector lengths, in doubles
     * @param rounds timed loops a size
     * @return seconds a call, a size
     */
    public static double[] time(Communicator comm, String name, long[] sizes, int rounds) {
        return time(comm, name, sizes, rounds, false);
    }

    /**
     * As {@link #time(Communicator, String, long[], int)}, keeping the best loop or, with
     * {@code typical}, the median of the {@code rounds + 1} loops: what a call takes as a rule,
     * which on a link is what a training step's exchange meets (TCP over a shaped link varies from
     * call to call by tens of percent, and the best call is the exception). On one machine's
     * memory the best is the figure: there the spread is interference.
     *
     * @param comm    this rank's communicator, of any backend
     * @param name    the allreduce (one of {@link Allreduces#portableNames()})
     * @param sizes   vector lengths, in doubles
     * @param rounds  timed loops a size
     * @param typical the median of the loops instead of the best
     * @return seconds a call, a size
     */
    public static double[] time(Communicator comm, String name, long[] sizes, int rounds, boolean typical) {
        return time(comm, name, sizes, rounds, typical, 0.0);
    }

    /**
     * As {@link #time(Communicator, String, long[], int, boolean)}, each timed loop after
     * {@code idleSeconds} without traffic, as a training step's exchange comes after its
     * computation: a link shaped by a token bucket then lets a message's first bytes through at
     * once (its burst, 125 KB at 1 Gbit/s on the emulated hosts), which calls back to back never
     * see. A call longer than a loop's 2 ms is a loop of its own, so every such call is timed
     * after the idle; on a link without a burst the idle changes nothing.
     *
     * @param comm        this rank's communicator, of any backend
     * @param name        the allreduce (one of {@link Allreduces#portableNames()})
     * @param sizes       vector lengths, in doubles
     * @param rounds      timed loops a size
     * @param typical     the median of the loops instead of the best
     * @param idleSeconds the pause before each timed loop, 0 for none
     * @return seconds a call, a size
     */
    public static double[] time(Communicator comm, String name, long[] sizes, int rounds, boolean typical,
                                double idleSeconds) {
        Allreduce a = Allreduces.create(name, comm);     // in two levels where a process holds several ranks
        double[] out = new double[sizes.length];
        double[] loops = new double[rounds + 1];
        for (int i = 0; i < sizes.length; i++) {
            double[] buf = new double[(int) sizes[i]];
            double perCall = loop(comm, a, buf, 1);
            loop(comm, a, buf, iterations(comm, perCall, 20e-3));
            idle(idleSeconds);
            perCall = loop(comm, a, buf, iterations(comm, perCall, 2e-3));
            for (int r = 0; r < rounds; r++) {
                loops[r] = perCall;
                idle(idleSeconds);
                perCall = loop(comm, a, buf, iterations(comm, perCall, 2e-3));
            }
            loops[rounds] = perCall;
            double[] sorted = loops.clone();
            java.util.Arrays.sort(sorted);
            out[i] = typical ? (sorted[rounds / 2] + sorted[(rounds + 1) / 2]) / 2 : sorted[0];
        }
        return out;
    }

    /**
     * Times single calls as a training step's exchange is measured: every call alone, after
     * {@code idleSeconds} without traffic (a step's computation); per call the least time over the
     * ranks (the rank that left the barrier last waits for no one, as the step's last rank does
     * not), and of those the median (a typical step, not the best) and the mean (the steps on average). Loops of calls back to back
     * time less than this where a call is short: the next call's first messages leave while the
     * last one's end is still on its way, which a step's one exchange never has (on the unshaped
     * emulated link, 0.43-0.75 ms a call in loops against 0.57-0.86 alone at the MLP's 101,769
     * words), and the cost model of {@code bench network} was fitted 15-30% fast there.
     *
     * @param comm        this rank's communicator, of any backend; every rank calls this
     * @param name        the allreduce (one of {@link Allreduces#portableNames()})
     * @param sizes       vector lengths, in doubles
     * @param calls       timed calls a size
     * @param idleSeconds the pause before each call, 0 for none
     * @return seconds a call, a size, the same on every rank: the median call and the mean
     */
    public static Calls timeCalls(Communicator comm, String name, long[] sizes, int calls, double idleSeconds) {
        Allreduce a = Allreduces.create(name, comm);     // in two levels where a process holds several ranks
        Allreduce least = Allreduces.create("recursive-doubling", comm);
        double[] out = new double[sizes.length];
        double[] mean = new double[sizes.length];
        long[] bits = new long[calls];
        double[] each = new double[calls];
        for (int i = 0; i < sizes.length; i++) {
            double[] buf = new double[(int) sizes[i]];
            double perCall = loop(comm, a, buf, 1);
            loop(comm, a, buf, iterations(comm, perCall, 20e-3));     // warm-up: the JIT, the link's buffers
            for (int c = 0; c < calls; c++) {
                comm.barrier();
                idle(idleSeconds);
                long t0 = System.nanoTime();
                a.allreduce(comm, buf, 0, buf.length);
                // Non-negative doubles order as their bits: the least over the ranks is the greatest negated.
                bits[c] = -Double.doubleToRawLongBits((System.nanoTime() - t0) * 1e-9);
            }
            least.allreduce(comm, bits, 0, calls, org.paratrain.collective.Reduction.WORD_MAX);
            for (int c = 0; c < calls; c++) {
                each[c] = Double.longBitsToDouble(-bits[c]);
            }
            mean[i] = java.util.Arrays.stream(each).average().orElseThrow();
            java.util.Arrays.sort(each);
            out[i] = (each[(calls - 1) / 2] + each[calls / 2]) / 2;
        }
        return new Calls(out, mean);
    }

    /**
     * Single calls' times, size by size, each call's the least over the ranks.
     *
     * @param median the median call: what a step meets as a rule
     * @param mean   the mean call: what steps average, the calls the OS or the link slowed included
     */
    public record Calls(double[] median, double[] mean) { }

    /**
     * As {@link #time(Communicator, String, long[], int, boolean, double)} with the median, the
     * calls made on a background thread ({@link org.paratrain.comm.BackgroundThreads}) while the
     * rank's own thread computes: how a bucket sent during the backward pass is summed. Where a
     * host's core is held by the computation, the calls, their waits and the kernel's copies get
     * it only in turns, and a call takes longer than an idle rank's; beside a spare core, about
     * as long. The computation is arithmetic in a loop, the core given up between short runs of
     * it where the rank is a virtual thread (ranks that share a carrier must all reach the calls).
     *
     * <p>In loops, not call by call ({@link #timeCalls}): beside the computation every wait polls
     * at a fixed interval on both ends, and a bucket's messages meet the other end's poll late;
     * calls back to back keep the two ends' polls as apart as a bucket's are, while a call begun
     * from a barrier lines them up. Timed alone after a barrier, the CNN's early buckets at
     * 1 Gbit/s were priced at the link's idle pace and the steps' exposed exchange 63% under.
     *
     * @param comm        this rank's communicator, one whose calls may come from another thread
     * @param name        the allreduce (one of {@link Allreduces#portableNames()})
     * @param sizes       vector lengths, in doubles
     * @param rounds      timed loops a size
     * @param idleSeconds the pause before each timed loop, 0 for none
     * @return seconds a call, a size
     */
    public static double[] timeBesideWork(Communicator comm, String name, long[] sizes, int rounds,
                                          double idleSeconds) {
        double[][] out = new double[1][];
        RuntimeException[] failed = new RuntimeException[1];
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread t = org.paratrain.comm.BackgroundThreads.of(() -> {
            try {
                out[0] = time(comm, name, sizes, rounds, true, idleSeconds);
            } catch (RuntimeException e) {
                failed[0] = e;
            } finally {
                done.set(true);
            }
        }, "paratrain-calibration-" + comm.rank());
        t.start();
        double sink = work(done);
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.paratrain.comm.CommInterruptedException(comm.rank(), "allreduce timed beside work", -1);
        }
        if (failed[0] != null) {
            throw failed[0];
        }
        if (sink == 0) {            // never: keeps the loop's result alive
            out[0][0] += Double.MIN_VALUE;
        }
        return out[0];
    }

    /** Computes until {@code done}: arithmetic the JIT cannot drop, in runs of some tens of microseconds. */
    private static double work(java.util.concurrent.atomic.AtomicBoolean done) {
        boolean virtual = Thread.currentThread().isVirtual();
        double x = 1;
        while (!done.get()) {
            for (int i = 0; i < 20_000; i++) {
                x = x * 1.000000001 + 1e-12;
            }
            if (virtual) {
                Thread.yield();
            }
        }
        return x;
    }

    /** Pauses the calling rank; the barrier of the next loop brings the ranks together again. */
    private static void idle(double seconds) {
        if (seconds > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos((long) (seconds * 1e9));
        }
    }

    /** Times {@code n} calls after a barrier; seconds per call. */
    private static double loop(Communicator comm, Allreduce a, double[] buf, int n) {
        comm.barrier();
        double t0 = comm.wtime();
        for (int k = 0; k < n; k++) {
            a.allreduce(comm, buf, 0, buf.length);
        }
        return (comm.wtime() - t0) / n;
    }

    /** How many calls fill {@code seconds}, by rank 0's measure, agreed by every rank. */
    private static int iterations(Communicator comm, double perCall, double seconds) {
        double[] n = {Math.max(1, Math.min(1_000_000, Math.ceil(seconds / Math.max(perCall, 1e-9))))};
        broadcastCount(comm, n);
        return (int) n[0];
    }

    private static void broadcastCount(Communicator comm, double[] iterations) {
        if (comm.rank() == 0) {
            for (int r = 1; r < comm.size(); r++) {
                comm.send(iterations, 0, 1, r, 31999);
            }
        } else {
            comm.recv(iterations, 0, 1, 0, 31999);
        }
    }
}
