package org.paratrain.spark;

import java.util.Arrays;
import org.apache.spark.Partitioner;

/**
 * Sends sample i to the partition of the rank whose blocks hold it: partition r holds samples
 * {@code [starts[r], starts[r + 1])}, so task r of the barrier stage is rank r with its blocks.
 */
final class RankPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int[] starts;

    /** @param starts each rank's first sample, then the total */
    RankPartitioner(int[] starts) {
        this.starts = starts.clone();
    }

    @Override
    public int numPartitions() {
        return starts.length - 1;
    }

    @Override
    public int getPartition(Object key) {
        long i = (Long) key;
        int at = Arrays.binarySearch(starts, 0, starts.length - 1, (int) i);
        if (at >= 0) {
            // A rank that owns no blocks shares its start with the next: the last of equal starts owns it.
            while (at + 1 < starts.length - 1 && starts[at + 1] == starts[at]) {
                at++;
            }
            return at;
        }
        return -at - 2;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RankPartitioner p && Arrays.equals(starts, p.starts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(starts);
    }
}
