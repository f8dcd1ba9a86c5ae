package org.paratrain.collective;

/**
 * How a vector is cut among p ranks for a reduce-scatter and an allgather: p chunks of whole
 * units (a unit is one value's words: 1, or 2 for a two-word fixed-point sum), as equal as
 * the units allow; the last chunk also takes any words beyond the last whole unit (a
 * fixed-point sum's trailing count word). Chunk r belongs to rank r: a {@link ReduceScatter}
 * leaves it reduced there, and an {@link Allgather} sends it from there, as
 * {@code MPI_Reduce_scatter} and {@code MPI_Allgatherv} do with these chunks' sizes as counts.
 *
 * @param values whole values in the vector
 * @param unit   words a value, at least 1
 * @param p      ranks, at least 1
 * @param length words (or doubles) in the vector, at least {@code values * unit}
 */
public record Chunks(int values, int unit, int p, int length) {

    /** Checks the arguments. */
    public Chunks {
        if (values < 0 || unit < 1 || p < 1 || length < (long) values * unit) {
            throw new IllegalArgumentException("chunks need values >= 0, unit >= 1, p >= 1 and room for the values, "
                + "got " + values + ", " + unit + ", " + p + ", " + length);
        }
    }

    /**
     * Chunks of a vector of {@code length} single values.
     *
     * @param length values in the vector
     * @param p      ranks
     */
    public Chunks(int length, int p) {
        this(length, 1, p, length);
    }

    /**
     * {@return the first word of chunk {@code c}; {@code start(p)} is the vector's length}
     * @param c a chunk, 0..p
     */
    public int start(int c) {
        return c >= p ? length : unit * (int) ((long) values * c / p);
    }

    /**
     * {@return the words in chunk {@code c}}
     * @param c a chunk, 0..p-1
     */
    public int size(int c) {
        return start(c + 1) - start(c);
    }

    /** {@return the words of the largest chunk} */
    public int largest() {
        int most = 0;
        for (int c = 0; c < p; c++) {
            most = Math.max(most, size(c));
        }
        return most;
    }

    /** {@return the chunks' sizes, in {@code reuse} if it has room for p of them} */
    int[] sizes(int[] reuse) {
        int[] out = reuse.length == p ? reuse : new int[p];
        for (int c = 0; c < p; c++) {
            out[c] = size(c);
        }
        return out;
    }

    /** Refuses chunks cut for another number of ranks than the group's, before anything is sent. */
    void requireRanks(int size) {
        if (size != p) {
            throw new IllegalArgumentException("chunks cut for " + p + " ranks used by a group of " + size);
        }
    }
}
