package org.paratrain.cli.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.experiment.RunWriter;

/**
 * The paper's Table 1, extended: per node count the mean and sample variance of run time,
 * final weight and final loss over the repeats, the speedup and parallel efficiency
 * against the smallest node count (1 when it was run), and the mean compute and
 * communication time per epoch.
 */
final class ScalingTable {

    /**
     * One row.
     *
     * @param nodes          node count
     * @param seconds        run time (training loop on rank 0), over the repeats
     * @param weight         final first parameter
     * @param loss           final loss
     * @param speedup        mean time at the base count over mean time here, times the base count
     * @param efficiency     speedup over node count
     * @param computeUs      mean compute time per epoch, microseconds
     * @param commUs         mean communication time per epoch, microseconds
     * @param identicalBits  whether every repeat here gave the same bits as the base count's first run
     * @param predictedSeconds the cost model's prediction of the run time, or NaN when there is none
     * @param medianSeconds  the median run time, which a prediction of a typical run is held against
     */
    public record Row(int nodes, Statistics seconds, Statistics weight, Statistics loss, double speedup,
                      double efficiency, double computeUs, double commUs, boolean identicalBits,
                      double predictedSeconds, double medianSeconds) {
        /**
         * The prediction's error relative to the median run: (predicted - median) / median. The
         * median, not the mean: one run slowed by a neighbour moves the mean, not the typical run.
         */
        public double predictionError() {
            return (predictedSeconds - medianSeconds) / medianSeconds;
        }
    }

    private final List<Row> rows;
    private final int warmup;
    private final int repeats;
    private final ExchangeSpec exchange;

    private ScalingTable(List<Row> rows, int warmup, int repeats, ExchangeSpec exchange) {
        this.rows = List.copyOf(rows);
        this.warmup = warmup;
        this.repeats = repeats;
        this.exchange = exchange;
    }

    /**
     * Summarises a sweep; the base for speedup is the smallest node count run.
     *
     * @param exchange  the exchange every run used, its sum included
     * @param predicted the predicted run time in seconds at a node count (NaN for none)
     */
    public static ScalingTable of(List<Sweep.Point> points, int warmup, ExchangeSpec exchange,
                                  java.util.function.IntToDoubleFunction predicted) {
        Sweep.Point base = points.stream().min((a, b) -> Integer.compare(a.nodes(), b.nodes())).orElseThrow();
        double baseTime = Statistics.of(seconds(base.runs())).mean() * base.nodes();
        TrainingResult reference = base.runs().get(0);
        List<Row> rows = new ArrayList<>();
        for (Sweep.Point p : points) {
            List<TrainingResult> runs = p.runs();
            Statistics t = Statistics.of(seconds(runs));
            double[] w = runs.stream().mapToDouble(r -> r.params()[0]).toArray();
            double[] l = runs.stream().mapToDouble(TrainingResult::finalLoss).toArray();
            double compute = runs.stream().mapToDouble(r -> r.computeSeconds() / r.epochs()).average().orElse(0);
            double comm = runs.stream().mapToDouble(r -> r.commSeconds() / r.epochs()).average().orElse(0);
            boolean same = runs.stream().allMatch(r -> sameBits(r, reference));
            double speedup = baseTime / t.mean();
            rows.add(new Row(p.nodes(), t, Statistics.of(w), Statistics.of(l), speedup, speedup / p.nodes(),
                compute * 1e6, comm * 1e6, same, predicted.applyAsDouble(p.nodes()), Statistics.median(seconds(runs))));
        }
        return new ScalingTable(rows, warmup, base.runs().size(), exchange);
    }

    private static double[] seconds(List<TrainingResult> runs) {
        return runs.stream().mapToDouble(TrainingResult::trainSeconds).toArray();
    }

    private static boolean sameBits(TrainingResult a, TrainingResult b) {
        return java.util.Arrays.equals(a.params(), b.params())
            && Double.doubleToRawLongBits(a.finalLoss()) == Double.doubleToRawLongBits(b.finalLoss());
    }

    /** The rows, in sweep order. */
    public List<Row> rows() {
        return rows;
    }

    /** The notes printed under the table. */
    public String notes() {
        return "Mean and sample variance (divided by n - 1) over " + repeats + " timed runs per node count, after "
            + warmup + " untimed warm-up runs per node count (not counted). Time is the training loop's wall time "
            + "on rank 0, data loading excluded. Speedup is against the smallest node count; efficiency is speedup "
            + "over node count. " + (rows.stream().anyMatch(r -> !Double.isNaN(r.predictedSeconds()))
            ? "The model error compares the cost model's prediction with the median run. "
            : "No prediction is made for this backend (the cost model is fitted on local ranks). ")
            + "'same bits' says whether every run gave bit-identical weights and loss to the first run at the "
            + "smallest node count. Exchange: " + exchange.label() + ", sum " + exchange.sum().label() + ".";
    }

    /** Writes {@code name.md}, {@code name.csv} and {@code name.json} into {@code dir}. */
    public void write(Path dir, String name) {
        AtomicFiles.writeText(dir.resolve(name + ".md"), out -> out.write(markdown()));
        AtomicFiles.writeText(dir.resolve(name + ".csv"), out -> out.write(csv()));
        AtomicFiles.writeBytes(dir.resolve(name + ".json"), out -> RunWriter.json().writeValue(out, json()));
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| nodes | time mean (ms) | time var (ms^2) | time median (ms) | predicted (ms) | model error | weight mean | weight var "
            + "| loss mean | loss var | speedup | efficiency | compute/epoch (us) | comm/epoch (us) | same bits |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|\n");
        for (Row r : rows) {
            boolean hasPrediction = !Double.isNaN(r.predictedSeconds());
            boolean one = r.seconds().count() < 2;     // a sample variance needs two runs
            sb.append(String.format(Locale.ROOT, "| %d | %.4f | %s | %.4f | %s | %s | %.10g | %s | %.6g | %s | %.3f | "
                    + "%.3f | %.2f | %.2f | %s |%n", r.nodes(), r.seconds().mean() * 1e3,
                one ? "n/a" : String.format(Locale.ROOT, "%.3g", r.seconds().variance() * 1e6),
                r.medianSeconds() * 1e3, hasPrediction ? String.format(Locale.ROOT, "%.4f", r.predictedSeconds() * 1e3) : "-",
                hasPrediction ? String.format(Locale.ROOT, "%+.0f%%", 100 * r.predictionError()) : "-",
                r.weight().mean(), one ? "n/a" : String.format(Locale.ROOT, "%.3g", r.weight().variance()),
                r.loss().mean(), one ? "n/a" : String.format(Locale.ROOT, "%.3g", r.loss().variance()), r.speedup(),
                r.efficiency(), r.computeUs(), r.commUs(), r.identicalBits() ? "yes" : "no"));
        }
        sb.append('\n').append(notes()).append('\n');
        return sb.toString();
    }

    String csv() {
        StringBuilder sb = new StringBuilder("nodes,runs,time_mean_s,time_var_s2,time_median_s,weight_mean,weight_var,"
            + "loss_mean,loss_var,speedup,efficiency,compute_us_per_epoch,comm_us_per_epoch,same_bits,predicted_s,exchange,"
            + "sum\n");
        for (Row r : rows) {
            sb.append(r.nodes()).append(',').append(r.seconds().count()).append(',').append(r.seconds().mean())
                .append(',').append(variance(r.seconds())).append(',').append(r.medianSeconds()).append(',')
                .append(r.weight().mean()).append(',').append(variance(r.weight())).append(',')
                .append(r.loss().mean()).append(',').append(variance(r.loss())).append(',').append(r.speedup())
                .append(',').append(r.efficiency()).append(',').append(r.computeUs()).append(',').append(r.commUs())
                .append(',').append(r.identicalBits()).append(',')
                .append(Double.isNaN(r.predictedSeconds()) ? "" : Double.toString(r.predictedSeconds())).append(',')
                .append(exchange.label()).append(',').append(exchange.sum().label()).append('\n');
        }
        return sb.toString();
    }

    ObjectNode json() {
        ObjectNode root = RunWriter.json().createObjectNode();
        root.put("notes", notes());
        root.put("variance", "sample (n - 1)");
        root.put("warmup_runs_per_count", warmup);
        root.put("exchange", exchange.label());
        root.put("sum", exchange.sum().label());
        ArrayNode arr = root.putArray("rows");
        for (Row r : rows) {
            ObjectNode o = arr.addObject();
            o.put("nodes", r.nodes());
            o.put("runs", r.seconds().count());
            o.put("time_mean_s", r.seconds().mean());
            putVariance(o, "time_var_s2", r.seconds());
            o.put("time_median_s", r.medianSeconds());
            o.put("weight_mean", r.weight().mean());
            putVariance(o, "weight_var", r.weight());
            o.put("loss_mean", r.loss().mean());
            putVariance(o, "loss_var", r.loss());
            o.put("speedup", r.speedup());
            o.put("efficiency", r.efficiency());
            o.put("compute_us_per_epoch", r.computeUs());
            o.put("comm_us_per_epoch", r.commUs());
            o.put("same_bits", r.identicalBits());
            if (!Double.isNaN(r.predictedSeconds())) {
                o.put("predicted_s", r.predictedSeconds());
            }
        }
        return root;
    }

    /** A sample variance for the CSV: empty with fewer than two runs, where it is undefined (not 0). */
    private static String variance(Statistics s) {
        return s.count() < 2 ? "" : Double.toString(s.variance());
    }

    private static void putVariance(ObjectNode o, String field, Statistics s) {
        if (s.count() < 2) {
            o.putNull(field);
        } else {
            o.put(field, s.variance());
        }
    }
}
