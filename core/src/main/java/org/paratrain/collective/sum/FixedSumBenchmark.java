package org.paratrain.collective.sum;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;

/**
 * Times the reproducible sums against a plain double allreduce of the same vector, in one run
 * on the local backend, each rank holding one block's partials (random, magnitudes over 20
 * binades): the double allreduce alone; and each fixed-point format with everything it
 * adds, per step: observing the values, agreeing the grid (a maximum allreduce of one word),
 * depositing, the allreduce of the words, and the conversion back to doubles.
 *
 * <p>The three are interleaved round by round so that they share the machine's state; each
 * is the best of {@code rounds} loops of at least 20 ms, after a warm-up loop that lets the
 * JIT compile them. The phases of the fixed sums are timed on rank 0 in the best loop.
 */
public final class FixedSumBenchmark {
    private FixedSumBenchmark() { }

    /**
     * One sum's figures, seconds per step.
     *
     * @param name          {@code double}, {@code fixed:1} or {@code fixed:2}
     * @param seconds       the whole step
     * @param wordsPerValue 8-byte words in the reduced vector per value (the fixed sums add one
     *                      word, the block count, and reduce one exponent word beforehand)
     * @param agree         observing the values and agreeing the grid (0 for double)
     * @param deposit       depositing (0 for double)
     * @param reduce        the allreduce
     * @param convert       converting back (0 for double)
     */
    public record Line(String name, double seconds, double wordsPerValue, double agree, double deposit, double reduce,
                       double convert) { }

    /**
     * Runs the comparison.
     *
     * @param ranks     ranks of the local backend, at least 1
     * @param values    values in the vector, at least 1
     * @param algorithm a portable allreduce, e.g. {@code ring}
     * @param rounds    timing loops per sum; the best counts
     * @return the double allreduce, then fixed:1 and fixed:2, as rank 0 timed them
     */
    public static List<Line> run(int ranks, int values, String algorithm, int rounds) {
        Allreduces.create(algorithm);    // an unknown name fails here, before any rank starts
        return LocalCluster.run(ranks, comm -> onRank(comm, values, algorithm, rounds)).get(0);
    }

    private static List<Line> onRank(Communicator comm, int values, String algorithm, int rounds) {
        double[] partials = partials(comm.rank(), values);
        Step[] steps = {new Step(null, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.ONE_WORD, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.TWO_WORDS, partials, Allreduces.create(algorithm))};
        for (Step s : steps) {
            s.loop(comm, s.iterations(comm, 0.02));     // warm-up: compiles every path
        }
        for (int r = 0; r < rounds; r++) {
            for (Step s : steps) {
                s.loop(comm, s.iterations(comm, 0.02));
            }
        }
        List<Line> out = new ArrayList<>();
        for (Step s : steps) {
            out.add(s.line(values));
        }
        return out;
    }

    private static double[] partials(int rank, int values) {
        SplittableRandom rnd = new SplittableRandom(31L * rank + 7);
        double[] v = new double[values];
        for (int i = 0; i < values; i++) {
            v[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-15, 5));
        }
        return v;
    }

    /** One kind of sum, with its buffers and the best loop seen so far. */
    private static final class Step {
        private final FixedFormat format;
        private final double[] partials;
        private final Allreduce algorithm;
        private final double[] buf;
        private final FixedSum sum;
        private final double[] phases = new double[4];
        private final double[] best = new double[5];

        Step(FixedFormat format, double[] partials, Allreduce algorithm) {
            this.format = format;
            this.partials = partials;
            this.algorithm = algorithm;
            // The double allreduce sums its own result again each time: zeros keep it finite, at the same speed.
            this.buf = format == null ? new double[partials.length] : partials.clone();
            this.sum = format == null ? null : new FixedSum(format, partials.length);
            best[0] = Double.POSITIVE_INFINITY;
        }

        /** How many steps fill {@code seconds}, by rank 0's measure of one step, agreed by every rank. */
        int iterations(Communicator comm, double seconds) {
            long[] n = {Math.max(1, Math.min(100_000, (long) Math.ceil(seconds / Math.max(loop(comm, 1), 1e-9))))};
            algorithm.allreduce(comm, n, 0, 1, org.paratrain.collective.Reduction.WORD_MAX);
            return (int) n[0];
        }

        /** Times {@code n} steps after a barrier; keeps the best per-step time and its phases. */
        double loop(Communicator comm, int n) {
            java.util.Arrays.fill(phases, 0.0);
            comm.barrier();
            double t0 = comm.wtime();
            for (int k = 0; k < n; k++) {
                if (sum == null) {
                    algorithm.allreduce(comm, buf, 0, buf.length);
                } else {
                    fixed(comm);
                }
            }
            double perStep = (comm.wtime() - t0) / n;
            if (perStep < best[0]) {
                best[0] = perStep;
                for (int i = 0; i < 4; i++) {
                    best[1 + i] = phases[i] / n;
                }
            }
            return perStep;
        }

        /** One step of the fixed sum, phase by phase. */
        private void fixed(Communicator comm) {
            double t0 = comm.wtime();
            sum.begin(comm.size());
            sum.observe(0, partials, 0, partials.length);
            sum.agree(comm, algorithm);
            double t1 = comm.wtime();
            sum.deposit(0, partials, 0, partials.length);
            sum.endBlock();
            double t2 = comm.wtime();
            sum.reduce(comm, algorithm);
            double t3 = comm.wtime();
            sum.get(0, buf, 0, buf.length);
            double t4 = comm.wtime();
            phases[0] += t1 - t0;
            phases[1] += t2 - t1;
            phases[2] += t3 - t2;
            phases[3] += t4 - t3;
        }

        Line line(int values) {
            if (sum == null) {
                return new Line("double", best[0], 1.0, 0, 0, best[0], 0);
            }
            return new Line(format.label(), best[0], (double) sum.words().length / values, best[1], best[2], best[3],
                best[4]);
        }
    }
}
