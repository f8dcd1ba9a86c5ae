package org.paratrain.comm.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.Communicator;

/**
 * The local backend's memory follows the pairs of ranks that talk, not p^2: a channel is made
 * on its first use. The old fabric made 4096^2 channels (about 34 GB) before any rank ran.
 */
class LocalFabricMemoryTest {
    private static final int P = 4096;

    /**
     * 4096 ranks run the barrier, a ring, recursive doubling's pairs and the paper's star; the
     * fabric then holds a channel for exactly each ordered pair that carried a message.
     */
    @Test
    void fourThousandRanksMakeAChannelPerPairThatTalksOnly() {
        LocalFabric fabric = new LocalFabric(P, Duration.ofSeconds(120));
        List<Double> sums = LocalCluster.run(fabric, 2, LocalFabricMemoryTest::talk);
        for (int r = 0; r < P; r++) {
            assertEquals(r + 1.0, sums.get(r), "rank " + r);    // the messages arrived
        }
        assertEquals(pairsThatTalk().size(), fabric.channels());
        // p (2 log2 p + 2), about 26 a rank, against the p^2 (4,096 a rank) of before.
        assertTrue(fabric.channels() <= P * (2 * 12 + 2), fabric.channels() + " channels");
    }

    /** A fabric that no rank has used holds no channel at all. */
    @Test
    void anUnusedFabricHoldsNoChannel() {
        assertEquals(0, new LocalFabric(P, Duration.ofSeconds(1)).channels());
    }

    /**
     * Both ends of a pair get the one channel, whichever looks first, and every other pair its
     * own, also across the growth of an inbox's table (past 16, 32, ... senders).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 16, 17, 100, 4096})
    void eachPairHasOneChannelWhoeverMakesIt(int p) {
        LocalFabric fabric = new LocalFabric(p, Duration.ofSeconds(1));
        Channel[] made = new Channel[p];
        for (int s = 0; s < p; s++) {
            made[s] = fabric.channel(s, 0);
        }
        for (int s = 0; s < p; s++) {
            assertSame(made[s], fabric.channel(s, 0), "from " + s);
            assertEquals(s, made[s].source);
        }
        assertEquals(p, fabric.channels());
    }

    /** Sends and receives of every pattern; returns a sum that shows every message came. */
    private static double talk(Communicator comm) {
        int r = comm.rank();
        int p = comm.size();
        double[] one = {r};
        double[] in = new double[1];
        comm.barrier();
        comm.sendRecv(one, 0, 1, (r + 1) % p, 1, in, 0, 1, (r - 1 + p) % p, 1);
        double sum = in[0] == (r - 1 + p) % p ? 1 : 0;
        for (int step = 1; step < p; step <<= 1) {
            comm.sendRecv(one, 0, 1, r ^ step, 2, in, 0, 1, r ^ step, 2);
            sum += in[0] == (r ^ step) ? 0 : Double.NaN;
        }
        if (r == 0) {
            for (int w = 1; w < p; w++) {
                comm.recv(in, 0, 1, w, 3);
                sum += in[0] == w ? 0 : Double.NaN;
            }
            for (int w = 1; w < p; w++) {
                comm.send(new double[] {w + 1.0}, 0, 1, w, 4);
            }
            return sum;
        }
        comm.send(one, 0, 1, 0, 3);
        comm.recv(in, 0, 1, 0, 4);
        return sum - 1 + in[0];
    }

    /** The ordered pairs (sender, receiver) of {@link #talk}. */
    private static Set<Long> pairsThatTalk() {
        Set<Long> pairs = new HashSet<>();
        for (int r = 0; r < P; r++) {
            for (int step = 1; step < P; step <<= 1) {
                pairs.add(pair(r, (r + step) % P));      // the dissemination barrier
                pairs.add(pair(r, r ^ step));            // recursive doubling's partners
            }
            pairs.add(pair(r, (r + 1) % P));             // the ring (also the barrier's first round)
            if (r != 0) {
                pairs.add(pair(r, 0));                   // the star: in to rank 0 ...
                pairs.add(pair(0, r));                   // ... and back out
            }
        }
        return pairs;
    }

    private static long pair(int from, int to) {
        return (long) from * P + to;
    }
}
