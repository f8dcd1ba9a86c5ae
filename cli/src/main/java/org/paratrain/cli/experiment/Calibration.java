package org.paratrain.cli.experiment;

import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.CostModel;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.data.Dataset;
import org.paratrain.model.LinearRegression;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.experiment.ConversionTiming;

/**
 * Measures this machine for the cost model: allreduce times of every algorithm over message
 * sizes and rank counts, the gradient's cost per sample and parameter, the fixed-point sums'
 * conversions per value, and the memory copy bandwidth that allreduce bandwidth is judged
 * against.
 */
public final class Calibration {
    private Calibration() { }

    /**
     * Times allreduces on the local backend: the best of {@code rounds} timing loops of at
     * least 2 ms each, after one warm-up call per algorithm so that the first sizes measured
     * do not time the JIT.
     *
     * @param algorithms names of the algorithms to time (see {@link Allreduces#portableNames()})
     * @param ranks      rank counts
     * @param sizes      vector lengths, in doubles
     * @param rounds     timing loops per point; the best counts
     * @param progress   told the number of points done after each one
     * @return one measurement per algorithm, rank count and size
     */
    public static List<CostModel.Measurement> allreduce(List<String> algorithms, int[] ranks, long[] sizes,
                                                        int rounds, java.util.function.IntConsumer progress) {
        List<CostModel.Measurement> out = new ArrayList<>();
        // Compile every algorithm's code first, so the first sizes measured are not the JIT's.
        for (String name : algorithms) {
            LocalCluster.run(2, comm -> AllreduceTiming.time(comm, name, new long[] {1, 64}, 1));
        }
        int done = 0;
        for (int p : ranks) {
            for (String name : algorithms) {
                List<double[]> perSize = LocalCluster.run(p, comm -> AllreduceTiming.time(comm, name, sizes, rounds));
                double[] seconds = perSize.get(0);
                for (int i = 0; i < sizes.length; i++) {
                    out.add(new CostModel.Measurement(name, p, sizes[i], seconds[i]));
                }
                progress.accept(++done);
            }
        }
        return out;
    }

    /**
     * {@return seconds per sample and parameter of linear regression's gradient, best of 15 passes}
     * @param features features per sample; the data is about 16 MB, larger than most caches
     */
    public static double computeRate(int features) {
        int samples = Math.max(4096, 2_000_000 / features);
        Random rnd = new Random(1);
        double[] x = new double[samples * features];
        double[] y = new double[samples];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        Dataset d = new Dataset(x, y, samples, features);
        LinearRegression m = new LinearRegression(d.features(), false);
        double[] w = new double[m.parameterCount()];
        double[] g = new double[m.parameterCount()];
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 15; r++) {
            long t0 = System.nanoTime();
            m.lossAndGradient(d, 0, samples, w, g, 0);
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
        }
        return best / ((double) samples * m.parameterCount());
    }

    /**
     * {@return bytes per second (read plus written) of System.arraycopy between two 8 MB arrays:
     * the yardstick for allreduce bandwidth}
     */
    public static double copyBandwidth() {
        double[] a = new double[1_000_000];
        double[] b = new double[1_000_000];
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 30; r++) {
            long t0 = System.nanoTime();
            System.arraycopy(a, 0, b, 0, a.length);
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
        }
        return 2.0 * 8 * a.length / best;      // bytes read plus bytes written
    }

    /**
     * The cost model for a workload: the quick machine fit, the fixed-point conversion rates
     * ({@link ConversionTiming#rates()}), and the workload's own gradient cost and fixed per-epoch cost measured by training it at one rank for a few epochs
     * (after half a second of warm-up runs, best of three). For large data sets a prefix of at most
     * 20,000,000 values (160 MB, more than any cache) stands in, so that the gradient streams
     * from memory as the full data set's does.
     *
     * @param data   the workload, or a synthetic one of its shape
     * @param config its settings: intercept, block size, learning rate and loss reduction (run at 1 rank)
     * @return the fitted model of an epoch's time, ready to predict at any node count
     */
    public static org.paratrain.train.EpochModel forWorkload(Dataset data, TrainSpec config) {
        Allreduce.Machine machine = quickMachine();
        int params = exchanged(data, config);
        boolean network = config.model() instanceof org.paratrain.train.spec.ModelSpec.Mlp
            || config.model() instanceof org.paratrain.train.spec.ModelSpec.Cnn;
        // A network's sample costs about a pass over its parameters, not its features: probe fewer samples,
        // but enough for a block at each of 2 ranks and a mini-batch.
        int least = network ? 2 * Math.max(Math.max(config.run().batchSize(), config.run().blockSize()), 64) : 1;
        Dataset probe = prefix(data, Math.max(least, PROBE_VALUES / Math.max(data.features(), params)));
        int epochs = (int) Math.max(network ? 3 : 10, Math.min(300, PROBE_VALUES / ((long) probe.samples() * params)));
        TrainSpec one = config.withNodes(1).withEpochs(epochs).withExchange(ExchangeSpec.MASTER_WORKER)
            .withLossReduction(org.paratrain.train.LossReduction.MEAN)
            .withLearningRate(stableRate(probe, config.model().intercept()));
        org.paratrain.data.BlockSharding sharding = Plan.sharding(probe.samples(), config.run().blockSize());
        double compute = Double.MAX_VALUE;
        double other = Double.MAX_VALUE;
        // Warm-up for half a second: compiled code, not the interpreter, is what a run sees.
        long warmUntil = System.nanoTime() + WARM_UP_NANOS;
        for (int w = 0; w < 2 || System.nanoTime() - warmUntil < 0; w++) {
            org.paratrain.train.Training.local(probe, one);
        }
        for (int r = 0; r < 3; r++) {
            var res = org.paratrain.train.Training.local(probe, one);
            compute = Math.min(compute, res.computeSeconds() / res.epochs());
            other = Math.min(other, res.trainSeconds() / res.epochs() - res.computeSeconds() / res.epochs());
        }
        int cores = Runtime.getRuntime().availableProcessors();
        double perValue = compute / ((double) probe.samples() * params);
        ConversionRates rates = ConversionTiming.rates();
        org.paratrain.train.EpochModel partial = new org.paratrain.train.EpochModel(machine, perValue, cores, 0, rates);
        // The probe ran master-worker at one rank: its block sum is in the time measured, and in the model's exchange.
        double fixed = Math.max(0, other - partial.exchangeSeconds(ExchangeSpec.MASTER_WORKER, 1, sharding, params));
        org.paratrain.train.EpochModel all = new org.paratrain.train.EpochModel(machine, perValue, cores, fixed, rates);
        double[] predicted = {all.epochSeconds(ExchangeSpec.MASTER_WORKER, 1, sharding, params),
            all.epochSeconds(ExchangeSpec.MASTER_WORKER, 2, sharding, params)};
        return usableCores(probe, one, compute + other, predicted) == cores ? all
            : new org.paratrain.train.EpochModel(machine, perValue, 1, fixed, rates);
    }

    /**
     * {@return the values a rank sends a step: the model's parameters (a network's, not its inputs)}
     * @param data   the workload's samples
     * @param config its model
     */
    public static int exchanged(Dataset data, TrainSpec config) {
        org.paratrain.train.spec.ModelSpec m = config.model();
        if (!m.classifier() && !(m instanceof org.paratrain.train.spec.ModelSpec.Mlp)) {
            return data.features() + (m.intercept() ? 1 : 0);
        }
        int classes = m.classifier() ? m.classes() > 0 ? m.classes() : Math.max(2, maxLabel(data) + 1) : 0;
        return (int) Math.min(Integer.MAX_VALUE, m.parameterCount(data.features(), classes));
    }

    private static int maxLabel(Dataset data) {
        double max = 0;
        for (double v : data.y()) {
            max = Math.max(max, v);
        }
        return (int) Math.min(Integer.MAX_VALUE - 1, max);
    }

    /**
     * The cores a run can use now: the machine's, unless the probe at 2 ranks, measured as the
     * machine is at this moment, shows a core that is not there: another process busy on it, or
     * a core much slower than the other. Then 1, so that {@code auto} does not choose a node
     * count that the run then measures slower than 1 rank. A core is missing when 2 ranks take
     * more than 1.5 times what the model predicts with both cores, or when the model predicts 2
     * ranks at least 10% faster than 1 and they are not. On 20,000 x 10, with both cores free 2 ranks measure
     * 1.05-1.15 times the prediction; with a busy loop on one core about twice (95 us an epoch
     * against 50 predicted), and a threshold of 2 let one run in two choose 2 ranks. Whether 2
     * ranks beat 1 alone is not the test: on the paper's
     * 500 x 1 they never do (communication dominates), and taking that for a missing core made
     * the model predict 2 ranks at +82%.
     *
     * @param oneEpoch  the probe's measured epoch at 1 rank
     * @param predicted the model's epoch at 1 and 2 ranks with every core
     */
    private static int usableCores(Dataset probe, TrainSpec one, double oneEpoch, double[] predicted) {
        int cores = Runtime.getRuntime().availableProcessors();
        if (cores < 2) {
            return cores;
        }
        TrainSpec two = one.withNodes(2);
        // Warm-up as at 1 rank: two ranks run code one rank never reaches (the exchange's waits and
        // messages, the epoch loop called twice as often), compiled here rather than in the run.
        long warmUntil = System.nanoTime() + WARM_UP_NANOS;
        for (int w = 0; w < 2 || System.nanoTime() - warmUntil < 0; w++) {
            org.paratrain.train.Training.local(probe, two);
        }
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            var res = org.paratrain.train.Training.local(probe, two);
            best = Math.min(best, res.trainSeconds() / res.epochs());
        }
        boolean slow = best > 1.5 * predicted[1];
        boolean noGain = predicted[1] < 0.9 * predicted[0] && best >= oneEpoch;   // a gain the noise cannot make
        return slow || noGain ? 1 : cores;
    }

    private static final int PROBE_VALUES = 20_000_000;
    /** How long the probe runs untimed first, at 1 rank and again at 2. */
    private static final long WARM_UP_NANOS = 500_000_000L;

    /**
     * A learning rate at which gradient descent on {@code d} (mean squared error) cannot diverge.
     * The probe only times steps, but at the user's rate it could diverge and stop after a few
     * epochs, blaming a run the user never asked for (or reach NaN, which some processors compute
     * slowly). Half of 1 / trace of the Hessian is safe: the trace (the mean squared features,
     * plus 1 for an intercept) bounds its largest eigenvalue, and steps below 2 / that converge.
     *
     * @param d         the data
     * @param intercept whether the model learns a bias
     * @return a safe learning rate for the mean loss
     */
    public static double stableRate(Dataset d, boolean intercept) {
        double trace = intercept ? 1 : 0;
        for (double v : d.x()) {
            trace += v * v / d.samples();
        }
        double rate = 0.5 / Math.max(trace, 1e-300);
        return rate > 0 && Double.isFinite(rate) ? rate : Double.MIN_NORMAL;   // features too large to square
    }

    /**
     * {@return a synthetic workload of normal draws, for planning before any data exists; at most
     * 20,000,000 values, as {@link #forWorkload} measures no more}
     * @param samples samples of the planned workload
     * @param features features of the planned workload
     */
    public static Dataset synthetic(int samples, int features) {
        int n = (int) Math.min(samples, Math.max(1, (long) PROBE_VALUES / features));
        Random rnd = new Random(7);
        double[] x = new double[n * features];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = rnd.nextGaussian();
        }
        return new Dataset(x, y, n, features);
    }

    private static Dataset prefix(Dataset d, int samples) {
        if (samples >= d.samples()) {
            return d;
        }
        return new Dataset(java.util.Arrays.copyOf(d.x(), samples * d.features()), java.util.Arrays.copyOf(d.y(),
            samples), samples, d.features());
    }

    /**
     * {@return a quick machine fit for {@code auto} and {@code plan}: every portable algorithm at
     * 2 ranks over four sizes, in about a second}
     */
    public static Allreduce.Machine quickMachine() {
        return CostModel.fit(allreduce(Allreduces.portableNames(), new int[] {2},
            new long[] {1, 1024, 32768, 262144}, 2, done -> { }));
    }
}
