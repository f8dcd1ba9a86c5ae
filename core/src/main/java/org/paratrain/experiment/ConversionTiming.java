package org.paratrain.experiment;

import java.util.SplittableRandom;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.train.cost.ConversionRates;

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

    /**
     * {@return this machine's seconds per value of each fixed-point format's conversions, timed on
     * {@link FixedSum} as a training step takes them once the grid is carried from the step before
     * (deposit and read-back, no observing pass): the median of 11 rounds after the JIT's
     * compilation (0.1 to 0.3 s)}
     */
    public static ConversionRates rates() {
        return new ConversionRates(conversion(FixedFormat.ONE_WORD), conversion(FixedFormat.TWO_WORDS),
            conversion(FixedFormat.HALF_WORD));
    }

    /**
     * Times one format's conversions of a vector (magnitudes over 20 binades, loss and gradient
     * segments as a trainer declares them) on one thread: the first round observes and fixes the
     * grid, every later one guesses it from the last, as a training step does, and deposits;
     * then the conversion back, with the scaling that follows it in a step. The observing pass,
     * which the exchanges that agree every step make first, is timed on its own.
     */
    static ConversionRates.Conversion conversion(FixedFormat format) {
        SplittableRandom rnd = new SplittableRandom(11);
        double[] values = new double[CONVERSION_VALUES];
        for (int i = 0; i < values.length; i++) {
            values[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-15, 5));
        }
        FixedSum sum = new FixedSum(format, 1, values.length - 1);
        double[] out = new double[values.length];
        long[] deposit = new long[CONVERSION_ROUNDS];
        long[] readout = new long[CONVERSION_ROUNDS];
        long[] observe = new long[CONVERSION_ROUNDS];
        for (int r = 0; r < CONVERSION_WARMUP + CONVERSION_ROUNDS; r++) {
            sum.begin(64);
            long o0 = System.nanoTime();
            sum.observe(0, values, 0, values.length);       // kept for a retry; the guess does not read it
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
                observe[r - CONVERSION_WARMUP] = t0 - o0;
            }
        }
        java.util.Arrays.sort(deposit);
        java.util.Arrays.sort(readout);
        java.util.Arrays.sort(observe);
        return new ConversionRates.Conversion(deposit[CONVERSION_ROUNDS / 2] * 1e-9 / values.length,
            readout[CONVERSION_ROUNDS / 2] * 1e-9 / values.length, observe[CONVERSION_ROUNDS / 2] * 1e-9 / values.length);
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
