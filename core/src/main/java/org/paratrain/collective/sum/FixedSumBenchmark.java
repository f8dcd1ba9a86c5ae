package org.paratrain.collective.sum;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.local.LocalCluster;

/**
 * Times the reproducible sums against a plain double allreduce of the same vector, in one run
 * on the local backend, each rank holding one block's partials (random, magnitudes over 20
 * binades): the double allreduce alone; and each fixed-point format with everything it
 * adds, per step: observing the values, agreeing the grid (a maximum allreduce of one word),
 * depositing, the allreduce of the words, and the conversion back to doubles; then each
 * format on the grid guessed from the step before, as training runs it once the magnitudes
 * settle: no observing pass and no agreement, the check words inside the words' allreduce; by
 * halves (each rank converting its own chunk) and in one ring (the deposits made as the ring's
 * reduce-scatter combines) where the allreduce named allows.
 *
 * <p>The ways are interleaved round by round so that they share the machine's state; each
 * is the best of {@code rounds} loops of at least 20 ms, after a warm-up loop that lets the
 * JIT compile them. The phases of the fixed sums are timed on rank 0 in the best loop.
 */
public final class FixedSumBenchmark {
    private FixedSumBenchmark() { }

    /**
     * One sum's figures, seconds per step.
     *
     * @param name          {@code double}, {@code fixed:1}, {@code fixed:2}, or either followed by
     *                      {@code  guessed}, {@code  guessed, by halves} or
     *                      {@code  guessed, in one ring}
     * @param seconds       the whole step
     * @param wordsPerValue 8-byte words in the reduced vector per value (the fixed sums add one
     *                      word, the block count, and reduce one exponent word beforehand)
     * @param agree         observing the values and agreeing the grid (0 for double and a guess;
     *                      NaN, as deposit and convert, where the phases are one loop: in one ring)
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
     * @return the double allreduce, then fixed:1 and fixed:2, then both on a guessed grid, then by
     *         halves and in one ring where the algorithm has them, as rank 0 timed them
     * @throws IllegalStateException if two ways of one format gave sums that differ in a bit (each
     *         is checked against the others on every rank after the timing)
     */
    public static List<Line> run(int ranks, int values, String algorithm, int rounds) {
        Allreduces.create(algorithm);    // an unknown name fails here, before any rank starts
        return LocalCluster.run(ranks, comm -> onRank(comm, values, algorithm, rounds)).get(0);
    }

    /**
     * Runs the comparison on ranks that exist already (every rank calls it: on MPI, each process),
     * e.g. across the hosts of an emulated cluster, where the link and not the memory bus carries
     * the sums.
     *
     * @param comm      this rank
     * @param values    values in the vector, at least 1
     * @param algorithm a portable allreduce, e.g. {@code ring}
     * @param rounds    timing loops per sum; the best counts
     * @return the lines as this rank timed them (rank 0's are the ones to print)
     */
    public static List<Line> onRanks(Communicator comm, int values, String algorithm, int rounds) {
        Allreduces.create(algorithm);
        return onRank(comm, values, algorithm, rounds);
    }

    private static List<Line> onRank(Communicator comm, int values, String algorithm, int rounds) {
        double[] partials = partials(comm.rank(), values);
        Step[] steps = {new Step(null, false, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.ONE_WORD, false, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.TWO_WORDS, false, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.ONE_WORD, true, partials, Allreduces.create(algorithm)),
            new Step(FixedFormat.TWO_WORDS, true, partials, Allreduces.create(algorithm)),
            null, null, null, null,
            new Step(FixedFormat.HALF_WORD, true, partials, Allreduces.create(algorithm))};
        if (AllreduceHalves.names().contains(algorithm)) {
            steps[5] = new Step(FixedFormat.ONE_WORD, true, partials, Allreduces.create(algorithm))
                .byHalves(AllreduceHalves.create(algorithm));
            steps[6] = new Step(FixedFormat.TWO_WORDS, true, partials, Allreduces.create(algorithm))
                .byHalves(AllreduceHalves.create(algorithm));
        }
        if (algorithm.equals("ring")) {
            steps[7] = new Step(FixedFormat.ONE_WORD, true, partials, Allreduces.create(algorithm)).inOneRing();
            steps[8] = new Step(FixedFormat.TWO_WORDS, true, partials, Allreduces.create(algorithm)).inOneRing();
        }
        steps = java.util.Arrays.stream(steps).filter(java.util.Objects::nonNull).toArray(Step[]::new);
        for (Step s : steps) {
            s.loop(comm, s.iterations(comm, 0.02));     // warm-up: compiles every path
        }
        for (int r = 0; r < rounds; r++) {
            for (Step s : steps) {
                s.loop(comm, s.iterations(comm, 0.02));
            }
        }
        for (Step s : steps) {
            for (Step t : steps) {
                if (s.format != null && s.format == t.format && !java.util.Arrays.equals(s.buf, t.buf)) {
                    throw new IllegalStateException(s.line(values).name() + " and " + t.line(values).name()
                        + " gave different sums of the same values");
                }
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
        private final boolean guess;
        /** When set, the words are reduce-scattered and each rank converts its own chunk ({@link FixedSum#reduceInto}). */
        private AllreduceHalves halves;
        private final double[] partials;
        private final Allreduce algorithm;
        private final double[] buf;
        private final FixedSum sum;
        private final double[] phases = new double[4];
        private final double[] best = new double[5];

        Step(FixedFormat format, boolean guess, double[] partials, Allreduce algorithm) {
            this.format = format;
            this.guess = guess;
            this.partials = partials;
            this.algorithm = algorithm;
            // The double allreduce sums its own result again each time: zeros keep it finite, at the same speed.
            this.buf = format == null ? new double[partials.length] : partials.clone();
            this.sum = format == null ? null : new FixedSum(format, partials.length);
            best[0] = Double.POSITIVE_INFINITY;
        }

        /** When set, the deposits are made by the ring's reduce-scatter ({@link FixedSum#ringInto}). */
        private boolean ring;

        Step inOneRing() {
            this.ring = true;
            return this;
        }

        Step byHalves(AllreduceHalves h) {
            this.halves = h;
            return this;
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

        /** One step of the fixed sum, phase by phase; a guess that fails is retried as training does. */
        private void fixed(Communicator comm) {
            if (ring) {
                oneRing(comm);
                return;
            }
            double t0 = comm.wtime();
            sum.begin(comm.size());
            boolean guessed = guess && sum.guessGrid();
            if (!guessed) {
                sum.observe(0, partials, 0, partials.length);
                sum.agree(comm, algorithm);
            }
            double t1 = comm.wtime();
            sum.deposit(0, partials, 0, partials.length);
            sum.endBlock();
            double t2 = comm.wtime();
            if (halves != null) {
                byHalves(comm, t0, t1, t2);
                return;
            }
            sum.reduce(comm, algorithm);
            if (!sum.guessHeld()) {
                sum.retry();
                sum.observe(0, partials, 0, partials.length);
                sum.agree(comm, algorithm);
                sum.deposit(0, partials, 0, partials.length);
                sum.endBlock();
                sum.reduce(comm, algorithm);
            }
            double t3 = comm.wtime();
            sum.get(0, buf, 0, buf.length);
            double t4 = comm.wtime();
            phases[0] += t1 - t0;
            phases[1] += t2 - t1;
            phases[2] += t3 - t2;
            phases[3] += t4 - t3;
        }

        /** The rest of a step by halves: the check words, the reduce-scatter, the own chunk's conversion, the allgather. */
        private void byHalves(Communicator comm, double t0, double t1, double t2) {
            if (!sum.chunked().reduceTail(comm, algorithm)) {
                sum.retry();
                sum.observe(0, partials, 0, partials.length);
                sum.agree(comm, algorithm);
                sum.deposit(0, partials, 0, partials.length);
                sum.endBlock();
                sum.chunked().reduceTail(comm, algorithm);
            }
            sum.chunked().scatterWords(comm, halves);
            double t3 = comm.wtime();
            SumOverflowException failed = sum.chunked().convertOwn(comm.rank(), buf, 0);
            double t4 = comm.wtime();
            sum.chunked().gatherValues(comm, halves, buf, 0, failed);
            double t5 = comm.wtime();
            phases[0] += t1 - t0;
            phases[1] += t2 - t1;
            phases[2] += t3 - t2 + t5 - t4;
            phases[3] += t4 - t3;
        }

        /** The check words' allreduce of a step in one ring: latency is all it costs, recursive doubling has the least. */
        private final Allreduce tail = new org.paratrain.collective.RecursiveDoublingAllreduce();

        /** A step in one ring: the phases are one loop, timed whole. */
        private void oneRing(Communicator comm) {
            double t0 = comm.wtime();
            sum.begin(comm.size());
            boolean guessed = sum.guessGrid();
            if (!guessed || !sum.ringInto(comm, tail, partials, 0, partials.length, 1, 1, buf, 0)) {
                sum.retry();
                sum.observe(0, partials, 0, partials.length);
                sum.agree(comm, algorithm);
                sum.ringInto(comm, tail, partials, 0, partials.length, 1, 1, buf, 0);
            }
            phases[2] += comm.wtime() - t0;
        }

        Line line(int values) {
            if (sum == null) {
                return new Line("double", best[0], 1.0, 0, 0, best[0], 0);
            }
            if (ring) {
                return new Line(format.label() + " guessed, in one ring", best[0],
                    (double) sum.words().length / values, Double.NaN, Double.NaN, best[3], Double.NaN);
            }
            return new Line(format.label() + (guess ? " guessed" : "") + (halves != null ? ", by halves" : ""), best[0], (double) sum.words().length / values, best[1], best[2], best[3],
                best[4]);
        }
    }
}
