package org.paratrain.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import scala.Tuple2;

/**
 * Numbered rows packed into chunks of consecutive samples, each within one rank's range, for
 * the move to the ranks' tasks: a chunk is one record of Spark's shuffle where a row would be
 * one each (1,000,000 rows: a few hundred records instead of a million Java objects through the
 * serializer). A chunk's key is its first sample; its value the rows, each its features, then
 * its weight when the fit has a weight column, then its label.
 */
final class RowChunks implements PairFlatMapFunction<Iterator<Tuple2<double[], Long>>, Long, double[]> {
    private static final long serialVersionUID = 1L;
    /** Values a chunk holds at most: 512 KB of doubles. */
    static final int VALUES = 1 << 16;
    private final int[] starts;

    /** @param starts each rank's first sample, then the total */
    RowChunks(int[] starts) {
        this.starts = starts.clone();
    }

    @Override
    public Iterator<Tuple2<Long, double[]>> call(Iterator<Tuple2<double[], Long>> rows) {
        List<Tuple2<Long, double[]>> out = new ArrayList<>();
        double[] buf = null;
        int used = 0;
        long first = -1;
        long next = -1;
        long end = -1;           // the end of the rank range the open chunk lies in
        while (rows.hasNext()) {
            Tuple2<double[], Long> t = rows.next();
            double[] row = t._1();
            long i = t._2();
            if (buf != null && (i != next || i >= end || used + row.length > buf.length)) {
                out.add(new Tuple2<>(first, Arrays.copyOf(buf, used)));
                buf = null;
            }
            if (buf == null) {
                buf = new double[Math.max(row.length, VALUES / row.length * row.length)];
                used = 0;
                first = i;
                end = rangeEnd(i);
            }
            System.arraycopy(row, 0, buf, used, row.length);
            used += row.length;
            next = i + 1;
        }
        if (buf != null) {
            out.add(new Tuple2<>(first, Arrays.copyOf(buf, used)));
        }
        return out.iterator();
    }

    /** The first sample past the range of the rank that holds sample {@code i}. */
    private long rangeEnd(long i) {
        int r = new RankPartitioner(starts).getPartition(i);
        return starts[r + 1];
    }
}
