package org.paratrain.cli.bench;

import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.experiment.RunWriter;
import org.paratrain.train.Backend;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;

/**
 * {@code bench network}'s cost model of a link: what it is fitted to (the bare allreduce timed on
 * the job's ranks, the sum's conversions as a step meets them), the Hockney fit, and the step's
 * exchange it predicts, typical and on average, beside the one {@link NetworkWorker} measured.
 * Apart from the worker, which runs the job and reports the run: this is the model it compares
 * the run with.
 */
final class LinkModel {
    /**
     * The link's calls timed a size, each alone ({@code AllreduceTiming.timeCalls}): their median
     * and their mean. 41, not 15: a mean of 15 moved by a third with one slow call.
     */
    static final int CALLS = 41;

    private LinkModel() { }

    /**
     * {@return the link's machine fitted to {@code seconds} a call at each of {@code sizes}} Two
     * processes are the link's ends (k ranks a process meet in memory first); MPI's own allreduce
     * is fitted as a ring (its formula is the cheaper of two, which is not linear).
     */
    static org.paratrain.collective.Allreduce.Machine fit(String algorithm, long[] sizes, double[] seconds) {
        List<org.paratrain.collective.CostModel.Measurement> ms = new java.util.ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            ms.add(new org.paratrain.collective.CostModel.Measurement(algorithm.equals("native") ? "ring" : algorithm, 2,
                sizes[i], seconds[i]));
        }
        return org.paratrain.collective.CostModel.fit(ms);
    }

    /**
     * What the cost model is fitted to, timed on the ranks right after a timed round: the link's
     * calls, with buckets the calls beside a computing thread, and the sum's conversions as a step
     * meets them (its rows and arrays out of the caches, the run's sum only; rank 0's process only,
     * null elsewhere).
     */
    record LinkCalibration(org.paratrain.cli.experiment.AllreduceTiming.Calls calls, double[] beside,
                                   org.paratrain.experiment.ConversionTiming.StepConversion conversion) {
        /**
         * Times it on every rank of {@code comm}'s job (each process calls it): the run's own algorithm
         * alone, whose bandwidth and reduction terms keep one ratio at every size, so the fit folds the
         * additions (about 0.1 ns a byte) into the link's beta (8 ns a byte at 1 Gbit/s) and pins gamma at
         * 0 (fitting a second algorithm as well was tried: on a shaped link it fitted a beta faster than
         * the link, as the token bucket lets short messages through in bursts); in two levels where a
         * process holds several ranks, as training calls it. Each call alone after 5 ms idle, the least
         * over the ranks ({@code AllreduceTiming.timeCalls}): a step's exchange follows its computation
         * (3-40 ms here), the emulated link's token bucket refills in 1 ms and a step finds it full;
         * back to back, calls find it drained.
         */
        static LinkCalibration time(Communicator comm, String algorithm, long[] sizes, boolean buckets,
                                    org.paratrain.train.spec.ExchangeSpec.Sum sum) {
            List<org.paratrain.cli.experiment.AllreduceTiming.Calls> calls = Backend.onMpiRanks(c ->
                org.paratrain.cli.experiment.AllreduceTiming.timeCalls(c, algorithm, sizes, CALLS, 5e-3));
            List<double[]> beside = buckets ? Backend.onMpiRanks(c ->
                org.paratrain.cli.experiment.AllreduceTiming.timeBesideWork(c, algorithm, sizes, 6, 5e-3)) : null;
            return new LinkCalibration(calls.get(0), beside == null ? null : beside.get(0),
                comm.rank() == 0 ? org.paratrain.experiment.ConversionTiming.stepConversion(sum) : null);
        }
    }

    /**
     * The cost model's step: its exchange (the sum's words, deposit and read-back, or with buckets
     * the exposed part), the failed guesses' redos a step at the run's rate, and the conversions'
     * share of the exchange.
     */
    record Prediction(double steady, double retries, double conversion) {
        double total() {
            return steady + retries;
        }
    }

    /**
     * {@return the step {@code best}'s run is predicted to take on machine {@code m}, conversions
     * at {@code sum}'s rates} With {@code plan}'s buckets, the early ones on {@code busy}.
     */
    static Prediction predict(TrainSpec spec, org.paratrain.model.Model network,
                                      org.paratrain.train.cost.Buckets plan, int k, int batch, int steps,
                                      TrainingResult best, org.paratrain.train.cost.SumCost sum,
                                      org.paratrain.collective.Allreduce.Machine m,
                                      org.paratrain.collective.Allreduce.Machine busy) {
        String algorithm = spec.exchange().label();
        org.paratrain.collective.Allreduce formula = org.paratrain.collective.Allreduces.create(
            algorithm.equals("native") ? "ring" : algorithm);
        double overlapped = plan == null ? Double.NaN
            : overlapPrediction(spec, network, plan, formula, sum, k, batch, steps, best.rankTimes(), m, busy);
        // The deposits of a process's k ranks run on its one core: B/2 rows a process, as for p = 2. A process of
        // one rank sums a long vector of one word by halves (a round more); a process of several, in two levels.
        org.paratrain.train.cost.AllreduceCost whole = new org.paratrain.train.cost.AllreduceCost(formula, sum, k == 1);
        int stepBlocks = batch / spec.run().blockSize();
        int params = best.params().length;
        // The measured exchange is the timed steps' average, any failed guess's redo in it (the untimed steps
        // hold most: a fresh run fails 1 or 2 as the grid settles): priced at the rate the run had.
        double retries = (double) best.guessMisses() / steps * whole.failedGuessSeconds(2, params, stepBlocks, m);
        double steady = !Double.isNaN(overlapped) ? overlapped : whole.stepSeconds(2, params, stepBlocks, m);
        double conversion = (Double.isNaN(overlapped) ? sum.prepareSeconds(stepBlocks / 2, params + 1L, m) : 0.0)
            + sum.finishSeconds(1, params + 1L, params + 1L, m);
        return new Prediction(steady, retries, conversion);
    }

    /**
     * {@return the exposed exchange the overlap's cost predicts for a run that sent {@code plan}'s
     * buckets during backward ({@link org.paratrain.train.cost.OverlapCost})} The block's seconds
     * are the slowest rank's computation a step (the one whose exchange is measured: it waits for
     * no one) over its blocks, its deposits taken out: with buckets they run inside the blocks.
     * The early buckets are priced on {@code busy}, the link as a call beside a computing thread
     * meets it; the rest, after the blocks, on {@code m}.
     */
    private static double overlapPrediction(TrainSpec spec, org.paratrain.model.Model model,
                                            org.paratrain.train.cost.Buckets plan,
                                            org.paratrain.collective.Allreduce formula,
                                            org.paratrain.train.cost.SumCost sum, int k, int batch, int steps,
                                            TrainingResult.RankTimes times, org.paratrain.collective.Allreduce.Machine m,
                                            org.paratrain.collective.Allreduce.Machine busy) {
        int params = model.parameterCount();
        int own = Math.max(1, batch / spec.run().blockSize() / (2 * k));
        double compute = java.util.Arrays.stream(times.compute()).max().orElseThrow() / steps;
        double block = Math.max(0.0, compute - (double) own * (params + 1) * sum.conversion().depositSeconds()) / own;
        // The CNN stages only its last block's last chunks, as many as hide the early buckets, found
        // step by step: the early buckets are ready that much later (NaN: nothing staged, the MLP).
        double staged = times.stagedShare();
        return new org.paratrain.train.cost.OverlapCost(formula, sum).exposedSeconds(2, params, plan,
            model.backwardShares(), block, Double.isNaN(staged) ? 1.0 : staged, own, model.backwardRanges(), m, busy);
    }

    /** {@return {@code [[size, median ms, mean ms], ...]}: the link's timed calls the fits were made from} */
    static com.fasterxml.jackson.databind.node.ArrayNode calls(long[] sizes,
                                                                      org.paratrain.cli.experiment.AllreduceTiming.Calls seconds) {
        var a = RunWriter.json().createArrayNode();
        for (int i = 0; i < sizes.length; i++) {
            a.addArray().add(sizes[i]).add(1e3 * seconds.median()[i]).add(1e3 * seconds.mean()[i]);
        }
        return a;
    }
}
