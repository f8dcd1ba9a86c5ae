package org.paratrain.comm.mpi;

import org.paratrain.comm.NativeCollectives;

/**
 * MPI's own collectives on {@code MPI_COMM_WORLD}, which {@link MpiCommunicator} offers as its
 * {@link MpiCommunicator#nativeCollectives() native collectives}. Each keeps the rank's deadline
 * ({@link Watchdog}) as every point-to-point operation does, and waits as {@link PolledCalls}
 * says.
 */
final class MpiCollectives implements NativeCollectives {
    private final PolledCalls calls;
    private final PolledBlockCalls blocks;
    private final Watchdog watchdog;

    MpiCollectives(PolledCalls calls, PolledBlockCalls blocks, Watchdog watchdog) {
        this.calls = calls;
        this.blocks = blocks;
        this.watchdog = watchdog;
    }

    /** MPI's own allreduce: {@code buf[offset, offset + length)} becomes the sum over all ranks. */
    @Override
    public void allreduceSum(double[] buf, int offset, int length) {
        watchdog.begin(Op.ALLREDUCE, -1, 0);
        try {
            calls.allreduce(buf, offset, length, true);
        } finally {
            watchdog.end();
        }
    }

    /** MPI's own allreduce with {@code MPI_MAX}: every element becomes its maximum over all ranks. */
    @Override
    public void allreduceMax(double[] buf, int offset, int length) {
        watchdog.begin(Op.ALLREDUCE, -1, 0);
        try {
            calls.allreduce(buf, offset, length, false);
        } finally {
            watchdog.end();
        }
    }

    /**
     * MPI's own allreduce of 64-bit words ({@code MPI_INT64_T}, {@code MPI_SUM}): every word of
     * {@code buf[offset, offset + length)} becomes its sum over all ranks, modulo 2^64 as Java's
     * {@code long} addition. Integer addition is associative, so whatever algorithm MPI picks,
     * every rank gets the words of any other order of addition.
     *
     * @param buf    this rank's words in, the sums out
     * @param offset index of the first word
     * @param length number of words, the same on every rank
     */
    @Override
    public void allreduceSum(long[] buf, int offset, int length) {
        watchdog.begin(Op.ALLREDUCE, -1, 0);
        try {
            calls.allreduce(buf, offset, length, true);
        } finally {
            watchdog.end();
        }
    }

    /**
     * MPI's own allreduce of 64-bit words with {@code MPI_MAX}: every word becomes its maximum
     * over all ranks (signed).
     *
     * @param buf    this rank's words in, the maxima out
     * @param offset index of the first word
     * @param length number of words, the same on every rank
     */
    @Override
    public void allreduceMax(long[] buf, int offset, int length) {
        watchdog.begin(Op.ALLREDUCE, -1, 0);
        try {
            calls.allreduce(buf, offset, length, false);
        } finally {
            watchdog.end();
        }
    }

    /** MPI's own broadcast of {@code buf[offset, offset + length)} from {@code root}. */
    @Override
    public void broadcast(double[] buf, int offset, int length, int root) {
        watchdog.begin(Op.BROADCAST, root, 0);
        try {
            calls.broadcast(buf, offset, length, root);
        } finally {
            watchdog.end();
        }
    }

    /**
     * MPI's own reduce-scatter ({@code MPI_SUM}): this rank's block of {@code buf} becomes its sum
     * over all ranks, left at its own place.
     */
    @Override
    public void reduceScatterSum(double[] buf, int offset, int[] counts) {
        watchdog.begin(Op.REDUCE_SCATTER, -1, 0);
        try {
            blocks.reduceScatter(buf, offset, counts);
        } finally {
            watchdog.end();
        }
    }

    /**
     * MPI's own reduce-scatter of 64-bit words ({@code MPI_INT64_T}, {@code MPI_SUM}), modulo 2^64
     * as Java's {@code long} addition: the words of any order of addition.
     */
    @Override
    public void reduceScatterSum(long[] buf, int offset, int[] counts) {
        watchdog.begin(Op.REDUCE_SCATTER, -1, 0);
        try {
            blocks.reduceScatter(buf, offset, counts);
        } finally {
            watchdog.end();
        }
    }

    /** MPI's own allgather ({@code MPI_Allgatherv}, in place): every rank's block of {@code buf} to every rank. */
    @Override
    public void allgather(double[] buf, int offset, int[] counts) {
        watchdog.begin(Op.ALLGATHER, -1, 0);
        try {
            blocks.allgather(buf, offset, counts);
        } finally {
            watchdog.end();
        }
    }

    /** As {@link #allgather(double[], int, int[])} on 64-bit words. */
    @Override
    public void allgather(long[] buf, int offset, int[] counts) {
        watchdog.begin(Op.ALLGATHER, -1, 0);
        try {
            blocks.allgather(buf, offset, counts);
        } finally {
            watchdog.end();
        }
    }
}
