package org.paratrain.collective.sum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * The whole protocol on ranks, as a trainer will run it: each rank owns a contiguous share of
 * the step's blocks (a loss and a gradient each), observes them, agrees the grids, deposits,
 * reduces the words with an allreduce algorithm and converts back. Every algorithm at every
 * rank count gives the bits of one rank.
 */
class FixedSumAllreduceTest {
    static final int BLOCKS = 40;
    static final int PARAMS = 50;
    static final int[] RANKS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33};

    /** Block b's partials: {@code [loss, gradient...]}, magnitudes spread over 30 binades. */
    static double[] block(int b) {
        SplittableRandom rnd = new SplittableRandom(1000 + b);
        double[] v = new double[1 + PARAMS];
        v[0] = 1e4 * rnd.nextDouble();
        for (int j = 1; j <= PARAMS; j++) {
            v[j] = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(-20, 10));
        }
        return v;
    }

    /** One rank's part of the step; returns the converted sums. */
    static double[] step(Communicator comm, FixedFormat format, Allreduce algorithm, int nanBlock) {
        int p = comm.size();
        int first = BLOCKS * comm.rank() / p;
        int end = BLOCKS * (comm.rank() + 1) / p;
        List<double[]> mine = new ArrayList<>();
        for (int b = first; b < end; b++) {
            double[] v = block(b);
            if (b == nanBlock) {
                v[3] = Double.NaN;
            }
            mine.add(v);
        }
        FixedSum sum = new FixedSum(format, 1, PARAMS);
        sum.begin(BLOCKS);
        for (double[] v : mine) {
            sum.observe(0, v, 0, v.length);
        }
        sum.agree(comm, algorithm);
        for (double[] v : mine) {
            sum.deposit(0, v[0]);
            sum.deposit(1, v, 1, PARAMS);
            sum.endBlock();
        }
        sum.reduce(comm, algorithm);
        assertEquals(BLOCKS, sum.blocksDeposited());
        double[] out = new double[1 + PARAMS];
        sum.get(0, out, 0, out.length);
        return out;
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (FixedFormat f : FixedFormat.values()) {
            for (String name : Allreduces.portableNames()) {
                out.add(Arguments.of(f, name));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void everyRankCountGivesTheBitsOfOneRank(FixedFormat format, String name) {
        double[] one = LocalCluster.run(1, comm -> step(comm, format, Allreduces.create("star"), -1)).get(0);
        for (int p : RANKS) {
            List<double[]> results = LocalCluster.run(p, comm -> step(comm, format, Allreduces.create(name), -1));
            for (int r = 0; r < p; r++) {
                assertArrayEquals(one, results.get(r), 0.0, name + " at p=" + p + ", rank " + r);
            }
        }
        double plain = 0;
        for (int b = 0; b < BLOCKS; b++) {
            plain += block(b)[0];
        }
        double relative = format == FixedFormat.HALF_WORD ? 0x1p-21 : 1e-9;    // 30 - 5 bits a lane at 24 blocks, less up to 3 (quanta)
        assertEquals(plain, one[0], relative * plain, "the loss is the sum of the block losses");
    }

    /** A NaN on one rank stops every rank at the agreement, with the same error. */
    @ParameterizedTest
    @EnumSource(FixedFormat.class)
    void aNanOnOneRankStopsEveryRank(FixedFormat format) {
        java.util.concurrent.atomic.AtomicInteger told = new java.util.concurrent.atomic.AtomicInteger();
        RankFailedException e = assertThrows(RankFailedException.class, () -> LocalCluster.run(4, comm -> {
            try {
                return step(comm, format, Allreduces.create("ring"), 27);
            } catch (NonFiniteValueException nan) {
                told.incrementAndGet();
                throw nan;
            }
        }));
        assertTrue(e.getCause() instanceof NonFiniteValueException, String.valueOf(e.getCause()));
        assertTrue(told.get() >= 1, "at least the first rank to fail said why");
    }
}
