package org.paratrain.cli;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.paratrain.collective.Allreduce;
import org.paratrain.cli.experiment.Plan;
import org.paratrain.train.EpochModel;
import org.paratrain.train.cost.ConversionRates;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.ExchangeSpec.Sum;

/** The text of {@code plan}: the model it used, the sum each exchange assumes, the table and the choice. */
final class PlanReport {
    private PlanReport() { }

    /** The planned workload: its shape and the block size asked for (0: the default). */
    record Workload(int samples, int features, int params, int blockSize) { }

    /** A unit of time for a table: its name and how many of it make a second. */
    record Unit(String name, double perSecond) {
        String format(double seconds) {
            return String.format(Locale.ROOT, "%.4g", seconds * perSecond);
        }
    }

    /** {@return the unit in which the median predicted time reads between 1 and 1000: ns, us, ms or s} */
    static Unit unit(List<Plan.Row> rows) {
        double[] all = rows.stream().flatMapToDouble(r -> java.util.Arrays.stream(r.seconds())).sorted().toArray();
        double median = all[all.length / 2];
        return median < 1e-6 ? new Unit("ns", 1e9) : median < 1e-3 ? new Unit("us", 1e6)
            : median < 1 ? new Unit("ms", 1e3) : new Unit("s", 1);
    }

    static String markdown(Workload w, List<Plan.Row> rows, List<ExchangeSpec> exchanges, EpochModel em,
                           boolean capped, PlanCheck.Result check) {
        StringBuilder sb = new StringBuilder();
        Allreduce.Machine m = em.machine();
        sb.append(String.format(Locale.ROOT, "# Plan: linear regression, %d samples x %d features (%d parameters)%n%n"
                + "Model: alpha %.3f us, beta %.3f ns/B, gamma %.3f ns/B; gradient %.3f ns per sample and parameter; "
                + "%.3f us fixed per epoch; %d cores (beyond them ranks share cores, so compute stops shrinking).%n%n",
            w.samples(), w.features(), w.params(), m.alpha() * 1e6, m.beta() * 1e9, m.gamma() * 1e9,
            em.secondsPerSampleParam() * 1e9, em.fixedSeconds() * 1e6, em.cores()));
        sums(sb, w, exchanges, em.conversion());
        Unit unit = unit(rows);
        if (capped) {
            sb.append(String.format(Locale.ROOT, "Node counts up to %d, the default for this backend (--nodes-max "
                + "plans for more).%n%n", rows.get(rows.size() - 1).nodes()));
        }
        table(sb, rows, exchanges, unit);
        choice(sb, w, rows, exchanges, em, unit);
        checked(sb, check, unit);
        return sb.toString();
    }

    /** What each sum among the exchanges sends and converts, as the costs assume it. */
    private static void sums(StringBuilder sb, Workload w, List<ExchangeSpec> exchanges, ConversionRates rates) {
        Set<Sum> sums = new LinkedHashSet<>();
        exchanges.forEach(e -> sums.add(e.sum()));
        int blocks = Plan.sharding(w.samples(), w.blockSize()).blocks();
        sb.append("Each exchange is costed with the sum named after its slash:\n");
        for (Sum s : sums) {
            ConversionRates.Conversion c = rates.of(s);
            sb.append("- ").append(s.label()).append(": ").append(switch (s) {
                case BLOCKS -> String.format(Locale.ROOT, "the table of %d blocks x %d values, %d doubles, reduced "
                    + "and added in block order", blocks, w.params() + 1, (long) blocks * (w.params() + 1));
                case FLOAT -> "1 double a value, each rank's rows added first";
                case FIXED_1, FIXED_2, FIXED_HALF -> String.format(Locale.ROOT, "%s a value, plus a maximum "
                    + "allreduce of 2 words a step (the grid's exponents); deposit %.3f ns and read-back %.3f ns a "
                    + "value, and %.3f ns to observe it where the grid is agreed every step (sharded, shared; "
                    + "measured)", s == Sum.FIXED_1 ? "one 64-bit word" : s == Sum.FIXED_2 ? "two 64-bit words"
                    : "half a 64-bit word (a 32-bit lane)",
                    c.depositSeconds() * 1e9, c.readoutSeconds() * 1e9, c.observeSeconds() * 1e9);
            }).append('\n');
        }
        if (exchanges.stream().anyMatch(e -> e.scheme() == ExchangeSpec.Scheme.SHARDED)) {
            sb.append("- +shard: the sharded optimizer (--shard-optimizer): a reduce-scatter of the words, each rank "
                + "reads back its chunk, an allgather of the parameters\n");
        }
        if (exchanges.stream().anyMatch(e -> e.scheme() == ExchangeSpec.Scheme.SHARED)) {
            sb.append("- shared: local ranks take a step's blocks as they are ready and the last to finish sums every "
                + "row from memory (no messages; one hand-off, alpha); no rank waits for one off its core\n");
        }
        sb.append('\n');
    }

    private static void table(StringBuilder sb, List<Plan.Row> rows, List<ExchangeSpec> exchanges, Unit unit) {
        sb.append("| nodes | ");
        exchanges.forEach(e -> sb.append(Plan.label(e)).append(" (").append(unit.name()).append(") | "));
        sb.append("best | speedup |\n|---:|").append("---:|".repeat(exchanges.size())).append("---|---:|\n");
        double t1 = rows.get(0).bestSeconds();
        for (Plan.Row r : rows) {
            sb.append("| ").append(r.nodes()).append(" | ");
            for (double t : r.seconds()) {
                sb.append(unit.format(t)).append(" | ");
            }
            sb.append(Plan.label(r.best())).append(String.format(Locale.ROOT, " | %.2f |%n", t1 / r.bestSeconds()));
        }
    }

    private static void choice(StringBuilder sb, Workload w, List<Plan.Row> rows, List<ExchangeSpec> exchanges,
                               EpochModel em, Unit unit) {
        double t1 = rows.get(0).bestSeconds();
        Plan.Row best = Plan.fastest(rows);
        sb.append(String.format(Locale.ROOT, "%nBest: %d %s with %s (train %s), %s %s per epoch, a predicted "
            + "speedup of %.2f over 1 node.%n", best.nodes(), best.nodes() == 1 ? "node" : "nodes",
            Plan.label(best.best()), Plan.options(best.best()), unit.format(best.bestSeconds()), unit.name(),
            t1 / best.bestSeconds()));
        if (best.nodes() == 1) {
            sb.append("No node count beats 1: the exchange costs more than the computation it would share.\n");
        }
        long even = Plan.breakEven(em, w.params(), exchanges, rows.get(rows.size() - 1).nodes());
        sb.append(even < 0 ? "Break-even: p > 1 is not predicted to pay up to 2^30 samples with these features.\n"
            : String.format(Locale.ROOT, "Break-even: with %d features, p > 1 is predicted to pay from about %d "
                + "samples (%d per rank at 2 ranks).%n", w.features(), even, even / 2));
    }

    /** The check against a run, and what it means for the break-even above. */
    private static void checked(StringBuilder sb, PlanCheck.Result c, Unit unit) {
        if (c == null) {
            sb.append("\nNot checked against a run: MPI ranks are processes this command does not start "
                + "(paper --backend mpi measures them).\n");
            return;
        }
        if (c.skipped() != null) {
            sb.append("\nNot checked against a run: ").append(c.skipped()).append(".\n");
            return;
        }
        sb.append(String.format(Locale.ROOT, "%nChecked now on this machine (this workload's shape, best of 3): "
                + "1 rank %s %s per epoch (predicted %s, %s), 2 ranks with %s %s %s (predicted %s, %s).%n",
            unit.format(c.oneMeasured()), unit.name(), unit.format(c.onePredicted()),
            error(c.onePredicted(), c.oneMeasured()), Plan.label(c.exchange()), unit.format(c.twoMeasured()),
            unit.name(), unit.format(c.twoPredicted()), error(c.twoPredicted(), c.twoMeasured())));
        double measured = c.oneMeasured() / c.twoMeasured();
        double predicted = c.onePredicted() / c.twoPredicted();
        sb.append(String.format(Locale.ROOT, "Measured speedup at 2 ranks %.2f, predicted %.2f.", measured, predicted));
        if (c.twoMeasured() > 1.25 * c.twoPredicted()) {
            sb.append(" Two ranks cost more here than the model says: it leaves out waking a rank that waits, "
                + "cores of unequal speed and other load, so the break-even measured by paper (analysis.md, "
                + "\"When parallelism pays\") lies above this predicted one.");
        }
        sb.append('\n');
    }

    private static String error(double predicted, double measured) {
        return String.format(Locale.ROOT, "%+.0f%%", (predicted / measured - 1) * 100);
    }
}
