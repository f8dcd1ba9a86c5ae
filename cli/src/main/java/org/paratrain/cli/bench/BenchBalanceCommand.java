package org.paratrain.cli.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.cli.BackendOptions;
import org.paratrain.cli.ConsoleProgress;
import org.paratrain.cli.Main;
import org.paratrain.cli.OptionChecks;
import org.paratrain.cli.OutputPaths;
import org.paratrain.data.Dataset;
import org.paratrain.cli.experiment.Statistics;
import org.paratrain.train.Training;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.TrainSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench balance}: whether two ranks pay against one, on a short run, with
 * both cores free, with another process busy on one of them, and with one rank half as fast
 * as the other (a slower node: it computes its blocks twice); local ranks or MPI processes.
 *
 * <p>Every run is a fresh JVM (a child process), because what a short run costs is mostly
 * what happens in a new JVM: the JIT compiles the training loop while it runs. Each child
 * trains once (cold), counting the JIT's compilation time during that run, then trains the
 * same again three times in the same JVM (warm, the median kept). The busy process is
 * another JVM spinning one thread, started before and ended after each round's runs. 1 rank
 * runs with the first exchange named, 2 ranks with each: the paper's master-worker, whose
 * ranks each own a fixed share of the blocks, beside the shared step, whose ranks take blocks
 * as they are ready. With {@code --rebalance} each exchange but the shared step also runs with
 * block boundaries that follow the ranks' measured speeds.
 */
@Command(name = "balance", mixinStandardHelpOptions = true,
    description = {"Time 1 and 2 ranks on a short run: both cores free, one busy, or one rank half as fast.",
        "Linear regression, full batch, SAMPLES x FEATURES from bench kernels' generator; 2 ranks with each",
        "exchange of --allreduce (default: the paper's master-worker and the shared step), 1 rank with the first.",
        "Each run is a fresh JVM: its first training (cold, with the JIT's compilation time during it) and",
        "the median of three more in the same JVM (warm). 'busy': another process spins on one core",
        "meanwhile; 'slow': rank 1 computes its blocks twice (a node half as fast). --rebalance adds 2-rank",
        "runs whose block boundaries follow the ranks' speeds. Rounds alternate the runs; medians over the rounds."})
final class BenchBalanceCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--samples", defaultValue = "20000", description = "Samples (default ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--features", defaultValue = "10", description = "Features (default ${DEFAULT-VALUE}).")
    int features;

    @Option(names = "--epochs", defaultValue = "3000", description = "Epochs a run (default ${DEFAULT-VALUE}).")
    int epochs;

    @Option(names = "--rounds", defaultValue = "5", description = "Runs of each rank count and mode (default ${DEFAULT-VALUE}).")
    int rounds;

    // Split here, not by picocli, which drops a trailing empty name ("free,") unseen.
    @Option(names = "--modes", defaultValue = "free,busy", paramLabel = "MODE[,MODE...]",
        description = "free (both cores free), busy (another process spinning on one core), slow (rank 1 computes "
            + "its blocks twice, as a node half as fast would take), comma-separated (default ${DEFAULT-VALUE}).")
    List<String> modeNames;

    @Option(names = "--backend", defaultValue = "local",
        description = "local (ranks are threads of one JVM) or mpi (each run an MPI job) (default ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--rebalance", defaultValue = "0", paramLabel = "STEPS|auto", description = "Also run each "
        + "exchange but shared at 2 ranks with train's --rebalance STEPS or auto: block boundaries that follow the "
        + "ranks' measured speeds; 0 (default): not.")
    String rebalanceText;
    /** {@link #rebalanceText} parsed. */
    private int rebalance;

    @Option(names = "--allreduce", split = ",", defaultValue = "master-worker,shared", description = "The exchanges "
        + "of the 2-rank runs, comma-separated: master-worker (the paper's), shared (local: ranks take blocks as they "
        + "are ready), star, tree, recursive-doubling, ring, rabenseifner, native (mpi: MPI's own); 1 rank runs with "
        + "the first (default ${DEFAULT-VALUE}; with --backend mpi, master-worker).")
    List<String> exchanges;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Option(names = "--out", defaultValue = "results/bench-balance", description = "Where the table goes as "
        + "balance.csv, .json and .md, with the times plotted as balance.png and .svg (default ${DEFAULT-VALUE}).")
    Path outDir;

    /** Both cores free, another process busy on one, or rank 1 half as fast. */
    enum Mode { FREE, BUSY, SLOW }

    /** One child's figures: seconds of the cold run, ms the JIT compiled during it, seconds of a warm run. */
    record Run(double coldSeconds, double compileMs, double warmSeconds, double loss) { }

    /** The medians of one mode, rank count and exchange. */
    record Row(Mode mode, int ranks, String exchange, double coldSeconds, double coldMin, double coldMax,
               double compileMs, double warmSeconds) { }

    /** What one child runs: a rank count, an exchange and its window for moving the split (0: even split). */
    record Setup(int ranks, String exchange, int rebalance) {
        /** {@return the exchange as the table names it, with its rebalancing if any} */
        String label() {
            return rebalance == 0 ? exchange : exchange + ", rebalance " + text(rebalance);
        }
    }

    @Override
    public void run() {
        OptionChecks.range("--samples", samples, 8, Integer.MAX_VALUE);
        OptionChecks.range("--features", features, 1, Integer.MAX_VALUE);
        OptionChecks.range("--epochs", epochs, 1, Integer.MAX_VALUE);
        OptionChecks.range("--rounds", rounds, 1, 1000);
        try {
            rebalance = org.paratrain.train.spec.RunSpec.parseRebalance(rebalanceText);
        } catch (org.paratrain.train.spec.SpecException e) {
            throw new IllegalArgumentException("--rebalance " + e.requirement());
        }
        if (rebalance > 0) {
            OptionChecks.range("--rebalance", rebalance, 1, org.paratrain.train.spec.RunSpec.MAX_REBALANCE);
        }
        if (!backend.equals("local") && !backend.equals("mpi")) {
            throw new IllegalArgumentException("--backend must be local or mpi, got '" + backend + "'");
        }
        if (mpi() && !spec.commandLine().getParseResult().hasMatchedOption("--allreduce")) {
            exchanges = List.of("master-worker");
        }
        if ((long) samples * features > org.paratrain.data.HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--samples x --features make " + (long) samples * features
                + " values, more than one array holds");
        }
        OutputPaths.directory("--out", outDir);
        List<Mode> modes = modes();
        List<Setup> setups = setups();
        if (rebalance != 0 && setups.stream().noneMatch(s -> s.rebalance() != 0)) {
            throw new IllegalArgumentException("--rebalance adds runs of the exchanges other than shared (which "
                + "balances by itself), and --allreduce names only shared");
        }
        Map<Mode, List<List<Run>>> runs = measure(modes, setups);
        List<Row> rows = new ArrayList<>();
        for (Mode m : modes) {
            for (int i = 0; i < setups.size(); i++) {
                rows.add(row(m, setups.get(i), runs.get(m).get(i)));
            }
        }
        Map<String, Double> loss = sameLoss(runs, setups);
        BalanceReport.print(spec.commandLine().getOut(), rows, samples, features, epochs, rounds, loss, backend);
        BalanceReport.write(outDir, rows, samples, features, epochs, rounds, loss, backend);
    }

    private boolean mpi() {
        return backend.equals("mpi");
    }

    /** 1 rank with the first exchange, then 2 ranks with each (and each rebalanced, if asked). */
    private List<Setup> setups() {
        List<Setup> setups = new ArrayList<>();
        for (String e : exchanges) {
            String name = e.strip();
            boolean known = name.equals("master-worker") || org.paratrain.collective.Allreduces.portableNames()
                .contains(name) || (mpi() ? name.equals("native") : name.equals("shared"));
            if (!known) {
                throw new IllegalArgumentException("--allreduce must name exchanges of the " + backend + " backend to "
                    + "time: master-worker, " + (mpi() ? "" : "shared, ")
                    + String.join(", ", org.paratrain.collective.Allreduces.portableNames()) + (mpi() ? ", native" : "")
                    + ", got '" + name + "'");
            }
            if (setups.isEmpty()) {
                setups.add(new Setup(1, name, 0));
            }
            if (!setups.contains(new Setup(2, name, 0))) {
                setups.add(new Setup(2, name, 0));
                if (rebalance != 0 && !name.equals("shared")) {
                    setups.add(new Setup(2, name, rebalance));
                }
            }
        }
        return setups;
    }

    /** Every round: each mode (the busy process running through its runs), each setup in turn. */
    private Map<Mode, List<List<Run>>> measure(List<Mode> modes, List<Setup> setups) {
        Map<Mode, List<List<Run>>> runs = new EnumMap<>(Mode.class);
        for (Mode m : modes) {
            List<List<Run>> each = new ArrayList<>();
            setups.forEach(s -> each.add(new ArrayList<>()));
            runs.put(m, each);
        }
        int total = rounds * modes.size() * setups.size();
        try (ConsoleProgress progress = new ConsoleProgress(quiet)) {
            int done = 0;
            for (int r = 0; r < rounds; r++) {
                for (Mode m : modes) {
                    try (BusyProcess busy = m == Mode.BUSY ? BusyProcess.start() : null) {
                        for (int i = 0; i < setups.size(); i++) {
                            runs.get(m).get(i).add(child(setups.get(i), m));
                            progress.update("bench balance", ++done, total);
                        }
                    }
                }
            }
        }
        return runs;
    }

    /**
     * The same training's final loss in this JVM, by exchange, which every run, at 1 and 2 ranks,
     * must end with to the bit (each exchange's own: a sum by block and a fixed-point sum may
     * differ in the last bits).
     */
    private Map<String, Double> sameLoss(Map<Mode, List<List<Run>>> runs, List<Setup> setups) {
        Dataset data = KernelData.generate(samples, features);
        Map<String, Double> losses = new java.util.LinkedHashMap<>();
        for (int i = 0; i < setups.size(); i++) {
            Setup s = setups.get(i);
            // MPI's own allreduce with a sum gives the bits of any other allreduce with that sum (star here).
            double loss = losses.computeIfAbsent(s.exchange(),
                e -> Training.local(data, training(samples, epochs, 1, e.equals("native") ? "star" : e)).finalLoss());
            int at = i;
            double[] others = runs.values().stream().flatMap(l -> l.get(at).stream()).mapToDouble(Run::loss)
                .filter(l -> Double.doubleToRawLongBits(l) != Double.doubleToRawLongBits(loss)).distinct().toArray();
            if (others.length > 0) {
                throw new org.paratrain.comm.BackendException("bench balance: runs at " + s.ranks() + " rank(s) with "
                    + s.label() + " ended with final losses " + java.util.Arrays.toString(others) + " instead of "
                    + loss + ", the same training's in this JVM");
            }
        }
        return losses;
    }

    private List<Mode> modes() {
        List<Mode> modes = new ArrayList<>();
        String given = String.join(",", modeNames);
        for (String name : given.split(",", -1)) {
            if (name.isBlank()) {
                throw new IllegalArgumentException("--modes: an empty name in '" + given
                    + "'; give free, busy or slow, comma-separated");
            }
            Mode m = switch (name.strip().toLowerCase(Locale.ROOT)) {
                case "free" -> Mode.FREE;
                case "busy" -> Mode.BUSY;
                case "slow" -> Mode.SLOW;
                default -> throw new IllegalArgumentException("--modes: '" + name + "' is not free, busy or slow");
            };
            if (modes.contains(m)) {
                throw new IllegalArgumentException("--modes: '" + name.strip() + "' is named twice in '" + given
                    + "'");
            }
            modes.add(m);
        }
        modes.sort(null);
        return modes;
    }

    private static Row row(Mode m, Setup setup, List<Run> runs) {
        double[] cold = runs.stream().mapToDouble(Run::coldSeconds).toArray();
        double[] compile = runs.stream().mapToDouble(Run::compileMs).toArray();
        double[] warm = runs.stream().mapToDouble(Run::warmSeconds).toArray();
        return new Row(m, setup.ranks(), setup.label(), Statistics.median(cold), java.util.Arrays.stream(cold).min().orElseThrow(),
            java.util.Arrays.stream(cold).max().orElseThrow(), Statistics.median(compile), Statistics.median(warm));
    }

    /** How long one run may take before it is taken for hung. */
    private static final java.time.Duration CHILD_LIMIT = java.time.Duration.ofMinutes(10);

    /**
     * Runs {@link BalanceRun} in a new JVM with this JVM's options (an MPI job of as many processes
     * as ranks, with {@code --backend mpi}); returns what it printed.
     */
    private Run child(Setup setup, Mode mode) {
        List<String> args = List.of("bench", "balance-run", "--samples", Integer.toString(samples), "--features",
            Integer.toString(features), "--epochs", Integer.toString(epochs), "--nodes", Integer.toString(setup.ranks()),
            "--allreduce", setup.exchange(), "--rebalance", text(setup.rebalance()), "--backend", backend,
            "--slow", mode == Mode.SLOW && setup.ranks() > 1 ? "2" : "1");
        String out = mpi() ? mpiJob(setup.ranks(), args)
            : ChildJvm.output("bench balance: a run", CHILD_LIMIT, args.toArray(String[]::new));
        try {
            return new Run(value(out, "cold_s"), value(out, "compile_ms"), value(out, "warm_s"),
                Double.longBitsToDouble(Long.parseUnsignedLong(text(out, "loss_bits"), 16)));
        } catch (NumberFormatException e) {
            throw new org.paratrain.comm.BackendException("bench balance: a run printed what is not a figure: "
                + out.strip());
        }
    }

    /** Runs {@code args} as an MPI job of {@code ranks} processes, for at most {@link #CHILD_LIMIT}; its output. */
    private static String mpiJob(int ranks, List<String> args) {
        return ChildJvm.outputOf("bench balance: an MPI run", CHILD_LIMIT, org.paratrain.train.Backend.mpiJobCommand(
            new org.paratrain.comm.JobLaunch(ranks, null, List.of(), BackendOptions.javaOptions()),
            Main.class.getName(), args));
    }

    private static double value(String out, String key) {
        try {
            return Double.parseDouble(text(out, key));
        } catch (NumberFormatException e) {
            throw new org.paratrain.comm.BackendException("bench balance: a run printed what is not a figure for "
                + key + ": " + out.strip());
        }
    }

    /** The text after {@code key} on the child's line that starts with it. */
    private static String text(String out, String key) {
        return out.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length()).strip()).findFirst()
            .orElseThrow(() -> new org.paratrain.comm.BackendException("bench balance: a run printed no " + key + ": "
                + out.strip()));
    }

    /** The data and training every run does: full-batch linear regression, the paper's exchange. */
    static TrainSpec training(int samples, int epochs, int ranks, String exchange) {
        // The Hessian's largest eigenvalue is about 2n/3 for these data (as in bench kernels).
        return TrainSpec.paper().withModel(new ModelSpec.Linear(false)).withEpochs(epochs)
            .withLearningRate(0.5 / samples).withNodes(ranks).withExchange(ExchangeSpec.parse(exchange));
    }

    /** {@code --rebalance}'s value as the command line writes it. */
    static String text(int rebalance) {
        return rebalance == org.paratrain.train.spec.RunSpec.REBALANCE_AUTO ? "auto" : Integer.toString(rebalance);
    }

    /** The data and training of one run, with its rebalancing. */
    static TrainSpec training(int samples, int epochs, int ranks, String exchange, int rebalance) {
        return training(samples, epochs, ranks, exchange).withRebalance(rebalance);
    }
}
