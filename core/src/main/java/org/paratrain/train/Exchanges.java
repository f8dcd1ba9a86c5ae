package org.paratrain.train;

import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.Communicator;
import org.paratrain.train.spec.ExchangeSpec;

/** The gradient exchange a run's configuration names, one per rank. */
final class Exchanges {
    private Exchanges() { }

    /**
     * {@return the exchange {@code e} names ({@code auto} resolved by the caller beforehand)}
     * @param shared makes the shared-memory exchange, which computes blocks through the trainer
     */
    static GradientExchange of(ExchangeSpec e, Communicator comm, BlockRanges ranges, int params,
                               java.util.function.Supplier<SharedExchange> shared) {
        return switch (e.scheme()) {
            // Rank 0 gets every block's partials and sums them (fixed-point by default: the grid
            // needs no agreement when one rank holds every block). Ranks that share a process
            // gather in shared memory; between processes the table goes to the first and back
            // (star): the same rows, the same sum. A float sum goes to rank 0 as star does (rank 0
            // adds the ranks' sums).
            case MASTER_WORKER -> e.sum() == ExchangeSpec.Sum.FLOAT
                ? new SumExchange(comm, ranges, params, masterWorker(comm), e.sum())
                : comm.processGroup().isPresent() ? new AllreduceExchange(comm, ranges, params, masterWorker(comm), e.sum())
                : new MasterWorkerExchange(comm, ranges, params, e.sum());
            case ALLREDUCE -> e.sum() == ExchangeSpec.Sum.BLOCKS
                ? new AllreduceExchange(comm, ranges, params, Allreduces.create(e.algorithm(), comm), e.sum())
                : new SumExchange(comm, ranges, params, Allreduces.create(e.algorithm(), comm), e.sum());
            case SHARDED -> new ShardedExchange(comm, ranges, params, e.algorithm(), e.sum());
            case SHARED -> shared.get();
            case AUTO -> throw new IllegalStateException("the exchange is still auto: resolve it before training");
        };
    }

    /** Star (gather to rank 0, which adds, and back), recorded under the scheme's name. */
    private static Allreduce masterWorker(Communicator comm) {
        return new Labelled(Allreduces.create("star", comm), ExchangeSpec.MASTER_WORKER.label());
    }

    /** An algorithm recorded under another name. */
    private record Labelled(Allreduce inner, String name) implements Allreduce {
        @Override
        public <A> void allreduce(Communicator c, A buf, int offset, int length, Reduction<A> op) {
            inner.allreduce(c, buf, offset, length, op);
        }

        @Override
        public double cost(int p, long n, Machine m) {
            return inner.cost(p, n, m);
        }
    }
}
