package org.paratrain.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.CostModel;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.LinearRegression;

/**
 * Measures this machine for the cost model: allreduce times of every algorithm over message
 * sizes and rank counts, the gradient's cost per sample and parameter, and the memory copy
 * bandwidth that allreduce bandwidth is judged against.
 */
public final class Calibration {
    private Calibration() { }

    /** Allreduce times on the local backend: best of {@code rounds} timing loops of at least 2 ms. */
    public static List<CostModel.Measurement> allreduce(List<String> algorithms, int[] ranks, long[] sizes,
                                                        int rounds, java.util.function.IntConsumer progress) {
        List<CostModel.Measurement> out = new ArrayList<>();
        // Compile every algorithm's code first, so the first sizes measured are not the JIT's.
        for (String name : algorithms) {
            LocalCluster.run(2, comm -> time(comm, name, new long[] {1, 64}, 1));
        }
        int done = 0;
        for (int p : ranks) {
            for (String name : algorithms) {
                List<double[]> perSize = LocalCluster.run(p, comm -> time(comm, name, sizes, rounds));
                double[] seconds = perSize.get(0);
                for (int i = 0; i < sizes.length; i++) {
                    out.add(new CostModel.Measurement(name, p, sizes[i], seconds[i]));
                }
                progress.accept(++done);
            }
        }
        return out;
    }

    /**
     * Runs on every rank; rank 0's view of each size's time is returned (others time the same
     * loops). Each size is first run untimed for about 20 ms, so that the JIT has compiled the
     * algorithm, then timed in {@code rounds} loops of about 2 ms; the best loop counts.
     */
    static double[] time(Communicator comm, String name, long[] sizes, int rounds) {
        Allreduce a = Allreduces.create(name);
        double[] best = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            double[] buf = new double[(int) sizes[i]];
            best[i] = Double.MAX_VALUE;
            double perCall = loop(comm, a, buf, 1);
            loop(comm, a, buf, iterations(comm, perCall, 20e-3));
            perCall = loop(comm, a, buf, iterations(comm, perCall, 2e-3));
            for (int r = 0; r < rounds; r++) {
                best[i] = Math.min(best[i], perCall);
                perCall = loop(comm, a, buf, iterations(comm, perCall, 2e-3));
            }
            best[i] = Math.min(best[i], perCall);
        }
        return best;
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

    /** Seconds per sample and parameter of linear regression's gradient with {@code features} features. */
    public static double computeRate(int features) {
        int samples = Math.max(4096, 2_000_000 / features);
        Random rnd = new Random(1);
        double[] x = new double[samples * features];
        double[] y = new double[samples];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        Dataset d = new Dataset(x, y, samples, features);
        LinearRegression m = new LinearRegression(d.features(), false);
        double[] w = new double[m.parameterCount()];
        double[] g = new double[m.parameterCount()];
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 15; r++) {
            long t0 = System.nanoTime();
            m.lossAndGradient(d, 0, samples, w, g, 0);
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
        }
        return best / ((double) samples * m.parameterCount());
    }

    /** Bytes per second of System.arraycopy between two 8 MB arrays: the yardstick for allreduce bandwidth. */
    public static double copyBandwidth() {
        double[] a = new double[1_000_000];
        double[] b = new double[1_000_000];
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 30; r++) {
            long t0 = System.nanoTime();
            System.arraycopy(a, 0, b, 0, a.length);
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
        }
        return 2.0 * 8 * a.length / best;      // bytes read plus bytes written
    }

    /** A quick fit for {@code auto}: every portable algorithm at 2 ranks over four sizes (about a second). */
    public static Allreduce.Machine quickMachine() {
        return CostModel.fit(allreduce(Allreduces.portableNames(), new int[] {2},
            new long[] {1, 1024, 32768, 262144}, 2, done -> { }));
    }
}
