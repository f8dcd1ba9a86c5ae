package org.paratrain.cli.experiment;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.paratrain.data.Dataset;
import org.paratrain.io.AtomicFiles;

/**
 * The figures of a report, drawn with XChart and saved as PNG and SVG. Every axis says
 * what it shows and in which unit; fonts are sized to be read at a glance.
 */
public final class Plots {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Plots() { }

    /** A line y = w x + b, labelled, for {@link #fits}. */
    record Line(String label, double w, double b) { }

    /** The data set: y against x (one feature). */
    static XYChart data(Dataset d, String title) {
        XYChart c = xy(title, "x (feature value)", "y (target value)");
        scatter(c, d);
        return c;
    }

    /** The data set with one or more fitted lines over it. */
    static XYChart fits(Dataset d, String title, List<Line> lines) {
        XYChart c = xy(title, "x (feature value)", "y (target value)");
        scatter(c, d);
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : d.x()) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        for (Line l : lines) {
            XYSeries s = c.addSeries(l.label(), new double[] {lo, hi}, new double[] {l.w() * lo + l.b(), l.w() * hi + l.b()});
            s.setMarker(SeriesMarkers.NONE);
            s.setLineWidth(3f);
        }
        return c;
    }

    /** Run time against node count (log2 axis), mean with standard-deviation bars, beside ideal scaling. */
    static XYChart scaling(List<ScalingTable.Row> rows, String title) {
        XYChart c = xy(title, "nodes (ranks)", "run time (ms, log scale)");
        int n = rows.size();
        double[] x = new double[n];
        double[] t = new double[n];
        double[] err = new double[n];
        double[] ideal = new double[n];
        ScalingTable.Row base = rows.stream().min((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        for (int i = 0; i < n; i++) {
            ScalingTable.Row r = rows.get(i);
            x[i] = log2(r.nodes());
            t[i] = r.seconds().mean() * 1e3;
            // A log axis cannot show a bar that reaches zero; such a bar is clipped at 90% below the mean.
            err[i] = Math.min(r.seconds().stddev() * 1e3, 0.9 * t[i]);
            ideal[i] = base.seconds().mean() * 1e3 * base.nodes() / r.nodes();
        }
        XYSeries m = c.addSeries("measured (mean, bars: 1 sd)", x, t, err);
        m.setLineWidth(2.5f);
        XYSeries i = c.addSeries("ideal (" + base.nodes() + (base.nodes() == 1 ? " node's" : " nodes'")
            + " time / nodes)", x, ideal);
        i.setLineStyle(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
        i.setMarker(SeriesMarkers.NONE);
        if (rows.stream().noneMatch(r -> Double.isNaN(r.predictedSeconds()))) {
            XYSeries pred = c.addSeries("cost model", x,
                rows.stream().mapToDouble(r -> r.predictedSeconds() * 1e3).toArray());
            pred.setMarker(SeriesMarkers.DIAMOND);
            pred.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {2f, 4f}, 0f));
        }
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setxAxisTickLabelsFormattingFunction(Plots::powerOfTwoLabel);
        // Below the plot: inside, the legend would cover points whichever corner it takes.
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        return c;
    }

    /**
     * Compute and communication time per epoch at each node count, stacked. The epoch's total
     * goes under each bar, with its node count: labels inside the bars overlap where a segment
     * is thin, and XChart draws totals only together with them.
     */
    static CategoryChart breakdown(List<ScalingTable.Row> rows, String title) {
        // Shares, not microseconds: the epoch grows 100-fold from 1 to 32 nodes, so on a linear
        // axis of time the compute bars (a fraction of a microsecond) could not be seen at all.
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("nodes (ranks), and the epoch's total in microseconds")
            .yAxisTitle("share of an epoch on rank 0 (%)").build();
        style(c.getStyler());
        c.getStyler().setStacked(true);
        c.getStyler().setDecimalPattern("0");
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(100.0);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        List<String> labels = rows.stream().map(r -> String.format(Locale.ROOT, "%d: %s", r.nodes(),
            total(r.computeUs() + r.commUs()))).toList();
        c.addSeries("compute (local gradient)", labels, rows.stream().map(r -> (Number) share(r.computeUs(),
            r)).toList());
        c.addSeries("communication (exchange + update)", labels, rows.stream().map(r -> (Number) share(r.commUs(),
            r)).toList());
        return c;
    }

    /** {@code part} as a percentage of the row's epoch (0 for an epoch measured as nothing). */
    private static double share(double part, ScalingTable.Row r) {
        double total = r.computeUs() + r.commUs();
        return total > 0 ? 100 * part / total : 0.0;
    }

    /**
     * One bar per configuration: a ratio of two throughputs, with the level a target asks for
     * drawn as a series of its own so the bars can be read against it.
     *
     * @param labels  the configurations, e.g. {@code cnn float32, 2 workers}
     * @param ratios  the ratio of each
     * @param targets the target of each (NaN for none)
     * @param title   the chart's title
     * @param yTitle  what the ratio is of
     * @return the chart, for {@link #save}
     */
    public static CategoryChart ratios(List<String> labels, List<Double> ratios, List<Double> targets, String title,
                                       String yTitle) {
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("model, precision, workers").yAxisTitle(yTitle).build();
        style(c.getStyler());
        c.getStyler().setDecimalPattern("0.00");
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setXAxisLabelRotation(90);
        c.addSeries("measured", labels, ratios.stream().map(v -> (Number) v).toList());
        c.addSeries("target", labels, targets.stream().map(v -> (Number) (Double.isNaN(v) ? 0.0 : v)).toList());
        return c;
    }

    /**
     * Bars side by side: one group per label, one bar per series in each group.
     *
     * @param labels the groups, e.g. {@code both cores free, first run}
     * @param series each series' name and its value per group, in order
     * @param title  the chart's title
     * @param xTitle what the groups are
     * @param yTitle what the values are
     * @return the chart, for {@link #save}
     */
    public static CategoryChart bars(List<String> labels, java.util.Map<String, List<Double>> series, String title,
                                     String xTitle, String yTitle) {
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(c.getStyler());
        c.getStyler().setDecimalPattern("#,##0");
        c.getStyler().setLabelsVisible(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        series.forEach((name, values) -> c.addSeries(name, labels, values.stream().map(v -> (Number) v).toList()));
        return c;
    }

    private static String total(double us) {
        return us >= 100 ? String.format(Locale.ROOT, "%,.0f", us) : String.format(Locale.ROOT, "%.3g", us);
    }

    /**
     * Loss against epoch. The loss is drawn as its base-10 logarithm on a linear axis whose
     * ticks are labelled with the loss itself (1e-20, 0.01, 1, 1e6): a converging run spans
     * twenty decades or more, and XChart's logarithmic axis labels every one of them.
     */
    static XYChart loss(double[] loss, String title) {
        XYChart c = xy(title, "epoch", "loss (log scale)");
        double[] x = new double[loss.length];
        double[] y = new double[loss.length];
        int k = 0;
        for (int e = 0; e < loss.length; e++) {
            if (loss[e] > 0) {       // a logarithm cannot show an exact zero
                x[k] = e + 1;
                y[k++] = Math.log10(loss[e]);
            }
        }
        XYSeries s = c.addSeries("training loss", java.util.Arrays.copyOf(x, k), java.util.Arrays.copyOf(y, k));
        s.setMarker(SeriesMarkers.NONE);
        s.setLineWidth(2.5f);
        if (k > 0) {
            // XChart puts the ticks of equally spaced x values (epochs 1, 2, 3 ...) at every n-th value,
            // which gives 0, 13, 26 ...; one invisible point at a half epoch makes it choose round ticks.
            XYSeries round = c.addSeries(" ", new double[] {0, 0.5}, new double[] {y[0], y[0]});
            round.setMarker(SeriesMarkers.NONE);
            round.setLineColor(new Color(0, 0, 0, 0));
            round.setShowInLegend(false);
        }
        c.getStyler().setXAxisMin(0.0);
        c.getStyler().setXAxisMax((double) loss.length);
        c.getStyler().setxAxisTickLabelsFormattingFunction(v -> String.format(Locale.ROOT, "%.0f", v));
        c.getStyler().setyAxisTickLabelsFormattingFunction(Plots::powerOfTenLabel);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        return c;
    }

    /**
     * The loss at a tick of its base-10 logarithm: 1e-20 ... 0.001, 0.01, 0.1, 1, 10, 100, 1000,
     * 1e4 ... at whole exponents, and two digits between them (0.45). Never blank: XChart
     * coarsens its ticks until their labels differ, and blank ones never would.
     */
    static String powerOfTenLabel(double exponent) {
        if (Math.abs(exponent - Math.rint(exponent)) > 1e-9) {
            return String.format(Locale.ROOT, "%.2g", Math.pow(10, exponent));
        }
        long e = Math.round(exponent);
        if (e >= 0 && e <= 3) {
            return Long.toString((long) Math.pow(10, e));
        }
        if (e < 0 && e >= -3) {
            return java.math.BigDecimal.ONE.scaleByPowerOfTen((int) e).toPlainString();
        }
        return "1e" + e;
    }

    /**
     * Allreduce time against message size (log-log): measured points and the fitted model's lines.
     *
     * @param data  measurements of {@code bench collectives}, at any rank counts
     * @param ranks the rank count to draw; other measurements are left out
     * @param m     the fitted machine, whose predictions are the lines
     * @return the chart, for {@link #save}
     */
    public static XYChart collectives(List<org.paratrain.collective.CostModel.Measurement> data, int ranks,
                                      org.paratrain.collective.Allreduce.Machine m) {
        XYChart c = xy("Allreduce at " + ranks + " ranks: measured (points) and model (lines)",
            "message size (bytes, log scale)", "time per allreduce (seconds, log scale)");
        Color[] palette = {new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44),
            new Color(214, 39, 40), new Color(148, 103, 189)};
        int k = 0;
        for (String name : org.paratrain.collective.Allreduces.portableNames()) {
            Color color = palette[k++ % palette.length];
            List<org.paratrain.collective.CostModel.Measurement> pts = data.stream()
                .filter(x -> x.ranks() == ranks && x.algorithm().equals(name)).toList();
            if (pts.isEmpty()) {
                continue;
            }
            double[] bytes = pts.stream().mapToDouble(x -> 8.0 * x.doubles()).toArray();
            double[] t = pts.stream().mapToDouble(org.paratrain.collective.CostModel.Measurement::seconds).toArray();
            double[] model = pts.stream().mapToDouble(x -> org.paratrain.collective.Allreduces.create(name)
                .cost(ranks, x.doubles(), m)).toArray();
            XYSeries s = c.addSeries(name, bytes, t);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarkerColor(color);
            XYSeries line = c.addSeries(name + " (model)", bytes, model);
            line.setMarker(SeriesMarkers.NONE);
            line.setLineColor(color);
            line.setShowInLegend(false);
        }
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        return c;
    }

    /** Ten colours that stay apart, also for most colour-blind readers (Tableau 10). */
    static final Color[] TABLEAU = {new Color(31, 119, 180), new Color(255, 127, 14),
        new Color(44, 160, 44), new Color(214, 39, 40), new Color(148, 103, 189), new Color(140, 86, 75),
        new Color(227, 119, 194), new Color(127, 127, 127), new Color(188, 189, 34), new Color(23, 190, 207)};

    /**
     * Writes {@code dir/name.png} and {@code dir/name.svg}, each atomically.
     *
     * @param chart the chart to draw
     * @param dir   the directory, made if missing
     * @param name  file name without extension
     * @throws java.io.UncheckedIOException if a file cannot be written
     */
    public static void save(Chart<?, ?> chart, Path dir, String name) {
        AtomicFiles.writeBytes(dir.resolve(name + ".png"), out -> out.write(BitmapEncoder.getBitmapBytes(chart,
            BitmapEncoder.BitmapFormat.PNG)));
        AtomicFiles.writeBytes(dir.resolve(name + ".svg"), out -> out.write(svg(chart)));
    }

    /** The chart as an SVG document, compacted ({@link SvgCompactor}): about 150 KB rather than 600. */
    static byte[] svg(Chart<?, ?> chart) throws java.io.IOException {
        java.io.ByteArrayOutputStream raw = new java.io.ByteArrayOutputStream(1 << 20);
        VectorGraphicsEncoder.saveVectorGraphic(chart, raw, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        return SvgCompactor.compact(raw.toString(java.nio.charset.StandardCharsets.UTF_8))
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
            .yAxisTitle(yTitle).build();
        style(c.getStyler());
        return c;
    }

    private static void scatter(XYChart c, Dataset d) {
        double[] x = new double[d.samples()];
        for (int i = 0; i < x.length; i++) {
            x[i] = d.x(i, 0);
        }
        XYSeries s = c.addSeries("samples (" + d.samples() + ")", x, d.y());
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(SeriesMarkers.CIRCLE);
        s.setMarkerColor(new Color(70, 110, 180, 150));
    }

    private static void style(AxesChartStyler s) {
        s.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
        s.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 17));
        s.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
        s.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
        s.setLegendPosition(Styler.LegendPosition.InsideNW);
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotGridLinesColor(new Color(220, 220, 220));
        s.setMarkerSize(7);
        s.setLocale(Locale.ROOT);
    }

    static double log2(int p) {
        return Math.log(p) / Math.log(2);
    }

    static String powerOfTwoLabel(double v) {
        double p = Math.pow(2, v);
        return Math.abs(p - Math.rint(p)) < 1e-6 ? Long.toString(Math.round(p)) : "";
    }
}
