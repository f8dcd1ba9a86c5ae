package org.paratrain.train.cost;

import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * Seconds per value of a fixed-point sum's own arithmetic, measured on this machine (see
 * {@code ConversionTiming.rates}): what a rank spends turning its block partials into words
 * and the summed words back into doubles, which no Hockney parameter describes.
 *
 * <p>Half words have rates of their own: two values share a word, each rounded into a 32-bit
 * lane of it and read back by sign extension, which measured 2 to 4 times one word's a value
 * (deposit 1.9-2.4 against 0.41-0.49 ns, read-back and scaling 0.9-1.3 against 0.30-0.36 ns, on
 * 262,144 values here).
 *
 * @param oneWord  the rates of {@link Sum#FIXED_1}
 * @param twoWords the rates of {@link Sum#FIXED_2}
 * @param halfWord the rates of {@link Sum#FIXED_HALF}
 */
public record ConversionRates(Conversion oneWord, Conversion twoWords, Conversion halfWord) {

    /** No conversion cost: for sums without conversions, and for tests of the traffic alone. */
    public static final ConversionRates NONE = new ConversionRates(Conversion.FREE, Conversion.FREE, Conversion.FREE);

    /** Checks that all three are given. */
    public ConversionRates {
        if (oneWord == null || twoWords == null || halfWord == null) {
            throw new IllegalArgumentException("every format's conversion rates are needed");
        }
    }

    /**
     * One format's rates.
     *
     * @param depositSeconds seconds per value to deposit it into the words (its magnitude checked on the way)
     * @param readoutSeconds seconds per value to convert its summed words back to a double and scale it
     * @param observeSeconds seconds per value of the observing pass before an agreed grid, which the
     *                       exchanges that agree every step make (sharded, shared) and the
     *                       allreduce's carried grid skips
     */
    public record Conversion(double depositSeconds, double readoutSeconds, double observeSeconds) {
        /** Costs nothing. */
        public static final Conversion FREE = new Conversion(0, 0, 0);

        /** Checks that the rates are finite and not negative. */
        public Conversion {
            if (!(depositSeconds >= 0 && readoutSeconds >= 0 && observeSeconds >= 0
                && Double.isFinite(depositSeconds + readoutSeconds + observeSeconds))) {
                throw new IllegalArgumentException("conversion rates must be finite and not negative, got "
                    + depositSeconds + ", " + readoutSeconds + " and " + observeSeconds);
            }
        }
    }

    /**
     * {@return the rates of {@code sum}: {@link Conversion#FREE} for the block table and the float
     * sum, which convert nothing}
     * @param sum any sum
     */
    public Conversion of(Sum sum) {
        return switch (sum) {
            case FIXED_1 -> oneWord;
            case FIXED_HALF -> halfWord;
            case FIXED_2 -> twoWords;
            case BLOCKS, FLOAT -> Conversion.FREE;
        };
    }
}
