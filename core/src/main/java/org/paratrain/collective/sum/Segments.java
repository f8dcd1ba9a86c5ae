package org.paratrain.collective.sum;

/**
 * The segments of a fixed-point sum's vector: contiguous ranges of indices, each with a grid
 * of its own (a loss, a gradient, a layer), since one grid for values of very different
 * scales would be set by the largest.
 */
final class Segments {
    /** Segment s holds the indices {@code [start(s), ends[s])}. */
    private final int[] ends;

    Segments(int... lengths) {
        if (lengths.length == 0) {
            throw new IllegalArgumentException("a fixed-point sum needs at least one segment");
        }
        ends = new int[lengths.length];
        long total = 0;
        for (int s = 0; s < lengths.length; s++) {
            if (lengths[s] < 0) {
                throw new IllegalArgumentException("segment " + s + " has a negative length " + lengths[s]);
            }
            total += lengths[s];
            if (total > Integer.MAX_VALUE / 2 - 8) {
                throw new IllegalArgumentException("a fixed-point sum of " + total + " values does not fit an array");
            }
            ends[s] = (int) total;
        }
    }

    int count() {
        return ends.length;
    }

    /** The number of values. */
    int size() {
        return ends[ends.length - 1];
    }

    int start(int s) {
        return s == 0 ? 0 : ends[s - 1];
    }

    int end(int s) {
        return ends[s];
    }

    /** The segment of {@code index}: a scan, since there are a few. */
    int of(int index) {
        java.util.Objects.checkIndex(index, size());
        int s = 0;
        while (index >= ends[s]) {
            s++;
        }
        return s;
    }

    boolean sameAs(Segments other) {
        return java.util.Arrays.equals(ends, other.ends);
    }

    /** How a message names segment s. */
    String describe(int s) {
        return "segment " + s + " (indices " + start(s) + ".." + (ends[s] - 1) + ")";
    }
}
