package org.paratrain.cli.experiment;

import java.util.List;
import java.util.Locale;

/**
 * analysis.md: what the measurements say, in numbers: where the time goes at each node
 * count, how communication grows with ranks, and from what work per rank two ranks beat
 * one on this machine.
 */
final class Analysis {
    private Analysis() { }

    static String markdown(String title, String setup, ScalingTable table, List<BreakEven.Point> breakEven,
                           int cores) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Analysis: ").append(title).append("\n\n").append(setup).append("\n\n");
        if (title.equals(PaperSetup.TITLE)) {
            paperSection(sb, table, breakEven);
        }
        timeSection(sb, table, cores);
        if (breakEven != null && !breakEven.isEmpty()) {
            breakEvenSection(sb, breakEven);
        }
        predictionSection(sb, table, cores);
        boolean same = table.rows().stream().allMatch(ScalingTable.Row::identicalBits);
        sb.append("## Reproducibility\n\n").append(same
            ? "Every run at every node count gave bit-identical final weights and loss (blocks are summed in a "
                + "fixed order, whatever the node count).\n"
            : "Not every run gave bit-identical results; see the 'same bits' column of the table.\n");
        return sb.toString();
    }

    /** The paper, its three findings, and what this run measured for each. */
    private static void paperSection(StringBuilder sb, ScalingTable table, List<BreakEven.Point> breakEven) {
        List<ScalingTable.Row> rows = table.rows();
        ScalingTable.Row first = rows.stream().min((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        ScalingTable.Row last = rows.stream().max((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        boolean same = rows.stream().allMatch(r -> r.identicalBits()
            && r.weight().mean() == first.weight().mean() && r.loss().mean() == first.loss().mean());
        BreakEven.Point pay = breakEven == null ? null : BreakEven.firstPaying(breakEven);
        sb.append("## The paper's findings, and this run\n\n").append("Reproduced: ").append(PaperSetup.CITATION)
            .append(".\n\n| the paper found | measured here |\n|---|---|\n");
        sb.append("| the final weight and loss are the same at every node count | ").append(same
            ? String.format(Locale.ROOT, "the same bits at %s nodes: weight %.10g, loss %.10g |%n", nodeList(rows),
                first.weight().mean(), first.loss().mean())
            : "not the same bits at every node count: see the table |\n");
        sb.append(String.format(Locale.ROOT, "| run time grows with the node count: communication dominates so small "
                + "a model | %.3f ms a run at %d %s, %.3f ms at %d (%.1fx) |%n", first.seconds().mean() * 1e3,
            first.nodes(), first.nodes() == 1 ? "node" : "nodes", last.seconds().mean() * 1e3, last.nodes(),
            last.seconds().mean() / first.seconds().mean()));
        sb.append("| for large models parallelism pays | ").append(pay != null
            ? String.format(Locale.ROOT, "2 ranks beat 1 from %d samples of this model on (%.2fx there) |%n",
                pay.samples(), pay.speedup())
            : breakEven == null ? "not measured in this run (--no-break-even) |\n"
            : "2 ranks did not beat 1 at any size measured here |\n");
        sb.append('\n');
    }

    private static String nodeList(List<ScalingTable.Row> rows) {
        return rows.stream().map(r -> Integer.toString(r.nodes())).collect(java.util.stream.Collectors.joining(", "));
    }

    private static void timeSection(StringBuilder sb, ScalingTable table, int cores) {
        List<ScalingTable.Row> rows = table.rows();
        sb.append("## Where the time goes\n\n");
        sb.append("| nodes | time/epoch (us) | compute (us) | communication (us) | communication share |\n");
        sb.append("|---:|---:|---:|---:|---:|\n");
        ScalingTable.Row best = rows.get(0);
        for (ScalingTable.Row r : rows) {
            double total = r.computeUs() + r.commUs();
            sb.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.0f%% |%n", r.nodes(), total,
                r.computeUs(), r.commUs(), 100 * r.commUs() / total));
            if (r.seconds().mean() < best.seconds().mean()) {
                best = r;
            }
        }
        ScalingTable.Row first = rows.stream().min((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        ScalingTable.Row last = rows.stream().max((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        sb.append('\n');
        sb.append(String.format(Locale.ROOT, "- From %d to %d nodes, compute per epoch on rank 0 goes from %.2f to "
                + "%.2f us, while communication goes from %.2f to %.2f us.%n", first.nodes(), last.nodes(),
            first.computeUs(), last.computeUs(), first.commUs(), last.commUs()));
        if (rows.size() >= 2) {
            sb.append(String.format(Locale.ROOT, "- Each extra rank adds about %.2f us of communication per epoch "
                + "(least-squares slope of communication time against node count): rank 0 handles 2(p-1) "
                + "incoming and p-1 outgoing messages one after another.%n", slope(rows)));
        }
        sb.append(String.format(Locale.ROOT, "- The fastest node count is %d (%.4f ms per run, speedup %.2f over "
            + "%d %s).%n", best.nodes(), best.seconds().mean() * 1e3, best.speedup(), first.nodes(),
            first.nodes() == 1 ? "node" : "nodes"));
        if (last.nodes() > cores) {
            sb.append(String.format(Locale.ROOT, "- This machine has %d cores: beyond %d ranks, ranks take turns on "
                + "the cores, so a rank's message waits until its receiver is scheduled.%n", cores, cores));
        }
        sb.append('\n');
    }

    private static void breakEvenSection(StringBuilder sb, List<BreakEven.Point> points) {
        sb.append("## When parallelism pays (measured)\n\n");
        sb.append("The same model and data generator at growing sample counts, time per epoch at 1 and 2 ranks of the "
            + "local backend "
            + "(best of 5 runs after a warm-up, since single runs on a shared machine are sometimes slowed by neighbours):\n\n");
        sb.append("| samples | samples per rank at 2 | 1 rank (us/epoch) | 2 ranks (us/epoch) | compute per rank at 2 "
            + "(us/epoch) | speedup |\n|---:|---:|---:|---:|---:|---:|\n");
        for (BreakEven.Point p : points) {
            sb.append(String.format(Locale.ROOT, "| %d | %d | %.2f | %.2f | %.2f | %.2f |%n", p.samples(),
                p.samples() / 2, p.oneRankUs(), p.twoRanksUs(), p.computePerRankUs(), p.speedup()));
        }
        BreakEven.Point pay = BreakEven.firstPaying(points);
        sb.append('\n');
        List<BreakEven.Point> won = points.stream().filter(p -> p.speedup() > 1.0).toList();
        if (won.isEmpty()) {
            sb.append("Two ranks did not beat one at any size measured.\n\n");
        } else if (pay == null) {
            BreakEven.Point top = won.stream().max((a, b) -> Double.compare(a.speedup(), b.speedup())).orElseThrow();
            sb.append(String.format(Locale.ROOT, "Two ranks beat one at %s samples (best: %.2fx at %d), but not at "
                    + "every size above the smallest of them, so no break-even point can be named: on a shared "
                    + "machine a neighbour's load can slow one measurement. Repeat the run to separate the two.%n%n",
                won.stream().map(p -> Integer.toString(p.samples())).collect(java.util.stream.Collectors.joining(", ")),
                top.speedup(), top.samples()));
        } else {
            sb.append(String.format(Locale.ROOT, "On this machine two ranks beat one from %d samples on (%d per "
                    + "rank, about %.1f us of computation per rank per epoch), with a speedup of %.2f there and "
                    + "%.2f at %d samples. Below that, the fixed cost of the exchange outweighs the halved "
                    + "computation.%n%n", pay.samples(), pay.samples() / 2, pay.computePerRankUs(), pay.speedup(),
                points.get(points.size() - 1).speedup(), points.get(points.size() - 1).samples()));
        }
    }

    private static void predictionSection(StringBuilder sb, ScalingTable table, int cores) {
        List<ScalingTable.Row> rows = table.rows().stream().filter(r -> !Double.isNaN(r.predictedSeconds())).toList();
        if (rows.isEmpty()) {
            return;
        }
        sb.append("## How good the cost model's predictions were\n\n");
        sb.append("The model (Hockney parameters fitted at 2 ranks just before the sweep, and the gradient's measured "
            + "cost) predicted each node count's run time before it was measured; the table has both. Errors are "
            + "against the median run.\n\n");
        for (boolean over : new boolean[] {false, true}) {
            List<ScalingTable.Row> part = rows.stream().filter(r -> (r.nodes() > cores) == over).toList();
            if (part.isEmpty()) {
                continue;
            }
            double[] err = part.stream().mapToDouble(r -> Math.abs(r.predictionError())).sorted().toArray();
            sb.append(String.format(Locale.ROOT, "- %s: median error %.0f%%, largest %.0f%% (at %s).%n",
                over ? "More ranks than cores (" + (cores + 1) + " and up)" : "Up to " + cores + " ranks (the cores)",
                100 * Statistics.median(err), 100 * err[err.length - 1], part.stream()
                    .max((a, b) -> Double.compare(Math.abs(a.predictionError()), Math.abs(b.predictionError())))
                    .map(r -> r.nodes() + " nodes").orElse("")));
        }
        sb.append("\nBeyond the cores the model only knows that ranks share them; the cost of switching between "
            + "ranks is not in it, which is where its error comes from.\n\n");
    }

    /** Least-squares slope of communication time per epoch against node count. */
    static double slope(List<ScalingTable.Row> rows) {
        double n = rows.size();
        double mx = rows.stream().mapToDouble(ScalingTable.Row::nodes).sum() / n;
        double my = rows.stream().mapToDouble(ScalingTable.Row::commUs).sum() / n;
        double sxy = 0;
        double sxx = 0;
        for (ScalingTable.Row r : rows) {
            sxy += (r.nodes() - mx) * (r.commUs() - my);
            sxx += (r.nodes() - mx) * (r.nodes() - mx);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }
}
