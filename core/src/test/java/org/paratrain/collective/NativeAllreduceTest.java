package org.paratrain.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.NativeCollectives;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * The native allreduce asks its communicator for the capability instead of downcasting to
 * the MPI backend: any communicator that offers native collectives is used, one that offers
 * none is refused in one line that names the option.
 */
class NativeAllreduceTest {

    @Test
    void theLocalBackendOffersNoNativeCollectivesAndIsRefusedInOneLine() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(2, comm -> {
            assertTrue(comm.nativeCollectives().isEmpty());
            new NativeAllreduce().allreduce(comm, new double[3], 0, 3);
            return null;
        }));
        IllegalArgumentException cause = assertThrows(IllegalArgumentException.class, () -> {
            throw e.getCause();
        });
        assertTrue(cause.getMessage().contains("--allreduce native"), cause.getMessage());
        assertFalse(cause.getMessage().contains("\n"), cause.getMessage());
    }

    @Test
    void anyCommunicatorWithTheCapabilityIsUsed() {
        List<double[]> sums = LocalCluster.run(3, comm -> {
            double[] v = {comm.rank() + 1.0, 10.0 * comm.rank()};
            new NativeAllreduce().allreduce(new Offering(comm), v, 0, v.length);
            return v;
        });
        for (double[] v : sums) {
            assertArrayEquals(new double[] {6, 30}, v);
        }
    }

    /** A local communicator that does its "native" sum with the ring, to see that it is called. */
    private record Offering(Communicator inner) implements Communicator, NativeCollectives {
        @Override
        public Optional<NativeCollectives> nativeCollectives() {
            return Optional.of(this);
        }

        @Override
        public void allreduceSum(double[] buf, int offset, int length) {
            new RingAllreduce().allreduce(inner, buf, offset, length);
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
            new RingAllreduce().allreduce(inner, buf, offset, length, Reduction.WORD_SUM);
        }

        @Override
        public void allreduceMax(long[] buf, int offset, int length) {
            throw new AssertionError("not used");
        }

        @Override
        public void reduceScatterSum(double[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void reduceScatterSum(long[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void allgather(double[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void allgather(long[] buf, int offset, int[] counts) {
            throw new AssertionError("not used");
        }

        @Override
        public void send(long[] buf, int offset, int length, int dest, int tag) {
            throw new AssertionError("the native allreduce must not send by itself");
        }

        @Override
        public int recv(long[] buf, int offset, int length, int source, int tag) {
            throw new AssertionError("the native allreduce must not receive by itself");
        }

        @Override
        public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            throw new AssertionError("the native allreduce must not exchange by itself");
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
            throw new AssertionError("the native allreduce must not send by itself");
        }

        @Override
        public int recv(double[] buf, int offset, int length, int source, int tag) {
            throw new AssertionError("the native allreduce must not receive by itself");
        }

        @Override
        public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            throw new AssertionError("the native allreduce must not exchange by itself");
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

    @Test
    void itsCostIsTheBetterOfTheTwoAlgorithmsMpiChoosesBetween() {
        Allreduce.Machine m = new Allreduce.Machine(2e-6, 1e-10, 3e-11);
        for (long n : new long[] {1, 1_000_000}) {
            assertEquals(Math.min(new RecursiveDoublingAllreduce().cost(8, n, m), new RabenseifnerAllreduce()
                .cost(8, n, m)), new NativeAllreduce().cost(8, n, m));
        }
    }
}
