package org.paratrain.cli;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.RunSpec;
import picocli.CommandLine.Option;

/**
 * How {@code train}'s ranks add up their gradients and share the blocks: the exchange (its
 * algorithm, its sum, a sharded optimizer) and the rebalancing of the blocks, mapped here to
 * their specs with the checks of how they combine.
 */
final class ExchangeOptions {
    @Option(names = "--rebalance", defaultValue = "0", paramLabel = "STEPS|auto",
        description = "Every STEPS steps the ranks compare how fast each computed its blocks and move the block "
            + "boundaries so that a slower rank (a slower node or CPU) gets fewer; 0 (default) keeps an even share; "
            + "auto: windows of about 0.2 s of steps. The results stay the same bits; not with --allreduce shared, "
            + "which balances by itself, nor with --sum float.")
    String rebalanceText;

    @Option(names = "--allreduce", defaultValue = "master-worker",
        description = "How gradients are combined: master-worker (the paper's: gather to rank 0, which updates and "
            + "sends the weights back; default), shared (local backend: ranks take a step's blocks as they are ready, "
            + "so none waits for one off its core), star, tree, recursive-doubling, ring, rabenseifner, native "
            + "(MPI's own, with --backend mpi) or auto (the fastest by the cost model; with --backend mpi, the fastest measured by the "
            + "ranks on the job's links).")
    String allreduce;

    @Option(names = "--sum",
        description = "How the ranks' gradients are added up: fixed (default with an allreduce: fixed-point words, "
            + "the same bits at any node count at the traffic of one vector; fixed:1 or fixed:2 words a value, or fixed:half: two values a word, half the bytes, an error near float32's), blocks "
            + "(every block's partial kept apart, summed in block order; master-worker's default) or float "
            + "(a plain double sum of the ranks' vectors, not reproducible across node counts).")
    String sum;

    @Option(names = "--shard-optimizer",
        description = "Shard the optimizer over the ranks (as ZeRO stage 1): reduce-scatter the gradient, each rank "
            + "updates its slice of the parameters with its slice of the optimizer state, allgather the parameters. "
            + "Same bits as unsharded, checkpoints included; needs --allreduce ring (the ring's halves), rabenseifner "
            + "(recursive halving and doubling) or native (MPI's own) and a one-vector --sum.")
    boolean shardOptimizer;

    @Option(names = "--bucket-size", defaultValue = "auto", paramLabel = "PARAMS|auto",
        description = "Networks (MLP, float32 CNN) with an allreduce and a fixed sum send the gradient in buckets of "
            + "at least PARAMS parameters (k and M suffixes: 2^10, 2^20) while the backward pass goes on, the output "
            + "layer's first; 0 sends it whole after backward. auto (default): 64k where a process has a core "
            + "beside its ranks' for the exchange, else 0 (it measured slower where every core computes). The "
            + "results are the same bits at any bucket size.")
    String bucketText;

    /** {@return {@code --bucket-size} parsed (auto: {@link RunSpec#BUCKET_AUTO})} */
    int bucketSize() {
        String s = bucketText.strip();
        if (s.equals("auto")) {
            return RunSpec.BUCKET_AUTO;
        }
        long unit = s.endsWith("k") ? 1L << 10 : s.endsWith("M") ? 1L << 20 : 1;
        String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
        try {
            long n = Long.parseLong(digits) * unit;
            if (n >= 0 && n <= Integer.MAX_VALUE) {
                return (int) n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("--bucket-size must be a number of parameters (0 for no overlap, k and M "
            + "suffixes allowed) or auto, got '" + bucketText + "'");
    }

    /** {@return {@code --rebalance} parsed (auto: {@link RunSpec#REBALANCE_AUTO})} */
    int rebalance() {
        return RunSpec.parseRebalance(rebalanceText);
    }

    /**
     * {@return the exchange these options describe, sharded if asked}; a combination that cannot
     * run is refused here, naming both options
     * @param rebalance {@link #rebalance()}, as the run's spec holds it
     */
    ExchangeSpec spec(int rebalance) {
        ExchangeSpec exchange = ExchangeSpec.parse(allreduce, sum == null ? null : ExchangeSpec.Sum.parse(sum));
        if (shardOptimizer && exchange.scheme() != ExchangeSpec.Scheme.ALLREDUCE) {
            throw new IllegalArgumentException("--shard-optimizer needs --allreduce ring, rabenseifner or native (an "
                + "allreduce that is a reduce-scatter and an allgather), got --allreduce " + allreduce);
        }
        if (rebalance != 0 && exchange.scheme() == ExchangeSpec.Scheme.SHARED) {
            throw new IllegalArgumentException("--rebalance does not apply to --allreduce shared, which hands out "
                + "blocks as ranks are ready; give one or the other");
        }
        if (rebalance != 0 && exchange.sum() == ExchangeSpec.Sum.FLOAT) {
            throw new IllegalArgumentException("--rebalance needs a sum whose bits do not depend on which rank adds "
                + "which blocks (--sum blocks or fixed), got --sum float");
        }
        return shardOptimizer ? exchange.sharded() : exchange;
    }
}
