package org.paratrain.cli.experiment;

/**
 * Mean and sample variance of repeated measurements, by Welford's method.
 *
 * <p>Welford's update {@code m += (x - m) / k} is stable for values far from zero and,
 * unlike {@code sum / n}, returns exactly {@code x} when every value is {@code x}: a weight
 * that is the same bits in every repeat is reported as those bits.
 *
 * @param count    number of values
 * @param mean     arithmetic mean
 * @param variance sample variance (divided by {@code n - 1}); 0 for a single value
 */
public record Statistics(int count, double mean, double variance) {

    /** The statistics of {@code values}, which must not be empty. */
    static Statistics of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values to summarise");
        }
        double mean = 0.0;
        double m2 = 0.0;
        for (int k = 0; k < values.length; k++) {
            double delta = values[k] - mean;
            mean += delta / (k + 1);
            m2 += delta * (values[k] - mean);
        }
        return new Statistics(values.length, mean, values.length > 1 ? m2 / (values.length - 1) : 0.0);
    }

    /** Sample standard deviation. */
    double stddev() {
        return Math.sqrt(variance);
    }

    /**
     * {@return the median of {@code values}: the mean of the middle two for an even count}
     * @param values at least one value; not changed
     * @throws IllegalArgumentException if there are none
     */
    public static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values to summarise");
        }
        double[] s = values.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
