package org.paratrain.cli.bench;


import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.cli.experiment.Statistics;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** One run of {@code bench balance}, in its own JVM: prints cold_s, compile_ms and warm_s. */
@Command(name = "balance-run", hidden = true)
final class BalanceRun implements Runnable {
    @Option(names = "--samples", required = true)
    int samples;

    @Option(names = "--features", required = true)
    int features;

    @Option(names = "--epochs", required = true)
    int epochs;

    @Option(names = "--nodes", required = true)
    int nodes;

    @Option(names = "--allreduce", required = true)
    String allreduce;

    @Option(names = "--rebalance", defaultValue = "0")
    String rebalance;

    @Option(names = "--backend", defaultValue = "local")
    String backend;

    @Option(names = "--slow", defaultValue = "1")
    int slow;

    @Override
    public void run() {
        Dataset data = KernelData.generate(samples, features);
        TrainSpec train = BenchBalanceCommand.training(samples, epochs, nodes, allreduce,
            org.paratrain.train.spec.RunSpec.parseRebalance(rebalance));
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long compiled = jit.getTotalCompilationTime();
        TrainingResult cold = train(data, train);
        long compileMs = jit.getTotalCompilationTime() - compiled;
        double[] warm = new double[3];
        for (int i = 0; i < warm.length; i++) {
            TrainingResult r = train(data, train);
            warm[i] = r == null ? 0.0 : r.trainSeconds();
        }
        if (cold == null) {
            return;         // an MPI rank other than 0: rank 0 prints
        }
        // The JIT's time counts every compiler thread, and part of it ran while the run's setup did.
        System.out.printf(Locale.ROOT, "cold_s %.6f%ncompile_ms %d%nwarm_s %.6f%nloss_bits %x%n",
            cold.trainSeconds(), compileMs, Statistics.median(warm), Double.doubleToRawLongBits(cold.finalLoss()));
    }

    /** One training on this backend (rank 1 slower when asked); null on MPI ranks other than 0. */
    private TrainingResult train(Dataset data, TrainSpec train) {
        var control = org.paratrain.train.TrainingControl.none();
        var failure = slow > 1 ? org.paratrain.train.FailureInjection.slow(1, 1, slow) : null;
        return backend.equals("mpi") ? org.paratrain.train.FailureInjection.mpi(data, train, control, failure)
            : org.paratrain.train.FailureInjection.local(data, train, control, failure);
    }
}
