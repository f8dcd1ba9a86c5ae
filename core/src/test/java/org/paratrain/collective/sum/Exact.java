package org.paratrain.collective.sum;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The independent reference: exact values as BigDecimal, and their correct rounding to a
 * double found by comparing candidates exactly (BigDecimal's own conversion only proposes one).
 */
final class Exact {
    private Exact() { }

    /** The midpoint between Double.MAX_VALUE and 2^1024: from there on, rounding gives infinity. */
    static final BigDecimal OVERFLOW = pow2(1024).subtract(pow2(970));

    static BigDecimal pow2(int e) {
        return e >= 0 ? new BigDecimal(BigInteger.ONE.shiftLeft(e)) : new BigDecimal(BigInteger.valueOf(5).pow(-e), -e);
    }

    static BigDecimal of(double x) {
        return new BigDecimal(x);
    }

    /** {@code w 2^g}. */
    static BigDecimal of(long w, int g) {
        return new BigDecimal(w).multiply(pow2(g));
    }

    /** {@code (hi 2^s + lo) 2^g}. */
    static BigDecimal of(long hi, long lo, int s, int g) {
        return of(hi, g + s).add(of(lo, g));
    }

    /** {@code v} rounded to the nearest double, ties to even; infinite beyond the doubles. */
    static double round(BigDecimal v) {
        if (v.signum() < 0) {
            return -round(v.negate());
        }
        if (v.compareTo(OVERFLOW) >= 0) {
            return Double.POSITIVE_INFINITY;
        }
        double guess = v.doubleValue();
        double best = Double.NaN;
        BigDecimal bestErr = null;
        for (double c : new double[] {Math.nextDown(guess), guess, Math.nextUp(guess)}) {
            if (Double.isInfinite(c) || c < 0) {
                continue;
            }
            BigDecimal err = v.subtract(of(c)).abs();
            int cmp = bestErr == null ? -1 : err.compareTo(bestErr);
            if (cmp < 0 || (cmp == 0 && (Double.doubleToRawLongBits(c) & 1) == 0)) {
                best = c;
                bestErr = err;
            }
        }
        // The best of three neighbours is the nearest only if no farther double is nearer: check both gaps.
        BigDecimal next = best == Double.MAX_VALUE ? pow2(1024) : of(Math.nextUp(best));
        BigDecimal up = next.subtract(v).abs();
        BigDecimal down = best == 0 ? up : v.subtract(of(Math.nextDown(best))).abs();
        if (bestErr.compareTo(up) > 0 || bestErr.compareTo(down) > 0) {
            throw new AssertionError("reference rounding failed for " + v);
        }
        return best == 0 ? 0.0 : best;
    }

    /** Half the gap around {@code r}: the most the final rounding may move a value to {@code r}. */
    static BigDecimal halfUlp(double r) {
        return of(Math.ulp(r)).divide(BigDecimal.valueOf(2));
    }
}
