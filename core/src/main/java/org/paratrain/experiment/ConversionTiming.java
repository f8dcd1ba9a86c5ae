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

    /** Values of the vector whose conversions are timed: 256 KB of doubles, as a mid-sized model's gradient. */
    private static final int CONVERSION_VALUES = 1 << 15;
    /** Rounds run untimed first: about 3,000,000 values, after which the JIT has compiled the loops. */
    private static final int CONVERSION_WARMUP = 100;

    /**
     * {@return this machine's seconds per value of each fixed-point format's conversions, timed on
     * {@link FixedSum}: a few milliseconds of timing after the JIT's compilation (0.1 to 0.2 s on
     * 2 busy cores)}
     */
    public static ConversionRates rates() {
        return new ConversionRates(conversion(FixedFormat.ONE_WORD), conversion(FixedFormat.TWO_WORDS));
    }

    /**
     * Times one step's conversions of a vector (magnitudes over 20 binades, loss and gradient
     * segments as a trainer declares them) on one thread: begin, observe, fix the grid and
     * deposit, against the conversion back; the best of 20 rounds, after rounds that let the
     * JIT compile the loops (a step of training runs compiled code, not the interpreter's).
     */
    static ConversionRates.Conversion conversion(FixedFormat format) {
        SplittableRandom rnd = new SplittableRandom(11);
        double[] values = new double[CONVERSION_VALUES];
        for (int i = 0; i < values.length; i++) {
            values[i] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-15, 5));
        }
        FixedSum sum = new FixedSum(format, 1, values.length - 1);
        double[] out = new double[values.length];
        long[] best = {Long.MAX_VALUE, Long.MAX_VALUE};
        for (int r = 0; r < CONVERSION_WARMUP + 20; r++) {
            long t0 = System.nanoTime();
            sum.begin(64);
            sum.observe(0, values, 0, values.length);
            sum.fixGrid();
            sum.deposit(0, values, 0, values.length);
            sum.endBlock();
            long t1 = System.nanoTime();
            sum.get(0, out, 0, out.length);
            long t2 = System.nanoTime();
            if (r >= CONVERSION_WARMUP) {
                best[0] = Math.min(best[0], t1 - t0);
                best[1] = Math.min(best[1], t2 - t1);
            }
        }
        return new ConversionRates.Conversion(best[0] * 1e-9 / values.length, best[1] * 1e-9 / values.length);
    }
}
