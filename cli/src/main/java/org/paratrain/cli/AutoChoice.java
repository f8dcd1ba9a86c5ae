package org.paratrain.cli;

import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.spec.ExchangeSpec;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.BlockSharding;
import org.paratrain.data.Dataset;
import org.paratrain.cli.experiment.Calibration;
import org.paratrain.cli.experiment.Plan;
import org.paratrain.train.EpochModel;

/**
 * {@code --nodes auto} and {@code --allreduce auto}: the node count (up to the cores) and the
 * exchange with the lowest time per epoch predicted by the cost model, calibrated now.
 */
final class AutoChoice {
    private AutoChoice() { }

    static TrainSpec resolve(TrainSpec spec, boolean autoNodes, Dataset data, boolean mpi, PrintWriter out) {
        return resolve(spec, autoNodes, data, mpi, false, out);
    }

    /**
     * As above; with {@code exchangeOnRanks} (MPI, {@code --allreduce auto}) only the node count is
     * said, as the ranks measure the exchange on their links ({@link LinkAuto}) and the caller keeps auto.
     */
    static TrainSpec resolve(TrainSpec spec, boolean autoNodes, Dataset data, boolean mpi, boolean exchangeOnRanks,
                             PrintWriter out) {
        int params = org.paratrain.cli.experiment.Calibration.exchanged(data, spec);
        BlockSharding sharding = Plan.sharding(data.samples(), spec.run().blockSize());
        TrainSpec config = autoNodes ? spec.withNodes(1) : spec;
        EpochModel model = Calibration.forWorkload(data, config);
        // Each candidate carries its sum: auto with --sum float is costed as float, not as the default.
        List<ExchangeSpec> exchanges = spec.exchange().isAuto()
            ? new ArrayList<>(Plan.candidatesOn(mpi, spec.exchange().sum(), false)) : List.of(spec.exchange());
        if (spec.exchange().isAuto() && spec.model() instanceof org.paratrain.train.spec.ModelSpec.Cnn c
            && c.normalises()) {
            // Batchnorm sums statistics over each rank's own blocks: not the shared step's handed-out ones.
            exchanges.removeIf(x -> x.scheme() == ExchangeSpec.Scheme.SHARED);
        }
        Plan.Row chosen = autoNodes
            ? Plan.fastest(Plan.rows(model, data.samples(), spec.run().blockSize(), params, exchanges,
                Integer.highestOneBit(model.cores())))
            : Plan.row(model, sharding, params, exchanges, config.nodes());
        if (exchangeOnRanks) {
            out.printf(Locale.ROOT, "auto: %s (predicted %s per epoch; the ranks will measure the exchange)%n",
                Formats.count(chosen.nodes(), "node"), Formats.duration(chosen.bestSeconds()));
        } else {
            out.printf(Locale.ROOT, "auto: %s, %s (predicted %s per epoch)%n", Formats.count(chosen.nodes(), "node"),
                Plan.label(chosen.best()), Formats.duration(chosen.bestSeconds()));
        }
        TrainSpec resolved = spec.withNodes(chosen.nodes()).withExchange(chosen.best());
        if (resolved.run().rebalancing() && chosen.best().scheme() == ExchangeSpec.Scheme.SHARED) {
            // The shared step hands blocks out as ranks are ready: there are no boundaries to move.
            out.println("auto: --rebalance does not apply to shared, which balances by itself");
            return resolved.withRebalance(0);
        }
        return resolved;
    }

    /** The command line with the chosen values in place of auto, for the ranks of an MPI job. */
    static List<String> replace(List<String> args, TrainSpec config) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if ((a.equals("--nodes") || a.equals("--allreduce")) && i + 1 < args.size()) {
                out.add(a);
                out.add(a.equals("--nodes") ? Integer.toString(config.nodes()) : config.exchange().label());   // auto stays auto
                i++;
            } else if (a.startsWith("--nodes=")) {
                out.add("--nodes=" + config.nodes());
            } else if (a.startsWith("--allreduce=")) {
                out.add("--allreduce=" + config.exchange().label());
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** The run's settings after what auto decided, and the command line as it would be written out. */
    record Chosen(TrainSpec spec, List<String> args) { }

    /**
     * Resolves {@code auto}: on an MPI rank, the exchange measured on the job's links; in the
     * launcher or a local run, the node count (and a local run's exchange) from the cost model,
     * the command line rewritten with the choice; a launcher checks an auto exchange can run
     * before any rank starts.
     */
    static Chosen choose(TrainCommand c, TrainSpec spec, List<String> args, Dataset data, int classes, boolean mpi,
                         boolean child, boolean autoNodes) {
        if (child && spec.exchange().isAuto()) {
            // The ranks time the exchanges on the job's own links, and all take the fastest.
            spec = LinkAuto.resolve(spec, data.features(), classes, data.samples(), c.out());
        } else if (autoNodes || spec.exchange().isAuto() && !mpi) {
            ExchangeSpec asked = spec.exchange();
            spec = AutoChoice.resolve(spec, autoNodes, data, mpi, mpi && spec.exchange().isAuto(), c.out());
            if (mpi && asked.isAuto()) {
                // Only the node count is decided here: the exchange is measured by the ranks, on their links.
                spec = spec.withExchange(asked);
            }
            args = AutoChoice.replace(args, spec);
        }
        if (mpi && !child && spec.exchange().isAuto()) {
            LinkAuto.check(spec, data.features(), classes, data.samples());     // before any rank starts
        }
        return new Chosen(spec, args);
    }
}
