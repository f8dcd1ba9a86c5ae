package org.paratrain.cli;

import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.collective.Allreduce;
import org.paratrain.cli.experiment.Calibration;
import org.paratrain.cli.experiment.MachineFile;
import org.paratrain.cli.experiment.Plan;
import org.paratrain.cli.experiment.PlanPlot;
import org.paratrain.cli.experiment.Plots;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.EpochModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code paratrain plan}: predicted time and speedup at every node count, before any run. */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = {"Predict time per epoch and speedup at every node count, before any run.",
        "Predicts the time per epoch of linear regression on N samples x D features for p = 1, 2, 4, ...",
        "up to --nodes-max and every way of combining gradients, from the machine's measured cost model; print",
        "the best p and the break-even (the least data at which p > 1 pays), and check the prediction at 1 and 2",
        "ranks against a run of that size on this machine. Writes plan.md/.csv and plan.png/.svg."})
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

    @Option(names = "--nodes-max", description = "Largest node count (default: this machine's cores for the local "
        + "backend, whose ranks are its threads; 32, the paper's largest, for mpi).")
    Integer nodesMax;

    @Option(names = "--block-size", defaultValue = "0", description = "Samples per shard block (0: default).")
    int blockSize;

    @Option(names = "--backend", defaultValue = "local", description = "local or mpi (adds MPI's own allreduce).")
    String backend;

    @Option(names = "--sum", description = "The sum to plan with: fixed, fixed:1, fixed:2, float or blocks (default: "
        + "fixed:1, train's default, for every exchange).")
    String sum;

    @Option(names = "--machine", description = "machine.json from bench collectives (default: "
        + "results/collectives/machine.json if present, else a quick calibration now).")
    Path machineFile;

    @Option(names = "--link", paramLabel = "RATE[,LATENCY]", description = "With --backend mpi: one rank a host, "
        + "hosts joined by links of this rate (as tc spells it: 1gbit, 100mbit, 25gbit) and one-way latency (20us, "
        + "1ms; default 50us): the exchanges are priced on the link, the computation spread over the hosts' ranks.")
    String link;

    @Option(names = "--out", defaultValue = "results/plan", description = "Output directory.")
    Path out;

    @Override
    public void run() {
        boolean mpi = checkOptions();
        ExchangeSpec.Sum planned = sum == null ? null : ExchangeSpec.Sum.parse(sum);
        OptionChecks.backend(spec.commandLine().getParseResult(), mpi);
        InputFiles.require(machineFile);
        OutputPaths.directory("--out", out);
        var o = spec.commandLine().getOut();
        if (link != null && !mpi) {
            throw new IllegalArgumentException("--link prices links between hosts: give --backend mpi");
        }
        Allreduce.Machine local = machine(o);
        EpochModel em = epochModel(link == null ? local : onLink(link, local));
        if (link != null) {
            int hosts = nodesMax != null ? nodesMax : 32;
            em = new EpochModel(em.machine(), em.secondsPerSampleParam(), hosts, em.fixedSeconds(), em.conversion());
        }
        String onLinks = link == null ? "" : String.format(java.util.Locale.ROOT, "link %s: alpha %.1f us, beta %.3f "
            + "ns a byte; one rank a host%n%n", link, 1e6 * em.machine().alpha(), 1e9 * em.machine().beta());
        int params = features + (intercept ? 1 : 0);
        List<ExchangeSpec> exchanges = Plan.candidatesOn(mpi, planned, true);
        int most = nodesMax != null ? nodesMax : mpi ? 32 : Math.max(2, Runtime.getRuntime().availableProcessors());
        List<Plan.Row> rows = Plan.rows(em, samples, blockSize, params, exchanges, most);
        PlanCheck.Result check = mpi ? null : PlanCheck.run(samples, features, intercept, blockSize, rows, em);
        String text = onLinks + PlanReport.markdown(new PlanReport.Workload(samples, features, params, blockSize),
            rows, exchanges, em, nodesMax == null, check);
        o.print(text);
        write(text, rows, exchanges.stream().map(Plan::label).toList());
        o.println("wrote " + out.resolve("plan.md") + ", plan.csv and plan.png/.svg");
    }

    /** Checks the numbers and the backend's name, and tells whether the backend is MPI. */
    private boolean checkOptions() {
        if (!model.equals("linear")) {
            throw new IllegalArgumentException("--model must be linear, got '" + model + "'");
        }
        if (samples < 1 || features < 1) {
            throw new IllegalArgumentException("--samples and --features must be at least 1");
        }
        if (nodesMax != null && (nodesMax < 1 || nodesMax > 1 << 20)) {
            throw new IllegalArgumentException("--nodes-max must be in [1, 1048576], got " + nodesMax);
        }
        return switch (backend) {
            case "local" -> false;
            case "mpi" -> true;
            default -> throw new IllegalArgumentException("--backend must be local or mpi, got '" + backend + "'");
        };
    }

    /** The machine's fit with the gradient's cost, fixed cost and conversions measured on a synthetic workload. */
    private EpochModel epochModel(Allreduce.Machine machine) {
        EpochModel probe = Calibration.forWorkload(Calibration.synthetic(samples, features),
            TrainSpec.paper().withModel(new ModelSpec.Linear(intercept)).withEpochs(30).withLearningRate(1e-9)
                .withLossReduction(org.paratrain.train.LossReduction.MEAN)
                .withRun(TrainSpec.paper().run().withEpochs(30).withLossReduction(org.paratrain.train.LossReduction.MEAN)
                    .withBlockSize(blockSize)));
        return new EpochModel(machine, probe.secondsPerSampleParam(), probe.cores(), probe.fixedSeconds(),
            probe.conversion());
    }

    /** Writes plan.md, plan.csv and the figure into {@code --out}, all or none. */
    private void write(String text, List<Plan.Row> rows, List<String> labels) {
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(out)) {
            Path stage = staged.dir();
            AtomicFiles.writeText(stage.resolve("plan.md"), w -> w.write(text));
            AtomicFiles.writeText(stage.resolve("plan.csv"), w -> {
                w.write("nodes," + String.join(",", labels) + ",best,compute_seconds\n");
                for (Plan.Row r : rows) {
                    StringBuilder sb = new StringBuilder().append(r.nodes());
                    for (double t : r.seconds()) {
                        sb.append(',').append(t);
                    }
                    w.write(sb.append(',').append(Plan.label(r.best())).append(',').append(r.compute()).append('\n')
                        .toString());
                }
            });
            Plots.save(PlanPlot.plan(rows, labels, samples, features, PlanReport.unit(rows).name(),
                PlanReport.unit(rows).perSecond()), stage, "plan");
            staged.publish(List.of("plan.md", "plan.csv", "plan.png", "plan.svg"));
        }
    }

    /**
     * {@return the machine whose messages cross a link of {@code spec}: the link's latency and
     * bandwidth (8 bits a byte at the rate), the machine's own additions}
     * @param spec  RATE[,LATENCY], e.g. {@code 1gbit} or {@code 10gbit,20us}
     * @param local the machine's fit, whose gamma (a core's additions) the link leaves as it is
     * @throws IllegalArgumentException naming --link, for a rate or latency it cannot read
     */
    static Allreduce.Machine onLink(String spec, Allreduce.Machine local) {
        String[] parts = spec.split(",", -1);
        java.util.regex.Matcher rate = java.util.regex.Pattern.compile("([1-9][0-9]*)(kbit|mbit|gbit)")
            .matcher(parts[0].strip());
        java.util.regex.Matcher latency = java.util.regex.Pattern.compile("([0-9]+(\\.[0-9]+)?)(us|ms)")
            .matcher(parts.length > 1 ? parts[1].strip() : "50us");
        if (parts.length > 2 || !rate.matches() || !latency.matches()) {
            throw new IllegalArgumentException("--link must be RATE[,LATENCY] like 1gbit or 10gbit,20us (a rate in "
                + "kbit, mbit or gbit; a latency in us or ms), got '" + spec + "'");
        }
        double bits = Double.parseDouble(rate.group(1)) * switch (rate.group(2)) {
            case "kbit" -> 1e3;
            case "mbit" -> 1e6;
            default -> 1e9;
        };
        double alpha = Double.parseDouble(latency.group(1)) * (latency.group(3).equals("us") ? 1e-6 : 1e-3);
        return new Allreduce.Machine(alpha, 8 / bits, local.gamma());
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
}
