package org.paratrain.train;

import java.util.Arrays;
import org.paratrain.collective.Allgather;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Chunks;
import org.paratrain.collective.ReduceScatter;
import org.paratrain.collective.Reduction;
import org.paratrain.collective.sum.NonFiniteValueException;
import org.paratrain.comm.Communicator;
import org.paratrain.optim.Optimizer;
import org.paratrain.optim.OptimizerState;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/**
 * A sharded optimizer, as ZeRO stage 1: the vector (loss, then gradient) is reduce-scattered,
 * each rank converts and updates only its own chunk of the parameters with only its own
 * slice of the optimizer state, and the parameters (with the loss in front) are allgathered,
 * by the halves of the allreduce named ({@link AllreduceHalves}: the ring's, recursive halving
 * and doubling for {@code rabenseifner}, or MPI's own for {@code native}).
 * Optimizer memory per rank is divided by the node count; the conversion of a fixed-point sum
 * is done on one chunk, not on the whole vector; the words travel once, the parameters back
 * as doubles.
 *
 * <p>A checkpoint holds the whole state: {@link #wholeState} gathers the slices (every rank
 * calls it), {@link #ownState} cuts a whole state, saved at any node count, to this rank's
 * slice.
 *
 * <p>Same bits as unsharded: the reduced words of each value are the same whichever rank
 * holds them, and the update of each parameter is the same arithmetic on every rank
 * ({@link Optimizer#step(double[], double[], int, int)}).
 */
final class ShardedExchange extends OwnRowsExchange {
    /** Float sum: the rank's own blocks added; then the reduced chunk. */
    private final double[] total;
    /** The loss, then the parameters: this rank's chunk updated, then every chunk gathered. */
    private final double[] gathered;
    /** The reduced loss and gradient of this rank's chunk, at their vector indices. */
    private final double[] reduced;
    private final Chunks wordChunks;
    private final Chunks valueChunks;
    private final int from;
    private final int to;
    private final String algorithm;
    private final Allreduce agreement;
    private final ReduceScatter reduceScatter;
    private final Allgather allgather;

    ShardedExchange(Communicator comm, BlockRanges ranges, int params, String algorithm, Sum sum) {
        super(comm, ranges, params, Allreduces.create(algorithm), sum);
        AllreduceHalves halves = AllreduceHalves.create(algorithm);
        this.algorithm = algorithm;
        this.agreement = Allreduces.create(algorithm);
        this.reduceScatter = halves.reduceScatter();
        this.allgather = halves.allgather();
        int w = params + 1;
        this.total = sum == Sum.FLOAT ? new double[w] : null;
        this.gathered = new double[w];
        this.reduced = new double[w];
        int p = comm.size();
        this.valueChunks = new Chunks(w, p);
        this.wordChunks = fixed == null ? valueChunks : new Chunks(w, format(sum).words(), p, fixed.words().length);
        int mine = comm.rank();
        this.from = valueChunks.start(mine);
        this.to = valueChunks.start(mine + 1);
    }

    @Override
    public double step(double[] weights, Optimizer optimizer, double scale) {
        try {
            if (sum == Sum.FLOAT) {
                reduceFloat();
            } else {
                reduceFixed();
            }
        } catch (NonFiniteValueException e) {
            return Double.NaN;   // seen by every rank at once: the divergence monitor ends the run
        }
        int first = Math.max(from, 1);
        for (int v = first; v < to; v++) {
            reduced[v] *= scale;
            gathered[v] = weights[v - 1];
        }
        // The slice [first, to) of the vector is parameters [first - 1, to - 1).
        if (first < to) {
            optimizer.step(gathered, reduced, first, to);
        } else {
            optimizer.step(gathered, reduced, 0, 0);   // keeps the schedule's count in step with the others
        }
        if (from == 0) {
            gathered[0] = reduced[0] * scale;
        }
        allgather.allgather(comm, gathered, 0, valueChunks, Reduction.DOUBLE_SUM);
        System.arraycopy(gathered, 1, weights, 0, params);
        return gathered[0];
    }

    private void reduceFixed() {
        deposit(agreement);
        reduceScatter.reduceScatter(comm, fixed.words(), 0, wordChunks, Reduction.WORD_SUM);
        fixed.get(from, reduced, from, to - from);
    }

    private void reduceFloat() {
        addRows(total);
        reduceScatter.reduceScatter(comm, total, 0, valueChunks, Reduction.DOUBLE_SUM);
        System.arraycopy(total, from, reduced, from, to - from);
    }

    @Override
    public boolean gathersState() {
        return true;
    }

    /** Gathers every rank's slice of each state vector into whole vectors, on every rank. */
    @Override
    public OptimizerState wholeState(Optimizer optimizer) {
        OptimizerState mine = optimizer.state();
        if (mine.steps() == 0) {
            return mine;                       // nothing allocated anywhere yet
        }
        double[][] slices = mine.vectors();
        double[][] whole = new double[slices.length][];
        int first = Math.max(from, 1);
        for (int i = 0; i < slices.length; i++) {
            double[] buf = new double[params + 1];     // the loss's slot stays 0
            System.arraycopy(slices[i], 0, buf, first, slices[i].length);
            allgather.allgather(comm, buf, 0, valueChunks, Reduction.DOUBLE_SUM);
            whole[i] = Arrays.copyOfRange(buf, 1, params + 1);
        }
        return new OptimizerState(mine.kind(), mine.steps(), mine.scalars(), whole);
    }

    /** This rank's slice of each whole state vector (empty vectors stay empty: nothing to cut). */
    @Override
    public OptimizerState ownState(OptimizerState whole) {
        double[][] vectors = whole.vectors();
        int first = Math.max(from, 1);
        for (int i = 0; i < vectors.length; i++) {
            if (vectors[i].length == params) {
                vectors[i] = Arrays.copyOfRange(vectors[i], first - 1, Math.max(first, to) - 1);
            }
        }
        return new OptimizerState(whole.kind(), whole.steps(), whole.scalars(), vectors);
    }

    @Override
    public String name() {
        return algorithm;
    }
}
