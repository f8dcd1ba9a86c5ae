package org.paratrain.train;

import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.comm.Communicator;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.SpecException;
import org.paratrain.train.spec.TrainSpec;

/**
 * The checks of a run's settings that need one rank's view (its step's blocks, the exchange's
 * scheme, the samples it holds), made as a {@link RankTrainer} is built. Their own class
 * because they only refuse, and read nothing the loop keeps.
 */
final class RankChecks {
    private RankChecks() {
    }

    /** Refuses {@code fixed:half} where a step has more blocks than a 16-bit lane counts. */
    static void halfWordBlocks(TrainSpec spec, Batches batches) {
        int stepBlocks = batches.sharding().blocks();
        if (spec.exchange().sum() == ExchangeSpec.Sum.FIXED_HALF && stepBlocks > FixedFormat.HALF_WORD_MAX_BLOCKS) {
            throw new SpecException("sum", "fixed:half takes at most " + FixedFormat.HALF_WORD_MAX_BLOCKS
                + " blocks a step (16 bits a lane), this run has " + stepBlocks + ": use larger blocks (--block-size) "
                + "or fixed:1");
        }
    }

    /**
     * Refuses rebalancing with the shared exchange ({@code any}), on a rank holding only its
     * shard of the {@code total} samples, and with a float sum.
     */
    static void rebalancing(TrainSpec spec, Communicator comm, boolean any, int total, Dataset data) {
        if (spec.run().rebalancing() && (any || total != data.samples())) {
            // In domain terms: the command line and the Trainer API refuse these first, in their own words.
            throw new IllegalArgumentException(any
                ? "rebalancing does not apply to the shared exchange, which hands out blocks as ranks are ready"
                : "rebalancing needs every sample on every rank; a rank holding only its shard cannot take others' blocks");
        }
        if (spec.run().rebalancing() && comm.size() > 1 && spec.exchange().sum() == ExchangeSpec.Sum.FLOAT) {
            // A float sum adds each rank's rows first: its bits would follow the measured timings.
            throw new IllegalArgumentException("rebalancing needs a sum whose bits do not depend on which rank adds "
                + "which blocks (blocks or fixed), got float");
        }
    }

    /** Refuses a rank whose samples, from {@code origin}, do not hold its blocks of {@code sharding}. */
    static void ownBlocks(Communicator comm, BlockSharding sharding, int origin, Dataset data) {
        int first = sharding.blockStart(sharding.firstBlock(comm.rank(), comm.size()));
        int end = sharding.blockStart(sharding.endBlock(comm.rank(), comm.size()));
        if (first < origin || end > origin + data.samples()) {
            throw new IllegalArgumentException("rank " + comm.rank() + " holds samples [" + origin + ", "
                + (origin + data.samples()) + ") but its blocks need [" + first + ", " + end + ")");
        }
    }
}
