package org.paratrain.train;

import org.paratrain.comm.Communicator;
import org.paratrain.model.Model;
import org.paratrain.train.spec.RunSpec;

/**
 * Whether a run's exchange overlaps backward in buckets ({@code --bucket-size}): a choice every
 * rank must make alike, and for {@code auto} one that depends on the cores this process has.
 * Its own class because it is taken once, before the loop, and reads nothing of the loop's state.
 */
final class OverlapBuckets {
    private OverlapBuckets() {
    }

    /**
     * Turns on {@code exchange}'s buckets of {@code bucket} values (or the default for
     * {@link RunSpec#BUCKET_AUTO}) where every rank can overlap; 0 leaves them off.
     */
    static void choose(GradientExchange exchange, Communicator comm, Model model, int bucket) {
        // A step whose blocks are computed more than once (a slowed rank, for tests) tells the last time only.
        if (exchange instanceof SumExchange s && bucket != 0 && !model.sumsStatistics()) {
            // Every rank must make the same calls: each says whether it can (and, for auto, whether it
            // pays here), and buckets go only if all can.
            boolean can = comm.callsFromAnotherThread() && (bucket != RunSpec.BUCKET_AUTO || overlapPays(comm));
            double[] cannot = {can ? 0 : 1};
            Training.sumOverRanks(comm, cannot);
            if (cannot[0] == 0) {
                s.overlapBuckets(model.backwardRanges(), bucket == RunSpec.BUCKET_AUTO ? RunSpec.DEFAULT_BUCKET : bucket);
            }
        }
    }

    /**
     * {@code --bucket-size auto}: whether this process has a core beside its ranks' for the
     * exchange thread and the transport. Where every core computes (one rank a core, the local
     * backend's threads on this machine's cores, the emulated hosts of one core), the exchange
     * during backward took that time from the computation and measured slower than the exchange
     * after it: see docs/design.md.
     */
    private static boolean overlapPays(Communicator comm) {
        int here = comm.backend().equals("local") ? comm.size()
            : comm.processGroup().map(org.paratrain.comm.ProcessGroup::localSize).orElse(1);
        return comm.size() > 1 && Runtime.getRuntime().availableProcessors() > here;
    }
}
