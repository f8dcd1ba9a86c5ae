package org.paratrain.data;

/**
 * numpy's legacy {@code RandomState} (MT19937), draw for draw, so that data sets made
 * here equal those scikit-learn makes for the same {@code random_state}.
 *
 * <p>What must match numpy exactly, and why each piece looks as it does:
 * <ul>
 *   <li>Seeding: an integer seed goes through {@code init_genrand}; an array seed through
 *       {@code init_by_array} (numpy's {@code _legacy_seeding}).</li>
 *   <li>{@link #randomSample()}: 53 random bits from two 32-bit outputs,
 *       {@code (a >>> 5) * 2^26 + (b >>> 6)} over {@code 2^53}.</li>
 *   <li>{@link #gauss()}: the legacy polar Box-Muller method; each accepted pair yields two
 *       values, the second is cached and returned by the next call, even when calls of
 *       other kinds come in between (scikit-learn relies on this order implicitly).</li>
 *   <li>{@link #shuffle(int[])}: Fisher-Yates from the top, each index drawn by masked
 *       rejection sampling ({@code random_interval}), 32-bit draws while the bound fits.</li>
 * </ul>
 * Not thread-safe: one instance per generating thread, as in numpy.
 */
public final class NumpyRandomState {
    private static final int N = 624;
    private static final int M = 397;
    private final int[] mt = new int[N];
    private int mti;
    private boolean hasGauss;
    private double cachedGauss;

    /**
     * Seeds as {@code numpy.random.RandomState(seed)} does with an integer.
     *
     * @param seed in [0, 2^32), as numpy accepts it
     * @throws IllegalArgumentException if the seed is out of that range
     */
    public NumpyRandomState(long seed) {
        if (seed < 0 || seed > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("random state must be in [0, 4294967295], got " + seed);
        }
        initGenrand((int) seed);
    }

    /**
     * Seeds as {@code numpy.random.RandomState([k0, k1, ...])} does (MT19937 init_by_array).
     *
     * @param key the seed array, at least one value, each used as its low 32 bits
     */
    public NumpyRandomState(long[] key) {
        if (key.length == 0) {
            throw new IllegalArgumentException("random state array must not be empty");
        }
        initGenrand(19650218);
        int i = 1;
        int j = 0;
        for (int k = Math.max(N, key.length); k > 0; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1664525)) + (int) key[j] + j;
            i++;
            j++;
            if (i >= N) {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if (j >= key.length) {
                j = 0;
            }
        }
        for (int k = N - 1; k > 0; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >>> 30)) * 1566083941)) - i;
            i++;
            if (i >= N) {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x80000000;
    }

    private void initGenrand(int s) {
        mt[0] = s;
        for (int i = 1; i < N; i++) {
            mt[i] = 1812433253 * (mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
        }
        mti = N;
        hasGauss = false;
    }

    /** {@return the next 32-bit output of MT19937, its bits in an int (read it unsigned)} */
    public int nextInt32() {
        if (mti >= N) {
            regenerate();
        }
        int y = mt[mti++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y;
    }

    private void regenerate() {
        int kk = 0;
        for (; kk < N - M; kk++) {
            int y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
            mt[kk] = mt[kk + M] ^ (y >>> 1) ^ ((y & 1) * 0x9908b0df);
        }
        for (; kk < N - 1; kk++) {
            int y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
            mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ ((y & 1) * 0x9908b0df);
        }
        int y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
        mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ ((y & 1) * 0x9908b0df);
        mti = 0;
    }

    private long nextUint64() {
        long hi = Integer.toUnsignedLong(nextInt32());
        return (hi << 32) | Integer.toUnsignedLong(nextInt32());
    }

    /** {@return a uniform double in [0, 1) with 53 random bits, as {@code RandomState.random_sample()}} */
    public double randomSample() {
        long a = Integer.toUnsignedLong(nextInt32()) >>> 5;
        long b = Integer.toUnsignedLong(nextInt32()) >>> 6;
        return (a * 67108864.0 + b) / 9007199254740992.0;
    }

    /**
     * {@return {@code low + (high - low) * random_sample()}, as {@code RandomState.uniform(low, high)}}
     * @param low  the lower bound, included
     * @param high the upper bound, excluded (up to rounding)
     */
    public double uniform(double low, double high) {
        return low + (high - low) * randomSample();
    }

    /**
     * {@return a standard normal draw by the legacy polar method, as {@code RandomState.standard_normal()}}
     * Every other call returns the second value of the pair the previous call made, as numpy does.
     */
    public double gauss() {
        if (hasGauss) {
            hasGauss = false;
            double cached = cachedGauss;
            cachedGauss = 0.0;
            return cached;
        }
        double x1;
        double x2;
        double r2;
        do {
            x1 = 2.0 * randomSample() - 1.0;
            x2 = 2.0 * randomSample() - 1.0;
            r2 = x1 * x1 + x2 * x2;
        } while (r2 >= 1.0 || r2 == 0.0);
        // numpy calls the C library's log, whose last-bit errors Math.log does not share.
        double f = Math.sqrt(-2.0 * LibmLog.log(r2) / r2);
        cachedGauss = f * x1;
        hasGauss = true;
        return f * x2;
    }

    /**
     * {@return {@code loc + scale * gauss()}, as {@code RandomState.normal(loc, scale)}}
     * @param loc   the mean
     * @param scale the standard deviation
     */
    public double normal(double loc, double scale) {
        return loc + scale * gauss();
    }

    /**
     * {@return a uniform integer in [0, max] by masked rejection sampling, as numpy's {@code random_interval}}
     * @param max the largest value drawn, at least 0
     */
    public long randomInterval(long max) {
        if (max == 0) {
            return 0;
        }
        long mask = max;
        mask |= mask >>> 1;
        mask |= mask >>> 2;
        mask |= mask >>> 4;
        mask |= mask >>> 8;
        mask |= mask >>> 16;
        mask |= mask >>> 32;
        long value;
        if (max <= 0xFFFF_FFFFL) {
            do {
                value = Integer.toUnsignedLong(nextInt32()) & mask;
            } while (value > max);
        } else {
            do {
                value = nextUint64() & mask;
            } while (value > max);
        }
        return value;
    }

    /**
     * Shuffles in place as {@code RandomState.shuffle} does a one-dimensional array.
     *
     * @param values the array, permuted in place
     */
    public void shuffle(int[] values) {
        for (int i = values.length - 1; i >= 1; i--) {
            int j = (int) randomInterval(i);
            int t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
    }
}
