package org.paratrain.train;

import org.paratrain.comm.Communicator;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.model.Model;
import org.paratrain.train.spec.TrainSpec;

/**
 * Training for ranks that something else started and connected: tasks of a Spark barrier
 * stage joined by a {@link org.paratrain.comm.tcp.TcpCommunicator}, each holding only the rows
 * the scheduler gave it. Every rank calls {@link #train} with its own rows, which must be the
 * samples {@link #ownedRows} names for it in the one sample order of the whole data set; the
 * result is then the bits of {@link Training#local} on the whole data set in that order, at
 * any number of ranks.
 *
 * <p>A full-batch run trains each rank on its own rows alone. A mini-batch run draws every
 * batch from the whole data set, so the ranks first give each other their rows (a ring of
 * {@code sendRecv}, p - 1 steps, each row crossing each link once): every rank then holds
 * every sample, as it would under {@link Training#local}.
 */
public final class RankTraining {
    private RankTraining() { }

    /**
     * {@return the samples {@code [first, end)} rank {@code rank} of {@code ranks} must hold: its
     * whole blocks under the spec's block size}
     * @param spec  the run's spec (its block size, or the default)
     * @param total samples in the whole data set
     * @param rank  the rank
     * @param ranks the job's size
     */
    public static int[] ownedRows(TrainSpec spec, int total, int rank, int ranks) {
        BlockSharding s = sharding(spec, total);
        return new int[] {s.blockStart(s.firstBlock(rank, ranks)), s.blockStart(s.endBlock(rank, ranks))};
    }

    private static BlockSharding sharding(TrainSpec spec, int total) {
        return spec.run().blockSize() == 0 ? BlockSharding.byDefault(total) : new BlockSharding(total, spec.run().blockSize());
    }

    /**
     * Trains this rank on its rows; every rank of {@code comm} calls this with the same spec,
     * total and classes.
     *
     * @param comm    the job, one rank a caller; its size must be {@code spec.nodes()}
     * @param rows    this rank's samples, exactly those {@link #ownedRows} names, in order
     * @param total   samples in the whole data set
     * @param classes classes of a classifier over the whole data set (0 for a regression)
     * @param spec    model, optimizer, exchange and run
     * @param control a state to resume from, checkpoints (taken on rank 0), listener, deadline
     * @return rank 0's result, with the training accuracy over every rank's rows for a
     *         classifier; null on other ranks
     * @throws IllegalArgumentException if the rows are not this rank's, or the job's size is not the spec's
     */
    public static TrainingResult train(Communicator comm, Dataset rows, int total, int classes, TrainSpec spec,
                                       TrainingControl control) {
        if (comm.size() != spec.nodes()) {
            throw new IllegalArgumentException("the spec has " + spec.nodes() + " ranks but the job has " + comm.size());
        }
        int[] own = ownedRows(spec, total, comm.rank(), comm.size());
        if (rows.samples() != own[1] - own[0]) {
            throw new IllegalArgumentException("rank " + comm.rank() + " must hold samples [" + own[0] + ", " + own[1]
                + ") of " + total + ", got " + rows.samples() + " rows");
        }
        boolean fullBatch = spec.run().batchSize() == 0;
        Dataset data = fullBatch ? rows : allRows(comm, rows, total, spec);
        Model model = spec.model().newModel(data.features(), classes);
        RankTrainer trainer = fullBatch
            ? new RankTrainer(comm, data, own[0], total, model, spec.optimizer().newOptimizer(spec.epochs()), spec)
            : new RankTrainer(comm, data, model, spec.optimizer().newOptimizer(spec.totalSteps(data)), spec);
        TrainingResult r = trainer.train(control);
        if (!(model instanceof org.paratrain.model.Classifier c) || !c.classifies()) {
            return r;
        }
        // Only rank 0 is sure to hold the final weights (master-worker): send them to all, count the
        // right answers on each rank's own rows, add the counts (whole numbers: no rounding).
        double[] w = r != null ? r.params() : new double[model.parameterCount()];
        Training.fromRankZero(comm, w);
        Dataset mine = fullBatch ? rows : slice(data, own[0], own[1]);
        double[] right = {mine.samples() > 0 ? Math.rint(c.accuracy(mine, w) * mine.samples()) : 0};
        Training.sumOverRanks(comm, right);
        return r == null ? null : r.withAccuracy(right[0] / total);
    }

    /**
     * Fits a standardiser on every rank's rows together, to the bits of
     * {@link Standardizer#fit} on all of them in one place: Welford's pass goes from rank to rank
     * in sample order (rank 0's rows first, each rank holding the run of samples
     * {@link #ownedRows} gives it), and the last rank sends the result to all. One pass over the
     * data, taken in turn: it costs what reading the data once costs, not a step's worth.
     *
     * @param comm the job, every rank calling
     * @param rows this rank's rows, the samples that follow the previous rank's
     * @return the standardiser, the same on every rank
     */
    public static Standardizer standardizer(Communicator comm, Dataset rows) {
        int me = comm.rank();
        int p = comm.size();
        int f = rows.features();
        Standardizer.Running pass;
        if (me == 0) {
            pass = new Standardizer.Running(f);
        } else {
            double[] state = new double[1 + 2 * f];
            comm.recv(state, 0, state.length, me - 1, STANDARDIZE_TAG);
            pass = Standardizer.Running.of(state);
        }
        pass.add(rows);
        double[] both = new double[2 * f];
        if (me < p - 1) {
            double[] state = pass.state();
            comm.send(state, 0, state.length, me + 1, STANDARDIZE_TAG);
            comm.recv(both, 0, both.length, p - 1, STANDARDIZE_TAG + 1);
            return new Standardizer(java.util.Arrays.copyOfRange(both, 0, f), java.util.Arrays.copyOfRange(both, f, 2 * f));
        }
        Standardizer s = pass.result();
        System.arraycopy(s.mean(), 0, both, 0, f);
        System.arraycopy(s.scale(), 0, both, f, f);
        for (int r = 0; r < p - 1; r++) {
            comm.send(both, 0, both.length, r, STANDARDIZE_TAG + 1);
        }
        return s;
    }

    /** Tags of {@link #standardizer}'s messages (the pass's state, then the result), clear of training's. */
    private static final int STANDARDIZE_TAG = 30001;

    /** Every rank's rows to every rank, in sample order: a ring allgather of unequal parts. */
    static Dataset allRows(Communicator comm, Dataset rows, int total, TrainSpec spec) {
        int p = comm.size();
        int f = rows.features();
        int[] start = new int[p + 1];
        for (int r = 0; r < p; r++) {
            start[r] = ownedRows(spec, total, r, p)[0];
        }
        start[p] = total;
        double[] x = new double[Math.multiplyExact(total, f)];
        double[] y = new double[total];
        int me = comm.rank();
        System.arraycopy(rows.x(), 0, x, start[me] * f, rows.samples() * f);
        System.arraycopy(rows.y(), 0, y, start[me], rows.samples());
        double[] w = rows.weighted() ? new double[total] : null;     // every rank's rows weighted, or none
        if (w != null) {
            System.arraycopy(rows.weights(), 0, w, start[me], rows.samples());
        }
        int next = (me + 1) % p;
        int prev = (me + p - 1) % p;
        for (int step = 0; step < p - 1; step++) {
            int out = ((me - step) % p + p) % p;      // the part passed on: own first, then what came in
            int in = ((me - step - 1) % p + p) % p;
            int outRows = start[out + 1] - start[out];
            int inRows = start[in + 1] - start[in];
            comm.sendRecv(x, start[out] * f, outRows * f, next, 1, x, start[in] * f, inRows * f, prev, 1);
            comm.sendRecv(y, start[out], outRows, next, 2, y, start[in], inRows, prev, 2);
            if (w != null) {
                comm.sendRecv(w, start[out], outRows, next, 3, w, start[in], inRows, prev, 3);
            }
        }
        return new Dataset(x, y, total, f, w);
    }

    private static Dataset slice(Dataset d, int from, int to) {
        return d.rows(from, to);
    }
}
