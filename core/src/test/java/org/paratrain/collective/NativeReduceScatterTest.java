package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * MPI's own reduce-scatter and allgather, as paratrain calls them: through the capability of
 * the communicator, with the chunks' sizes as MPI's counts; refused in one line on the local
 * backend, and for a maximum. MPI itself runs them in {@code BlockCollectivesMpiTest}.
 */
class NativeReduceScatterTest {

    @Test
    void theLocalBackendIsRefusedInOneLine() {
        refusedInOneLine(() -> LocalCluster.run(2, comm -> {
            new NativeReduceScatter().reduceScatter(comm, new double[3], 0, new Chunks(3, 2), Reduction.DOUBLE_SUM);
            return null;
        }), "--allreduce native");
        refusedInOneLine(() -> LocalCluster.run(2, comm -> {
            new NativeAllgather().allgather(comm, new long[3], 0, new Chunks(3, 2), Reduction.WORD_SUM);
            return null;
        }), "--allreduce native");
    }

    @Test
    void aMaximumIsRefused() {
        refusedInOneLine(() -> LocalCluster.run(2, comm -> {
            new NativeReduceScatter().reduceScatter(new Offering(comm), new long[3], 0, new Chunks(3, 2),
                Reduction.WORD_MAX);
            return null;
        }), "sums only");
    }

    private static void refusedInOneLine(Executable run, String needle) {
        RankFailedException e = assertThrows(RankFailedException.class, run);
        IllegalArgumentException cause = assertThrows(IllegalArgumentException.class, () -> {
            throw e.getCause();
        });
        assertTrue(cause.getMessage().contains(needle), cause.getMessage());
        assertFalse(cause.getMessage().contains("\n"), cause.getMessage());
    }

    /** The counts MPI is given are the chunks' sizes, so rank r gets chunk r (units of 2 and a trailing word here). */
    @Test
    void mpiIsGivenTheChunksSizesAsItsCounts() {
        Chunks chunks = new Chunks(7, 2, 3, 15);
        List<long[]> out = LocalCluster.run(3, comm -> {
            Offering mpi = new Offering(comm);
            long[] v = new long[16];
            for (int i = 0; i < 15; i++) {
                v[1 + i] = 100L * comm.rank() + i;
            }
            new NativeReduceScatter().reduceScatter(mpi, v, 1, chunks, Reduction.WORD_SUM);
            assertArrayEquals(new int[] {4, 4, 7}, mpi.seen);
            long[] mine = new long[16];
            System.arraycopy(v, 1 + chunks.start(comm.rank()), mine, 1 + chunks.start(comm.rank()),
                chunks.size(comm.rank()));
            new NativeAllgather().allgather(mpi, mine, 1, chunks, Reduction.WORD_SUM);
            return mine;
        });
        for (long[] v : out) {
            for (int i = 0; i < 15; i++) {
                assertEquals(300 + 3L * i, v[1 + i], "word " + i);
            }
            assertEquals(0, v[0]);
        }
    }

    @Test
    void itsCostIsTheBetterOfTheAlgorithmsMpiChoosesBetween() {
        Allreduce.Machine m = new Allreduce.Machine(2e-6, 1e-10, 3e-11);
        for (int p : new int[] {2, 3, 8, 17}) {
            for (long n : new long[] {1, 1_000_000}) {
                assertEquals(Math.min(new RecursiveHalvingReduceScatter().cost(p, n, m), new RingReduceScatter()
                    .cost(p, n, m)), new NativeReduceScatter().cost(p, n, m));
                assertEquals(Math.min(new RecursiveDoublingAllgather().cost(p, n, m), new RingAllgather()
                    .cost(p, n, m)), new NativeAllgather().cost(p, n, m));
            }
        }
    }

    /**
     * A local communicator whose "native" reduce-scatter is an allreduce (the own block is then
     * reduced, as MPI's contract asks) and whose allgather sends each block to every rank,
     * remembering the counts it was given.
     */
    private static final class Offering implements Communicator, NativeCollectives {
        private final Communicator inner;
        int[] seen;

        Offering(Communicator inner) {
            this.inner = inner;
        }

        @Override
        public Optional<NativeCollectives> nativeCollectives() {
            return Optional.of(this);
        }

        @Override
        public void reduceScatterSum(long[] buf, int offset, int[] counts) {
            seen = counts.clone();
            new RingAllreduce().allreduce(inner, buf, offset, total(counts), Reduction.WORD_SUM);
        }

        @Override
        public void allgather(long[] buf, int offset, int[] counts) {
            int at = offset;
            for (int r = 0; r < counts.length; r++) {
                for (int q = 0; q < counts.length; q++) {
                    if (r == inner.rank() && q != r) {
                        inner.send(buf, at, counts[r], q, 7);
                    } else if (q == inner.rank() && q != r) {
                        inner.recv(buf, at, counts[r], r, 7);
                    }
                }
                at += counts[r];
            }
        }

        private static int total(int[] counts) {
            int n = 0;
            for (int c : counts) {
                n += c;
            }
            return n;
        }

        @Override
        public void reduceScatterSum(double[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void allgather(double[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void allreduceSum(double[] buf, int offset, int length) {
            throw new AssertionError("not used");
        }

        @Override
        public void allreduceMax(double[] buf, int offset, int length) {
            throw new AssertionError("not used");
        }

        @Override
        public void broadcast(double[] buf, int offset, int length, int root) {
            throw new AssertionError("not used");
        }

        @Override
        public void allreduceSum(long[] buf, int offset, int length) {
            throw new AssertionError("not used");
        }

        @Override
        public void allreduceMax(long[] buf, int offset, int length) {
            throw new AssertionError("not used");
        }

        @Override
        public int rank() {
            return inner.rank();
        }

        @Override
        public int size() {
            return inner.size();
        }

        @Override
        public void send(double[] buf, int offset, int length, int dest, int tag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public int recv(double[] buf, int offset, int length, int source, int tag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public void send(long[] buf, int offset, int length, int dest, int tag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public int recv(long[] buf, int offset, int length, int source, int tag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            throw new AssertionError("native: no point-to-point of its own");
        }

        @Override
        public void barrier() {
            inner.barrier();
        }

        @Override
        public double wtime() {
            return inner.wtime();
        }

        @Override
        public String backend() {
            return "test";
        }
    }
}
