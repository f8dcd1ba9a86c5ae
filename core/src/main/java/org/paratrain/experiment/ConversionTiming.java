package org.paratrain.experiment;

import java.util.SplittableRandom;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.train.cost.ConversionRates.Conversion;

/**
 * Times this machine's fixed-point conversions (a value observed and deposited into words,
 * and read back), which the cost model charges the fixed sums per value.
 */
public final class ConversionTiming {
    private ConversionTiming() { }

    /**
     * Values of the vector whose conversions are timed: 2 MB of doubles, beyond a core's L2 cache
     * (1 MB here) as a network's gradient row is (the MLP of bench dl: 203,531 values, 1.6 MB).
     * Timed on 32,768 values, which stay in L2, one word's deposit measured 0.5 ns a value
     * where a training step's measured 2 to 4 times that.
     */
    private static final int CONVERSION_VALUES = 1 << 18;
    /** Rounds run untimed first: about 10,000,000 values, after which the JIT has compiled the loops. */
    private static final int CONVERSION_WARMUP = 40;
    /** Rounds timed: the median counts, what a training step meets as a rule. */
    private static final int CONVERSION_ROUNDS = 11;
    /** Rounds timed as a step meets them: more than back to back, for a mean that holds the OS's rare slow rounds. */
    private static final int STEP_ROUNDS = 41;
    /** The pass before each round of {@link #stepConversion}: twice this machine's last-level cache (32 MB). */
    private static final int SWEEP_BYTES = 64 << 20;

    /**
     * {@return this machine's seconds per value of each fixed-point format's conversions, timed on
     * {@link FixedSum} as a training step takes them once the grid is carried from the step before
     * (deposit and read-back, no observing pass): the median of 11 rounds after the JIT's
     * compilation (0.1 to 0.3 s)}
     */
    public static ConversionRates rates() {
        return new ConversionRates(conversion(FixedFormat.ONE_WORD, false)[0],
            conversion(FixedFormat.TWO_WORDS, false)[0], conversion(FixedFormat.HALF_WORD, false)[0]);
    }

    /**
     * One sum's conversions as a training step meets them, typical and on average: the deposit and
     * the read-back of each timed round after a pass over {@value #SWEEP_BYTES} bytes of memory of
     * its own (the observing pass, which a steady step skips, is timed before it). Between two
     * exchanges a step's forward and backward passes, the link's buffers and, on a virtual
     * machine, other tenants go through the caches, and the rows deposited and the array read back
     * into come from farther out than in rounds back to back: in a 2-host step over the unshaped
     * emulated link the MLP's half-word deposit took 0.126 ms and its read-back and scaling 0.18
     * (medians of 100 steps), against 0.08-0.10 and 0.055 back to back and 0.12-0.14 and 0.10 after
     * the pass. The mean keeps the rounds in which the OS took the core, as a step's does. One
     * format only: timed between a run's rounds, the others' loops would reshape the JIT's profile
     * of the deposit the run compiled for its own.
     *
     * @param sum the run's sum; the float sum and the block table convert nothing (free)
     * @return the median and the mean of {@value #STEP_ROUNDS} rounds, seconds a value
     */
    public static StepConversion stepConversion(org.paratrain.train.spec.ExchangeSpec.Sum sum) {
        FixedFormat format = switch (sum) {
            case FIXED_1 -> FixedFormat.ONE_WORD;
            case FIXED_2 -> FixedFormat.TWO_WORDS;
            case FIXED_HALF -> FixedFormat.HALF_WORD;
            case FLOAT, BLOCKS -> null;
        };
        if (format == null) {
            return new StepConversion(Conversion.FREE, Conversion.FREE);
        }
        Conversion[] c = conversion(format, true);
        return new StepConversion(c[0], c[1]);
    }

    /**
     * One format's conversion rates measured over several rounds.
     *
     * @param median each rate's median round: what a step meets as a rule
     * @param mean   each rate's mean over the rounds: what steps average, the rounds the OS slowed included
     */
    public record StepConversion(Conversion median, Conversion mean) { }

    /**
     * Times one format's conversions of a vector (magnitudes over 20 binades, loss and gradient
     * segments as a trainer declares them) on one thread: the first round observes and fixes the
     * grid, every later one guesses it from the last, as a training step does, and deposits;
     * then the conversion back, with the scaling that follows it in a step. The observing pass,
     * which the exchanges that agree every step make first, is timed on its own.
     */
    static Conversion[] conversion(FixedFormat format, boolean swept) {
        int rounds = swept ? STEP_ROUNDS : CONVERSION_ROUNDS;
        SplittableRandom rnd = new SplittableRandom(11);
        double[] values = new double[CONVERSION_VALUES];
        for (int i = 0; i < values.length; i++) {
            values[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-15, 5));
        }
        FixedSum sum = new FixedSum(format, 1, values.length - 1);
        double[] out = new double[values.length];
        long[] deposit = new long[rounds];
        long[] readout = new long[rounds];
        long[] observe = new long[rounds];
        double[] sweep = swept ? new double[SWEEP_BYTES / Double.BYTES] : null;
        double touched = 0;
        for (int r = 0; r < CONVERSION_WARMUP + rounds; r++) {
            sum.begin(64);
            long o0 = System.nanoTime();
            sum.observe(0, values, 0, values.length);       // kept for a retry; the guess does not read it
            long o1 = System.nanoTime();
            if (sweep != null && r >= CONVERSION_WARMUP) {
                touched += sweep(sweep);                    // the deposit's values and words, the read-back's array out
            }
            long t0 = System.nanoTime();
            if (!sum.guessGrid()) {
                sum.fixGrid();
            }
            sum.deposit(0, values, 0, values.length);
            sum.endBlock();
            long t1 = System.nanoTime();
            sum.get(0, out, 0, out.length);
            scale(out, 0.5);            // the step's scaling of the sum, a pass every fixed sum's step makes
            long t2 = System.nanoTime();
            if (r >= CONVERSION_WARMUP) {
                deposit[r - CONVERSION_WARMUP] = t1 - t0;
                readout[r - CONVERSION_WARMUP] = t2 - t1;
                observe[r - CONVERSION_WARMUP] = o1 - o0;
            }
        }
        if (touched < 0) {          // never (the passes only add 1s): keeps them alive
            deposit[0]++;
        }
        double n = values.length;
        Conversion mean = new Conversion(mean(deposit) / n, mean(readout) / n, mean(observe) / n);
        java.util.Arrays.sort(deposit);
        java.util.Arrays.sort(readout);
        java.util.Arrays.sort(observe);
        Conversion median = new Conversion(deposit[rounds / 2] * 1e-9 / n, readout[rounds / 2] * 1e-9 / n,
            observe[rounds / 2] * 1e-9 / n);
        return new Conversion[] {median, mean};
    }

    /** {@return the mean of {@code nanos}, in seconds} */
    private static double mean(long[] nanos) {
        return java.util.Arrays.stream(nanos).average().orElseThrow() * 1e-9;
    }

    /** Writes one value a cache line of {@code memory}: the caches hold it, and nothing else, after. */
    private static double sweep(double[] memory) {
        double last = 0;
        for (int i = 0; i < memory.length; i += 8) {
            memory[i] += 1;
            last = memory[i];
        }
        return last;
    }

    /**
     * Multiplies every value by {@code factor}: a method of its own, so that the JIT compiles it
     * whole (in the loop of rounds it ran as an on-stack replacement, entered afresh each round:
     * 2.7-3.2 ns a value read back where the step's loop takes 0.2).
     */
    private static void scale(double[] values, double factor) {
        for (int j = 0; j < values.length; j++) {
            values[j] *= factor;
        }
    }
}
