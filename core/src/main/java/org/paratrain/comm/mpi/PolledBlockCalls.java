package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.paratrain.comm.BackendException;

/**
 * The MPI calls behind the reduce-scatter and the allgather of {@link MpiCollectives}, which
 * wait as {@link PolledCalls} does for an allreduce: a vector of at most
 * {@value PolledCalls#SMALL_BYTES} bytes is copied into a native buffer for the nonblocking
 * collective ({@code MPI_Ireduce_scatter}, {@code MPI_Iallgatherv}), polled; a larger one first
 * waits at an {@code MPI_Ibarrier}, so that the blocking call that follows, given the Java array
 * itself ({@code Linker.Option.critical}), finds every rank there and returns promptly.
 *
 * <p>Both work in place. MPI's in-place reduce-scatter leaves a rank's block at the front of
 * the buffer, not at the block's own place, so it is moved there afterwards. The counts and
 * displacements MPI reads are native ints, one a rank, made once and written before each call:
 * a nonblocking call reads them until it completes.
 */
final class PolledBlockCalls {
    private final MpiAbi abi;
    private final Poller poller;
    private final int rank;
    private final MemorySegment in = Arena.global().allocate(PolledCalls.SMALL_BYTES, 64);
    private final MemorySegment counts;
    private final MemorySegment displs;

    PolledBlockCalls(MpiAbi abi, Poller poller, int rank, int size) {
        this.abi = abi;
        this.poller = poller;
        this.rank = rank;
        this.counts = Arena.global().allocate(JAVA_INT, size);
        this.displs = Arena.global().allocate(JAVA_INT, size);
    }

    /** {@code MPI_Reduce_scatter} with {@code MPI_SUM}, in place: this rank's block of the sums at its own place. */
    void reduceScatter(Object buf, int offset, int[] blockCounts) {
        boolean words = buf instanceof long[];
        int length = blocks(buf, offset, blockCounts);
        int at = offset + displs.getAtIndex(JAVA_INT, rank);
        try {
            if (PolledCalls.small(length)) {
                MemorySegment.copy(buf, offset, in, PolledCalls.layout(words), 0, length);
                check("MPI_Ireduce_scatter", words
                    ? (int) MpiCalls.IreduceScatterSumWords.H.invokeExact(abi.inPlace(), in, counts, poller.request)
                    : (int) MpiCalls.IreduceScatterSum.H.invokeExact(abi.inPlace(), in, counts, poller.request));
                check("MPI_Ireduce_scatter", poller.await());
                MemorySegment.copy(in, PolledCalls.layout(words), 0, buf, at, blockCounts[rank]);
                return;
            }
            poller.gate();
            MemorySegment v = PolledCalls.slice(buf, offset, length);
            check("MPI_Reduce_scatter", words
                ? (int) MpiCalls.ReduceScatterSumWords.H.invokeExact(abi.inPlace(), v, counts)
                : (int) MpiCalls.ReduceScatterSum.H.invokeExact(abi.inPlace(), v, counts));
            System.arraycopy(buf, offset, buf, at, blockCounts[rank]);
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Reduce_scatter failed: " + t);
        }
    }

    /** {@code MPI_Allgatherv}, in place: each rank's block, already at its own place, to every rank. */
    void allgather(Object buf, int offset, int[] blockCounts) {
        boolean words = buf instanceof long[];
        int length = blocks(buf, offset, blockCounts);
        try {
            if (PolledCalls.small(length)) {
                int at = displs.getAtIndex(JAVA_INT, rank);
                MemorySegment.copy(buf, offset + at, in, PolledCalls.layout(words), at * 8L, blockCounts[rank]);
                check("MPI_Iallgatherv", words
                    ? (int) MpiCalls.IallgathervWords.H.invokeExact(abi.inPlace(), 0, in, counts, displs, poller.request)
                    : (int) MpiCalls.Iallgatherv.H.invokeExact(abi.inPlace(), 0, in, counts, displs, poller.request));
                check("MPI_Iallgatherv", poller.await());
                MemorySegment.copy(in, PolledCalls.layout(words), 0, buf, offset, length);
                return;
            }
            poller.gate();
            MemorySegment v = PolledCalls.slice(buf, offset, length);
            check("MPI_Allgatherv", words
                ? (int) MpiCalls.AllgathervWords.H.invokeExact(abi.inPlace(), 0, v, counts, displs)
                : (int) MpiCalls.Allgatherv.H.invokeExact(abi.inPlace(), 0, v, counts, displs));
        } catch (BackendException e) {
            throw e;
        } catch (Throwable t) {
            throw new BackendException("MPI_Allgatherv failed: " + t);
        }
    }

    /**
     * Writes the counts and displacements for MPI, after checking them against the group and the
     * buffer; returns the vector's length.
     */
    private int blocks(Object buf, int offset, int[] blockCounts) {
        long size = counts.byteSize() / Integer.BYTES;
        if (blockCounts.length != size) {
            throw new IllegalArgumentException(blockCounts.length + " block counts for " + size + " ranks");
        }
        long total = 0;
        for (int r = 0; r < size; r++) {
            if (blockCounts[r] < 0) {
                throw new IllegalArgumentException("block count " + blockCounts[r] + " of rank " + r + " is negative");
            }
            counts.setAtIndex(JAVA_INT, r, blockCounts[r]);
            displs.setAtIndex(JAVA_INT, r, (int) Math.min(total, Integer.MAX_VALUE));
            total += blockCounts[r];
        }
        int bufLength = buf instanceof long[] w ? w.length : ((double[]) buf).length;
        if (offset < 0 || total > bufLength - (long) offset) {
            throw new IndexOutOfBoundsException("blocks of " + total + " from " + offset + " do not fit a buffer of "
                + bufLength);
        }
        return (int) total;
    }

    private static void check(String name, int rc) {
        MpiCommunicator.check(name, rc);
    }
}
