package org.paratrain.cli;

import java.util.Locale;

/** How numbers read on screen: times in the unit that fits, counts with their noun. */
public final class Formats {
    private Formats() { }

    /**
     * {@return a duration in the unit that fits: 850 us, 12.3 ms, 4.56 s, 3 min 05 s, 2 h 07 min}
     * @param seconds the duration
     */
    public static String duration(double seconds) {
        double s = Math.abs(seconds);
        if (Double.isNaN(seconds)) {
            return "n/a";
        }
        if (s < 1e-3) {
            return String.format(Locale.ROOT, "%.3g us", seconds * 1e6);
        }
        if (s < 1) {
            return String.format(Locale.ROOT, "%.3g ms", seconds * 1e3);
        }
        if (s < 60) {
            return String.format(Locale.ROOT, "%.3g s", seconds);
        }
        long whole = Math.round(seconds);
        if (whole < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", whole / 3600, whole % 3600 / 60);
    }

    /**
     * An accuracy as every screen of paratrain shows it: a percentage with two decimals
     * ({@code 86.54%}); files keep the fraction.
     */
    static String accuracy(double fraction) {
        return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", 100 * fraction);
    }

    /** "1 node", "4 nodes". */
    static String count(long n, String noun) {
        return n + " " + (n == 1 ? noun : noun + "s");
    }
}
