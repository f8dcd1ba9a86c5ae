package org.paratrain.cli;

import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.spec.ModelSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.collective.Allreduce;
import org.paratrain.experiment.Calibration;
import org.paratrain.experiment.MachineFile;
import org.paratrain.experiment.Plan;
import org.paratrain.experiment.Plots;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.EpochModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain plan}: predicted time and speedup at every node count, before any run. */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = {"Predict time per epoch and speedup at every node count, before any run.",
        "Predicts the time per epoch of linear regression on N samples x D features for p = 1, 2, 4, ...",
        "up to --nodes-max and every way of combining gradients, from the machine's measured cost model; print",
        "the best p and the break-even (the least data at which p > 1 pays). Writes plan.md/.csv and plan.png/.svg."})
final class PlanCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", required = true, description = "Samples in the data set.")
    int samples;

    @Option(names = "--features", required = true, description = "Features per sample.")
    int features;

    @Option(names = "--intercept", description = "The model learns a bias too.")
    boolean intercept;

    @Option(names = "--model", defaultValue = "linear", description = "The model: linear (default).")
    String model;

    @Option(names = "--nodes-max", defaultValue = "1024", description = "Largest node count (default ${DEFAULT-VALUE}).")
    int nodesMax;

    @Option(names = "--block-size", defaultValue = "0", description = "Samples per shard block (0: default).")
    int blockSize;

    @Option(names = "--backend", defaultValue = "local", description = "local or mpi (adds MPI's own allreduce).")
    String backend;

    @Option(names = "--machine", description = "machine.json from bench collectives (default: "
        + "results/collectives/machine.json if present, else a quick calibration now).")
    Path machineFile;

    @Option(names = "--out", defaultValue = "results/plan", description = "Output directory.")
    Path out;

    @Override
    public void run() {
        if (!model.equals("linear")) {
            throw new IllegalArgumentException("--model must be linear, got '" + model + "'");
        }
        if (samples < 1 || features < 1) {
            throw new IllegalArgumentException("--samples and --features must be at least 1");
        }
        if (nodesMax < 1 || nodesMax > 1 << 20) {
            throw new IllegalArgumentException("--nodes-max must be in [1, 1048576], got " + nodesMax);
        }
        boolean mpi = switch (backend) {
            case "local" -> false;
            case "mpi" -> true;
            default -> throw new IllegalArgumentException("--backend must be local or mpi, got '" + backend + "'");
        };
        OptionChecks.backend(spec.commandLine().getParseResult(), mpi);
        InputFiles.require(machineFile);
        OutputPaths.directory("--out", out);
        var o = spec.commandLine().getOut();
        Allreduce.Machine machine = machine(o);
        int params = features + (intercept ? 1 : 0);
        // The gradient's cost and the fixed cost per epoch are measured on a synthetic workload of this shape.
        EpochModel probe = Calibration.forWorkload(Calibration.synthetic(samples, features),
            TrainSpec.paper().withModel(new ModelSpec.Linear(intercept)).withEpochs(30).withLearningRate(1e-9)
                .withLossReduction(org.paratrain.train.LossReduction.MEAN)
                .withRun(TrainSpec.paper().run().withEpochs(30).withLossReduction(org.paratrain.train.LossReduction.MEAN)
                    .withBlockSize(blockSize)));
        EpochModel em = new EpochModel(machine, probe.secondsPerSampleParam(), probe.cores(), probe.fixedSeconds());
        List<String> exchanges = EpochModel.candidates(mpi);
        List<Plan.Row> rows = Plan.rows(em, samples, blockSize, params, exchanges, nodesMax);
        String text = report(rows, exchanges, em, params);
        o.print(text);
        Path stage = AtomicFiles.stagingDirectory(out);
        try {
            AtomicFiles.writeText(stage.resolve("plan.md"), w -> w.write(text));
            AtomicFiles.writeText(stage.resolve("plan.csv"), w -> {
                w.write("nodes," + String.join(",", exchanges) + ",best,compute_seconds\n");
                for (Plan.Row r : rows) {
                    StringBuilder sb = new StringBuilder().append(r.nodes());
                    for (double t : r.seconds()) {
                        sb.append(',').append(t);
                    }
                    w.write(sb.append(',').append(r.best()).append(',').append(r.compute()).append('\n').toString());
                }
            });
            Plots.save(Plots.plan(rows, exchanges, samples, features), stage, "plan");
            AtomicFiles.moveAll(stage, out, List.of("plan.md", "plan.csv", "plan.png", "plan.svg"));
        } finally {
            AtomicFiles.deleteQuietly(stage);
        }
        o.println("wrote " + out.resolve("plan.md") + ", plan.csv and plan.png/.svg");
    }

    private Allreduce.Machine machine(java.io.PrintWriter o) {
        Path file = machineFile != null ? machineFile : Path.of("results", "collectives", "machine.json");
        if (machineFile != null || Files.isRegularFile(file)) {
            o.println("machine model from " + file);
            return MachineFile.read(file).machine();
        }
        o.println("no machine.json (run paratrain bench collectives for a full fit): calibrating quickly...");
        return Calibration.quickMachine();
    }

    private String report(List<Plan.Row> rows, List<String> exchanges, EpochModel em, int params) {
        StringBuilder sb = new StringBuilder();
        Allreduce.Machine m = em.machine();
        sb.append(String.format(Locale.ROOT, "# Plan: linear regression, %d samples x %d features (%d parameters)%n%n"
                + "Model: alpha %.3f us, beta %.3f ns/B, gamma %.3f ns/B; gradient %.3f ns per sample and parameter; "
                + "%.3f us fixed per epoch; %d cores (beyond them ranks share cores, so compute stops shrinking).%n%n",
            samples, features, params, m.alpha() * 1e6, m.beta() * 1e9, m.gamma() * 1e9,
            em.secondsPerSampleParam() * 1e9, em.fixedSeconds() * 1e6, em.cores()));
        sb.append("| nodes | ").append(String.join(" (ms) | ", exchanges)).append(" (ms) | best | speedup |\n|---:|");
        sb.append("---:|".repeat(exchanges.size())).append("---|---:|\n");
        double t1 = rows.get(0).bestSeconds();
        for (Plan.Row r : rows) {
            sb.append("| ").append(r.nodes()).append(" | ");
            for (double t : r.seconds()) {
                sb.append(String.format(Locale.ROOT, "%.4g | ", t * 1e3));
            }
            sb.append(r.best()).append(String.format(Locale.ROOT, " | %.2f |%n", t1 / r.bestSeconds()));
        }
        Plan.Row best = Plan.fastest(rows);
        sb.append(String.format(Locale.ROOT, "%nBest: %d %s with %s, %.4g ms per epoch, a predicted speedup of "
            + "%.2f over 1 node.%n", best.nodes(), best.nodes() == 1 ? "node" : "nodes", best.best(),
            best.bestSeconds() * 1e3, t1 / best.bestSeconds()));
        if (best.nodes() == 1) {
            sb.append("No node count beats 1: the exchange costs more than the computation it would share.\n");
        }
        long even = Plan.breakEven(em, params, exchanges, rows.get(rows.size() - 1).nodes());
        sb.append(even < 0 ? "Break-even: p > 1 is not predicted to pay up to 2^30 samples with these features.\n"
            : String.format(Locale.ROOT, "Break-even: with %d features, p > 1 is predicted to pay from about %d samples "
                + "(%d per rank at 2 ranks).%n", features, even, even / 2));
        return sb.toString();
    }
}
