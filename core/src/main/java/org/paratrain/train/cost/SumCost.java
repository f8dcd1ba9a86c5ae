package org.paratrain.train.cost;

import org.paratrain.collective.Allreduce;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * What a sum sends and adds in one step, beyond the collective that moves it: the words per
 * value, the grid's agreement, and the arithmetic before and after. For a vector of
 * {@code n} values, {@code B} blocks, {@code r} of them on the busiest rank:
 * <ul>
 *   <li>{@link Sum#BLOCKS}: the table of {@code B n} doubles is reduced (each rank's rows,
 *       {@code -0.0} elsewhere), then every rank adds the {@code B} rows in block order:
 *       {@code 8 B n gamma}.</li>
 *   <li>{@link Sum#FLOAT}: each rank adds its {@code r} rows ({@code 8 r n gamma}), then
 *       {@code n} doubles are reduced.</li>
 *   <li>{@link Sum#FIXED_1}, {@link Sum#FIXED_2} ({@code k} words a value): each rank observes
 *       and deposits its {@code r} rows ({@code r n} deposits at the measured rate), the grid
 *       is the last step's, checked by 2 words beside the values (an allreduce exchange), or
 *       agreed by one extra allreduce of 2 words (the maximum exponent of the loss and of the
 *       gradient: latency, nearly all; a sharded exchange), {@code k n + 3} words are reduced
 *       (the checks, and the last counts the blocks), and the values read are converted back at
 *       the measured rate.</li>
 * </ul>
 *
 * @param sum        which sum
 * @param conversion its measured conversion rates ({@link ConversionRates.Conversion#FREE} but
 *                   for the fixed sums)
 */
public record SumCost(Sum sum, ConversionRates.Conversion conversion) {
    /** Words of the grid's agreement: one exponent for the loss, one for the gradient. */
    static final int AGREEMENT_WORDS = 2;
    /** Check words beside a fixed sum's values, one a segment (loss, gradient), for the guessed grid. */
    static final int CHECK_WORDS = 2;

    /** Checks that both are given. */
    public SumCost {
        if (sum == null || conversion == null) {
            throw new IllegalArgumentException("a sum's cost needs the sum and its conversion rates");
        }
    }

    /**
     * {@return the cost of {@code sum} at {@code rates}}
     * @param sum   any sum
     * @param rates the machine's conversion rates
     */
    public static SumCost of(Sum sum, ConversionRates rates) {
        return new SumCost(sum, rates.of(sum));
    }

    /**
     * {@return the 8-byte elements the collective reduces: {@code B n} for the block table,
     * {@code n} for the float sum, {@code k n + 3} for a fixed sum of {@code k} words (a check
     * word for each of the loss and the gradient, and the count of blocks)}
     * @param values {@code n}, the loss and the gradient
     * @param blocks {@code B}, the step's blocks over all ranks
     */
    public long words(long values, int blocks) {
        return switch (sum) {
            case BLOCKS -> values * blocks;
            case FLOAT -> values;
            case FIXED_1, FIXED_2, FIXED_HALF -> lossAndValueWords(values) + CHECK_WORDS + 1;
        };
    }

    /**
     * {@return the 8-byte words that hold a loss and {@code values - 1} gradient values, as a
     * trainer's fixed sum lays them out (the loss a segment of its own): {@code k n}, or
     * {@code 1 + ceil((n - 1) / 2)} for half words, whose loss takes a word alone}
     * @param values how many, the loss included, at least 1
     * @throws IllegalArgumentException for a sum that is not a fixed-point one
     */
    public long lossAndValueWords(long values) {
        return sum == Sum.FIXED_HALF ? 1 + valueWords(values - 1) : valueWords(values);
    }

    /**
     * {@return the 8-byte words that hold {@code values} values of one range of a fixed sum (a
     * bucket's), without its check words: {@code k n}, or {@code ceil(n / 2)} for half words}
     * @param values how many values
     * @throws IllegalArgumentException for a sum that is not a fixed-point one
     */
    public long valueWords(long values) {
        return switch (sum) {
            case FIXED_1, FIXED_2 -> (long) sum.wordsPerValue() * values;
            case FIXED_HALF -> (values + 1) / 2;
            case BLOCKS, FLOAT -> throw new IllegalArgumentException(sum.label() + " has no fixed-point words");
        };
    }

    /**
     * {@return seconds of agreeing the grid: one allreduce of 2 words for a fixed sum, 0 otherwise}
     * @param p         ranks
     * @param allreduce the formula of the allreduce that agrees it
     * @param m         the machine
     */
    public double agreementSeconds(int p, CollectiveCost allreduce, Allreduce.Machine m) {
        return sum.fixed() ? allreduce.seconds(p, AGREEMENT_WORDS, m) : 0.0;
    }

    /**
     * {@return seconds the busiest rank spends on its own rows before the collective: adding them
     * (float) or observing and depositing them (fixed); nothing for the block table, whose rows
     * are written in place}
     * @param ownRows {@code r}, the busiest rank's blocks
     * @param values  {@code n}, values a row
     * @param m       the machine, whose gamma prices an addition
     */
    public double prepareSeconds(long ownRows, long values, Allreduce.Machine m) {
        double own = (double) ownRows * values;
        return switch (sum) {
            case BLOCKS -> 0.0;
            case FLOAT -> 8.0 * own * m.gamma();
            case FIXED_1, FIXED_2, FIXED_HALF -> own * conversion.depositSeconds();
        };
    }

    /**
     * {@return as {@link #prepareSeconds}, with the observing pass a fixed sum makes before
     * agreeing its grid: for the exchanges that agree every step (sharded, shared)}
     * @param ownRows {@code r}, the busiest rank's blocks
     * @param values  {@code n}, values a row
     * @param m       the machine, whose gamma prices an addition
     */
    public double observedPrepareSeconds(long ownRows, long values, Allreduce.Machine m) {
        return prepareSeconds(ownRows, values, m) + (sum.fixed() ? (double) ownRows * values * conversion.observeSeconds()
            : 0.0);
    }

    /**
     * {@return seconds after the collective: adding the reduced table in block order (blocks),
     * converting the values read back to doubles (fixed), nothing (float)}
     * @param blocks {@code B}, the step's blocks
     * @param values {@code n}, values a row
     * @param read   values this rank converts back: {@code n}, or its chunk when sharded
     * @param m      the machine, whose gamma prices an addition
     */
    public double finishSeconds(int blocks, long values, long read, Allreduce.Machine m) {
        return switch (sum) {
            case BLOCKS -> 8.0 * blocks * values * m.gamma();
            case FLOAT -> 0.0;
            case FIXED_1, FIXED_2, FIXED_HALF -> read * conversion.readoutSeconds();
        };
    }
}
