package org.paratrain.cli.experiment;

import java.awt.Color;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The figure of {@code plan}: predicted time per epoch against node count, one line per distinct cost. */
public final class PlanPlot {
    private PlanPlot() { }

    /**
     * Predicted time per epoch against node count, one line per exchange in colours told apart
     * easily (the Tableau 10 palette), and the best choice marked with a large square. Exchanges
     * whose predictions agree within 1% at every node count share one line and one legend
     * entry, so that no line hides another.
     *
     * @param rows      the plan's prediction at each node count
     * @param exchanges labels of the exchanges ({@link Plan#label}), in the order of each row's times
     * @param samples   samples of the planned workload, for the title
     * @param features  features of the planned workload, for the title
     * @param unit      the unit of time on the axis (ns, us, ms, s)
     * @param perSecond how many of {@code unit} make a second
     * @return the chart, for {@link Plots#save}
     */
    public static XYChart plan(List<Plan.Row> rows, List<String> exchanges, int samples, int features, String unit,
                               double perSecond) {
        double lo = rows.stream().flatMapToDouble(r -> java.util.Arrays.stream(r.seconds())).min().orElse(1);
        double hi = rows.stream().flatMapToDouble(r -> java.util.Arrays.stream(r.seconds())).max().orElse(1);
        boolean log = hi / lo > 20;      // a log axis spanning less than a decade or so shows no labels
        XYChart c = Plots.xy("Predicted time per epoch, " + samples + " samples x " + features
                + (features == 1 ? " feature" : " features"),
            "nodes (ranks, log2 scale)", "time per epoch (" + unit + (log ? ", log scale)" : ")"));
        double[] x = rows.stream().mapToDouble(r -> Plots.log2(r.nodes())).toArray();
        List<List<Integer>> groups = coinciding(rows, exchanges.size());
        for (int g = 0; g < groups.size(); g++) {
            int k = groups.get(g).get(0);
            XYSeries s = c.addSeries(groupLabel(groups.get(g), exchanges), x,
                rows.stream().mapToDouble(r -> r.seconds()[k] * perSecond).toArray());
            s.setMarker(SeriesMarkers.CIRCLE);
            s.setLineColor(Plots.TABLEAU[g % Plots.TABLEAU.length]);
            s.setMarkerColor(Plots.TABLEAU[g % Plots.TABLEAU.length]);
        }
        Plan.Row best = Plan.fastest(rows);
        XYSeries b = c.addSeries(String.format(Locale.ROOT, "best: %d %s, %s", best.nodes(),
            best.nodes() == 1 ? "node" : "nodes", Plan.label(best.best())), new double[] {Plots.log2(best.nodes())},
            new double[] {best.bestSeconds() * perSecond});
        b.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        b.setMarker(SeriesMarkers.SQUARE);
        b.setMarkerColor(Color.BLACK);
        c.getStyler().setYAxisLogarithmic(log);
        c.getStyler().setxAxisTickLabelsFormattingFunction(Plots::powerOfTwoLabel);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        return c;
    }

    /** Exchanges (by index) in groups whose predicted times agree within 1% at every node count, first seen first. */
    static List<List<Integer>> coinciding(List<Plan.Row> rows, int exchanges) {
        List<List<Integer>> groups = new java.util.ArrayList<>();
        for (int i = 0; i < exchanges; i++) {
            int k = i;
            java.util.Optional<List<Integer>> same = groups.stream().filter(g -> rows.stream().allMatch(r ->
                Math.abs(r.seconds()[g.get(0)] - r.seconds()[k]) <= 0.01 * Math.max(r.seconds()[g.get(0)],
                    r.seconds()[k]))).findFirst();
            if (same.isPresent()) {
                same.get().add(i);
            } else {
                groups.add(new java.util.ArrayList<>(List.of(i)));
            }
        }
        return groups;
    }

    /** "star, ring, ring+shard (fixed:1)" for labels that share their sum, else the labels joined. */
    private static String groupLabel(List<Integer> group, List<String> labels) {
        List<String> names = group.stream().map(labels::get).toList();
        String suffix = names.get(0).contains("/") ? names.get(0).substring(names.get(0).indexOf('/')) : "";
        if (names.size() > 1 && !suffix.isEmpty() && names.stream().allMatch(n -> n.endsWith(suffix))) {
            return String.join(", ", names.stream().map(n -> n.substring(0, n.length() - suffix.length())).toList())
                + " (" + suffix.substring(1) + ")";
        }
        return String.join(", ", names);
    }
}
