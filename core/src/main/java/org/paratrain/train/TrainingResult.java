package org.paratrain.train;

/**
 * What a training run produced, as seen by rank 0.
 *
 * @param params         final parameters (weights, then the intercept if any)
 * @param finalLoss      loss at the final parameters (after the last update)
 * @param epochs         epochs run
 * @param nodes          number of ranks
 * @param backend        communicator backend ({@code local}, {@code mpi})
 * @param algorithm      gradient exchange ({@code master-worker}: the paper's)
 * @param blockSize      samples per shard block
 * @param trainSeconds   wall time of the training loop on rank 0, data loading excluded; where ranks
 *                       share a carrier, less rank 0's wait for the core after the last collective
 *                       (a sibling rank's final pass, not training)
 * @param computeSeconds time rank 0 spent computing its gradients
 * @param commSeconds    time rank 0 spent exchanging (and updating)
 * @param history        loss and timing of every epoch
 * @param trainAccuracy  fraction of training samples classified right, NaN for regression
 * @param split          the blocks each rank computed at the end and how often that moved, or null
 *                       where not recorded (the shared exchange hands blocks out step by step)
 * @param rankTimes      each rank's time computing and exchanging, or null where not gathered
 * @param guessMisses    steps whose guessed fixed-point grid did not hold, so that their sum was redone
 *                       on an agreed grid (a second exchange): in this run, since it started or resumed;
 *                       0 for sums that guess no grid
 */
public record TrainingResult(double[] params, double finalLoss, int epochs, int nodes, String backend,
                             String algorithm, int blockSize, double trainSeconds, double computeSeconds,
                             double commSeconds, History history, double trainAccuracy, Split split,
                             RankTimes rankTimes, long guessMisses) {

    /**
     * A result without a training accuracy (a regression, or a result read back from a file).
     *
     * @param params         final parameters (weights, then the intercept if any)
     * @param finalLoss      loss at the final parameters
     * @param epochs         epochs run
     * @param nodes          number of ranks
     * @param backend        {@code local} or {@code mpi}
     * @param algorithm      gradient exchange, e.g. {@code master-worker}
     * @param blockSize      samples per shard block
     * @param trainSeconds   wall time of the training loop on rank 0
     * @param computeSeconds time rank 0 spent computing gradients
     * @param commSeconds    time rank 0 spent exchanging
     * @param history        loss and timing of every epoch
     */
    public TrainingResult(double[] params, double finalLoss, int epochs, int nodes, String backend, String algorithm,
                          int blockSize, double trainSeconds, double computeSeconds, double commSeconds,
                          History history) {
        this(params, finalLoss, epochs, nodes, backend, algorithm, blockSize, trainSeconds, computeSeconds,
            commSeconds, history, Double.NaN, null, null, 0);
    }

    /** This result with its training accuracy. */
    TrainingResult withAccuracy(double accuracy) {
        return new TrainingResult(params, finalLoss, epochs, nodes, backend, algorithm, blockSize, trainSeconds,
            computeSeconds, commSeconds, history, accuracy, split, rankTimes, guessMisses);
    }

    /**
     * Each rank's seconds computing and exchanging over the run (a resumed run: from the epoch it
     * resumed in, whose time before the checkpoint is rank 0's), in rank order. A rank's exchange
     * includes waiting for the ranks that reach the exchange after it; the rank that arrives last
     * waits for no one, so the least exchange time over the ranks is the exchange itself and each
     * rank's excess over it is its wait, which the computation's imbalance sets.
     *
     * <p>Where the last to arrive changes from step to step, the least of the totals still holds
     * waits; {@code waitFree} is the least over the ranks taken step by step, over the last
     * {@code waitFreeSteps} steps (at most 4,096), without the optimizer's update or a rank's wait
     * for its core after a meeting of ranks that share one.
     *
     * @param compute       seconds each rank spent computing its blocks
     * @param exchange      seconds each rank spent in the exchange (and the update), waits included
     * @param update        seconds each rank spent in the optimizer's update, part of {@code exchange}
     * @param waitFree      the exchange without waits or update, summed over {@code waitFreeSteps}
     *                      steps; NaN when not measured
     * @param waitFreeSteps the steps {@code waitFree} covers, the run's last; 0 when not measured
     * @param staged        each rank's share of its last block's chunks run stage by stage for
     *                      buckets sent during backward, the mean over the timed steps; NaN where
     *                      nothing was staged or not measured
     * @param waitFreeMedian the median over the same steps of the step's exchange without waits
     *                      (the least over the ranks): a typical step, which a cost model fitted
     *                      to typical calls prices; the mean ({@link #waitFreePerStep}) also holds
     *                      the steps the OS took a core from (a host's one core is shared with
     *                      the JIT, the collector and the kernel's network work). NaN when not
     *                      measured
     */
    public record RankTimes(double[] compute, double[] exchange, double[] update, double waitFree,
                            int waitFreeSteps, double[] staged, double waitFreeMedian) {

        /** Checks that there is one figure of each per rank. */
        public RankTimes {
            if (compute == null || exchange == null || compute.length != exchange.length || compute.length == 0
                || update == null || update.length != compute.length || staged == null
                || staged.length != compute.length) {
                throw new IllegalArgumentException("rank times need one compute, exchange, update and staged figure a "
                    + "rank");
            }
        }

        /**
         * Without the median step (a result written before it was measured).
         *
         * @param compute       seconds each rank spent computing its blocks
         * @param exchange      seconds each rank spent in the exchange (and the update), waits included
         * @param update        seconds each rank spent in the optimizer's update, part of {@code exchange}
         * @param waitFree      the exchange without waits or update, summed over {@code waitFreeSteps} steps
         * @param waitFreeSteps the steps {@code waitFree} covers
         * @param staged        each rank's staged share, NaN where none
         */
        public RankTimes(double[] compute, double[] exchange, double[] update, double waitFree, int waitFreeSteps,
                         double[] staged) {
            this(compute, exchange, update, waitFree, waitFreeSteps, staged, Double.NaN);
        }

        /**
         * Without staged shares (a result written before they were measured).
         *
         * @param compute       seconds each rank spent computing its blocks
         * @param exchange      seconds each rank spent in the exchange (and the update), waits included
         * @param update        seconds each rank spent in the optimizer's update, part of {@code exchange}
         * @param waitFree      the exchange without waits or update, summed over {@code waitFreeSteps} steps
         * @param waitFreeSteps the steps {@code waitFree} covers
         */
        public RankTimes(double[] compute, double[] exchange, double[] update, double waitFree, int waitFreeSteps) {
            this(compute, exchange, update, waitFree, waitFreeSteps, nan(compute));
        }

        private static double[] nan(double[] like) {
            double[] v = new double[like == null ? 0 : like.length];
            java.util.Arrays.fill(v, Double.NaN);
            return v;
        }

        /** {@return the mean of the ranks' staged shares, NaN where none staged} */
        public double stagedShare() {
            double s = 0;
            int n = 0;
            for (double x : staged) {
                if (!Double.isNaN(x)) {
                    s += x;
                    n++;
                }
            }
            return n == 0 ? Double.NaN : s / n;
        }

        /**
         * Compute and exchange alone (a result written before the rest was measured).
         *
         * @param compute  seconds each rank spent computing its blocks
         * @param exchange seconds each rank spent in the exchange (and the update), waits included
         */
        public RankTimes(double[] compute, double[] exchange) {
            this(compute, exchange, compute == null ? null : new double[compute.length], Double.NaN, 0);
        }

        /** {@return the exchange without waits or update a step, over the last steps; NaN when not measured} */
        public double waitFreePerStep() {
            return waitFreeSteps > 0 ? waitFree / waitFreeSteps : Double.NaN;
        }

        /** {@return the least exchange time over the ranks: the exchange without waiting for a slower rank} */
        public double leastExchange() {
            double least = Double.POSITIVE_INFINITY;
            for (double x : exchange) {
                least = Math.min(least, x);
            }
            return least;
        }
    }

    /**
     * How a step's blocks were split between the ranks.
     *
     * @param blocksPerRank the blocks each rank computed in the last step, in rank order
     * @param moves         how many times the split moved to follow the ranks' measured speeds
     *                      ({@code --rebalance}); 0 when every rank kept an even share
     */
    public record Split(int[] blocksPerRank, int moves) {

        /** {@return the blocks per rank joined by commas, as the command line prints them} */
        public String text() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < blocksPerRank.length; i++) {
                b.append(i == 0 ? "" : ", ").append(blocksPerRank[i]);
            }
            return b.toString();
        }
    }

    /**
     * Per-epoch records, one array entry per epoch.
     *
     * @param loss        loss over the epoch's steps, each at the parameters the step started from
     * @param seconds     wall time since the start of training at the end of the epoch
     * @param compute     time computing gradients in the epoch (rank 0)
     * @param comm        time exchanging in the epoch (rank 0)
     * @param lr          learning rate of the epoch's last update
     * @param valLoss     loss on the validation data after the epoch, NaN where not validated
     * @param valAccuracy accuracy on the validation data after the epoch, NaN where not validated
     *                    or not a classifier
     */
    public record History(double[] loss, double[] seconds, double[] compute, double[] comm, double[] lr,
                          double[] valLoss, double[] valAccuracy) {

        /**
         * A history without learning rates or validation (NaN there), as older files hold it.
         *
         * @param loss    training loss of each epoch
         * @param seconds wall time since the start of training at the end of each epoch
         * @param compute time computing gradients in each epoch (rank 0)
         * @param comm    time exchanging in each epoch (rank 0)
         */
        public History(double[] loss, double[] seconds, double[] compute, double[] comm) {
            this(loss, seconds, compute, comm, nan(loss.length), nan(loss.length), nan(loss.length));
        }

        /** An empty history for {@code epochs} epochs: zeros, NaN where nothing was measured. */
        static History empty(int epochs) {
            return new History(new double[epochs], new double[epochs], new double[epochs], new double[epochs],
                nan(epochs), nan(epochs), nan(epochs));
        }

        /** The first {@code n} entries, copied. */
        History first(int n) {
            return new History(java.util.Arrays.copyOf(loss, n), java.util.Arrays.copyOf(seconds, n),
                java.util.Arrays.copyOf(compute, n), java.util.Arrays.copyOf(comm, n), java.util.Arrays.copyOf(lr, n),
                java.util.Arrays.copyOf(valLoss, n), java.util.Arrays.copyOf(valAccuracy, n));
        }

        /** {@return the seven arrays in the order of the components, the order checkpoints store them in} */
        public java.util.List<double[]> arrays() {
            return java.util.List.of(loss, seconds, compute, comm, lr, valLoss, valAccuracy);
        }

        /**
         * {@return the history made of arrays in the order {@link #arrays()} gives them}
         * @param a seven arrays of equal length, as read from a checkpoint
         */
        public static History of(java.util.List<double[]> a) {
            return new History(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5), a.get(6));
        }

        private static double[] nan(int n) {
            double[] v = new double[n];
            java.util.Arrays.fill(v, Double.NaN);
            return v;
        }
    }
}
