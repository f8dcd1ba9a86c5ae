package org.paratrain.train.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.train.spec.ExchangeSpec;

/** {@code --allreduce auto} measured on the ranks: every rank the same choice, the fastest of what it timed. */
class ExchangeProbeTest {

    @ParameterizedTest(name = "{0} ranks, {1}")
    @CsvSource({"2, fixed:1", "3, fixed:half", "4, float", "2, blocks"})
    void everyRankTakesTheSameFastestCandidate(int p, String sumName) {
        ExchangeSpec.Sum sum = ExchangeSpec.Sum.parse(sumName);
        int params = 20_000;
        int blocks = 8;
        List<ExchangeProbe.Result> results = LocalCluster.run(p, comm -> ExchangeProbe.run(comm,
            ExchangeProbe.candidates(comm, sum), params, blocks));
        ExchangeProbe.Result first = results.get(0);
        for (ExchangeProbe.Result r : results) {
            assertEquals(first, r, "rank 0 and another rank chose from different figures");
        }
        // The local backend has no MPI: master-worker and the portable allreduces, all with the sum asked.
        assertEquals(1 + Allreduces.portableNames().size(), first.timings().size());
        double least = Double.POSITIVE_INFINITY;
        for (ExchangeProbe.Timing t : first.timings()) {
            assertEquals(sum, t.exchange().sum());
            assertEquals(t.exchange().scheme() == ExchangeSpec.Scheme.ALLREDUCE, t.measured(), t.toString());
            assertTrue(t.seconds() > 0 && Double.isFinite(t.seconds()), t.toString());
            least = Math.min(least, t.seconds());
        }
        double chosen = first.timings().stream().filter(t -> t.exchange().equals(first.chosen())).findFirst()
            .orElseThrow().seconds();
        assertEquals(least, chosen, 0.0);
        // The words are the sum's: one a value, half a value, or the block table's B rows.
        long n = params + 1L;
        long words = switch (sum) {
            case FIXED_1 -> n + 3;
            case FIXED_HALF -> (n + 1) / 2 + 3;
            case FLOAT -> n;
            case BLOCKS -> n * blocks;
            case FIXED_2 -> 2 * n + 3;
        };
        assertEquals(words, first.words());
        assertEquals(p, first.processes());
        assertTrue(first.link().alpha() >= 0 && first.link().beta() >= 0, first.link().toString());
    }

    /** A longer message takes longer: the probe times the step's size, not a fixed one. */
    @Test
    void theTimesFollowTheStepsSize() {
        ExchangeSpec ring = ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1);
        double small = LocalCluster.run(2, comm -> ExchangeProbe.run(comm, List.of(ring), 100, 1)).get(0)
            .timings().get(0).seconds();
        double large = LocalCluster.run(2, comm -> ExchangeProbe.run(comm, List.of(ring), 4_000_000, 1)).get(0)
            .timings().get(0).seconds();
        // 32 MB through memory against 800 bytes: far more than any noise of a shared machine.
        assertTrue(large > 20 * small, small + " s for 101 values, " + large + " s for 4,000,001");
    }

    /**
     * The figure is the call's own time, not a wait for a late rank: rank 1 reaches every call
     * 10 ms after rank 0, so rank 0's calls hold that wait and rank 1's do not, as the rank that
     * reaches a step's exchange last waits for no one. The probe takes the least over the ranks
     * call by call (as the step's exchange is measured); the slowest rank's best call, as it took
     * before, was rank 0's, 10 ms and more. The same ring on two ranks without the delay is the
     * reference.
     */
    @Test
    void aLateRanksWaitIsNotPartOfTheFigure() {
        ExchangeSpec ring = ExchangeSpec.parse("ring", ExchangeSpec.Sum.FIXED_1);
        int params = 20_000;
        double prompt = LocalCluster.run(2, comm -> ExchangeProbe.run(comm, List.of(ring), params, 1)).get(0)
            .timings().get(0).seconds();
        double late = LocalCluster.run(2, comm -> ExchangeProbe.run(comm.rank() == 1 ? new LateToCalls(comm) : comm,
            List.of(ring), params, 1)).get(0).timings().get(0).seconds();
        assertTrue(late < 5e-3 + 3 * prompt, "with rank 1 10 ms late to every call: " + late
            + " s a call, against " + prompt + " s with no rank late");
    }

    /**
     * A call lasts until every rank holds the sum: star's root returns as soon as it has sent
     * the sum, and its leaf, which here takes 10 ms more over every message it receives, holds
     * it only then. Timed from the call's start to its end on each rank, the least over the ranks
     * was the root's, well under a millisecond; a step pays the leaf's.
     */
    @Test
    void aCallLastsUntilEveryRankHoldsTheSum() {
        ExchangeSpec star = ExchangeSpec.parse("star", ExchangeSpec.Sum.FIXED_1);
        double seconds = LocalCluster.run(2, comm -> ExchangeProbe.run(comm.rank() == 1 ? new SlowToReceive(comm) : comm,
            List.of(star), 20_000, 1)).get(0).timings().get(0).seconds();
        assertTrue(seconds >= 8e-3, "the leaf holds the sum 10 ms after the root is done: " + seconds + " s a call");
    }

    /**
     * A rank that leaves a barrier 10 ms late when it sent nothing since the last one and that
     * one was on time: late to each call after the barrier that starts it, on time to the barrier
     * that closes it (and to a barrier timed alone, which starts and ends with one).
     */
    private static final class LateToCalls extends org.paratrain.comm.ForwardingCommunicator {
        private boolean sent = true;
        private boolean delayed;

        LateToCalls(org.paratrain.comm.Communicator inner) {
            super(inner);
        }

        @Override
        protected void sending() {
            sent = true;
        }

        @Override
        public void barrier() {
            inner.barrier();
            delayed = !sent && !delayed;
            sent = false;
            if (delayed) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            }
        }
    }

    /** A rank whose every receive ends 10 ms after its message arrived. */
    private static final class SlowToReceive extends org.paratrain.comm.ForwardingCommunicator {
        SlowToReceive(org.paratrain.comm.Communicator inner) {
            super(inner);
        }

        private static int late(int n) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            return n;
        }

        @Override
        public int recv(double[] buf, int offset, int length, int source, int tag) {
            return late(inner.recv(buf, offset, length, source, tag));
        }

        @Override
        public int recv(long[] buf, int offset, int length, int source, int tag) {
            return late(inner.recv(buf, offset, length, source, tag));
        }

        @Override
        public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            return late(super.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
                source, recvTag));
        }

        @Override
        public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                            long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
            return late(super.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
                source, recvTag));
        }
    }
}
