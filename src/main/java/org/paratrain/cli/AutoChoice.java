package org.paratrain.cli;

import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.spec.ExchangeSpec;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.Calibration;
import org.paratrain.experiment.Plan;
import org.paratrain.train.EpochModel;

/**
 * {@code --nodes auto} and {@code --allreduce auto}: the node count (up to the cores) and the
 * exchange with the lowest time per epoch predicted by the cost model, calibrated now.
 */
final class AutoChoice {
    private AutoChoice() { }

    static TrainSpec resolve(TrainSpec spec, boolean autoNodes, Dataset data, boolean mpi, PrintWriter out) {
        int params = data.features() + (spec.model().intercept() ? 1 : 0);
        int blockSize = spec.run().blockSize();
        TrainSpec config = autoNodes ? spec.withNodes(1) : spec;
        EpochModel model = Calibration.forWorkload(data, config);
        List<String> exchanges = spec.exchange().isAuto() ? EpochModel.candidates(mpi, spec.exchange().sum())
            : List.of(spec.exchange().label());
        int maxNodes = autoNodes ? Integer.highestOneBit(model.cores()) : config.nodes();
        List<Plan.Row> rows = Plan.rows(model, data.samples(), blockSize, params, exchanges, maxNodes);
        Plan.Row chosen = autoNodes ? Plan.fastest(rows) : rows.stream()
            .filter(r -> r.nodes() == config.nodes()).findFirst()
            .orElseGet(() -> Plan.rows(model, data.samples(), blockSize, params, exchanges,
                config.nodes()).getLast());
        if (!autoNodes && chosen.nodes() != config.nodes()) {
            // Node counts that are not powers of two: rank the exchanges at exactly that count.
            chosen = single(model, data, config, params, exchanges);
        }
        out.printf(Locale.ROOT, "auto: %s, %s (predicted %s per epoch)%n", Formats.count(chosen.nodes(), "node"),
            chosen.best(), Formats.duration(chosen.bestSeconds()));
        return spec.withNodes(chosen.nodes()).withExchange(spec.exchange().chosen(chosen.best()));
    }

    private static Plan.Row single(EpochModel model, Dataset data, TrainSpec config, int params, List<String> ex) {
        int blockSize = config.run().blockSize();
        var sharding = blockSize == 0 ? org.paratrain.data.BlockSharding.byDefault(data.samples())
            : new org.paratrain.data.BlockSharding(data.samples(), blockSize);
        String best = model.fastestExchange(ex, config.nodes(), sharding, params);
        return new Plan.Row(config.nodes(), new double[0], best,
            model.epochSeconds(best, config.nodes(), sharding, params), 0);
    }

    /** The command line with the chosen values in place of auto, for the ranks of an MPI job. */
    static List<String> replace(List<String> args, TrainSpec config) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if ((a.equals("--nodes") || a.equals("--allreduce")) && i + 1 < args.size()) {
                out.add(a);
                out.add(a.equals("--nodes") ? Integer.toString(config.nodes()) : config.exchange().label());
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
}
