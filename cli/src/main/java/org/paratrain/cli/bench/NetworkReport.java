package org.paratrain.cli.bench;

import static org.paratrain.cli.bench.BenchDlCommand.dash;
import static org.paratrain.cli.bench.BenchDlCommand.num;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.experiment.RunWriter;

/** {@code bench network}'s table, same-bits line and files: what a run measured, as people read it. */
final class NetworkReport {
    private NetworkReport() { }

    static final String HEADER = "| link | model | hosts x ranks | sum | allreduce | overlap | paratrain (samples/s) | "
        + "exchange share | exchange mean / median (ms/step) | wait (ms/step) | failed guesses (a step) | cost model mean / median (ms/step) | error mean / median | "
        + "PyTorch DDP (samples/s) | paratrain / DDP | target |\n"
        + "|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

    /** One row of the table, as printed and as written to the Markdown file. */
    static String line(NetworkRow r) {
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.0f | %.0f%% | %.2f / %.2f | %s | %s | %s | %s "
            + "| %s | %s | %.1f |", r.link(), r.model(), r.layout(), r.sum(), allreduce(r), r.overlap(), r.paratrain(),
            100 * r.exchange(), r.stepMs(), r.medianMs(), dash(r.waitMs(), "%.2f"),
            r.sum().startsWith("fixed") ? String.format(Locale.ROOT, "%.2f", misses(r)) : "-",
            Double.isNaN(r.modelMs()) ? "-" : String.format(Locale.ROOT, "%.2f / %.2f", r.modelMs(), r.medianModelMs()),
            Double.isNaN(r.modelMs()) ? "-" : String.format(Locale.ROOT, "%+.0f%% / %+.0f%%", 100 * r.error(),
                100 * r.medianError()),
            dash(r.torch(), "%.0f"), dash(r.ratio(), "%.2f"), r.target());
    }

    /** {@return the share of the run's steps whose guessed grid failed (a second exchange each)} */
    static double misses(NetworkRow r) {
        return r.fit().path("guess_misses_per_step").asDouble(0);
    }

    /** {@return the allreduce as the table names it: auto with its pick} */
    static String allreduce(NetworkRow r) {
        return r.allreduce().equals("auto") ? "auto: " + r.chosen() : r.allreduce();
    }

    /** Whether every layout and link of a model and sum trained the same bits, as the fixed-point sums promise. */
    static String sameBits(List<NetworkRow> rows) {
        Map<String, java.util.Set<String>> byModel = new LinkedHashMap<>();
        for (NetworkRow r : rows) {
            byModel.computeIfAbsent(r.model() + " " + r.sum(), m -> new java.util.TreeSet<>()).add(r.params());
        }
        StringBuilder s = new StringBuilder("same bits:");
        byModel.forEach((m, hashes) -> s.append(' ').append(m).append(hashes.size() == 1 ? " yes (" : " NO (")
            .append(String.join(", ", hashes)).append(')'));
        return s.toString();
    }

    /** The rows as CSV, JSON and Markdown, and the ratios (or, without PyTorch, samples/s) as a plot. */
    static void write(List<NetworkRow> rows, String torch, Path outDir, int batch, int steps, int rounds,
                      String precision) {
        StringBuilder csv = new StringBuilder("link,model,layout,sum,allreduce,ran,bucket_size,paratrain_samples_per_s,"
            + "exchange_share,exchange_ms_per_step,exchange_median_ms_per_step,update_ms_per_step,wait_ms_per_step,"
            + "guess_misses_per_step,predicted_exchange_ms_per_step,predicted_exchange_median_ms_per_step,"
            + "model_error,model_error_median,pytorch_samples_per_s,ratio,target,params_hash\n");
        StringBuilder md = new StringBuilder(HEADER).append('\n');
        ObjectNode json = RunWriter.json().createObjectNode();
        json.put("batch_size", batch).put("steps", steps).put("rounds", rounds).put("precision", precision)
            .put("pytorch", torch);
        var array = json.putArray("rows");
        for (NetworkRow r : rows) {
            double update = r.fit() == null ? Double.NaN : r.fit().path("update_ms_per_step").asDouble(Double.NaN);
            csv.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%s,%s,%s,%.1f,%.4f,%.3f,%.3f,%s,%s,%.3f,%s,%s,%s,%s,%s,%s,%.1f,"
                + "%s%n", r.link(), r.model(), r.layout(), r.sum(), r.allreduce(), r.chosen(), r.bucket(), r.paratrain(),
                r.exchange(), r.stepMs(), r.medianMs(), num(update, "%.3f"), num(r.waitMs(), "%.3f"), misses(r),
                num(r.modelMs(), "%.3f"), num(r.medianModelMs(), "%.3f"), num(r.error(), "%.3f"), num(r.medianError(), "%.3f"),
                num(r.torch(), "%.1f"), num(r.ratio(), "%.3f"), r.target(), r.params()));
            md.append(line(r)).append('\n');
            var o = array.addObject().put("link", r.link()).put("model", r.model()).put("layout", r.layout())
                .put("sum", r.sum()).put("allreduce", r.allreduce()).put("ran", r.chosen()).put("bucket_size", r.bucket())
                .put("buckets", r.fit() == null ? 0 : r.fit().path("buckets").asInt(0))
                .put("paratrain_samples_per_s", r.paratrain()).put("exchange_share", r.exchange())
                .put("exchange_ms_per_step", r.stepMs()).put("exchange_median_ms_per_step", r.medianMs())
                .put("update_ms_per_step", update)
                .put("wait_ms_per_step", r.waitMs())
                .put("guess_misses_per_step", misses(r))
                // The steps each timed run counted, after its untimed first ones.
                .put("timed_steps", r.fit() == null ? 0 : r.fit().path("timed_steps").asInt(0))
                .put("target", r.target()).put("params_hash", r.params());
            if (r.fit() != null) {
                // Each rank's computation and exchange a step (waits included): the buckets' cost to backward.
                o.set("compute_ms_per_step_per_rank", r.fit().path("compute_ms_per_step_per_rank"));
                o.set("exchange_ms_per_step_per_rank", r.fit().path("exchange_ms_per_step_per_rank"));
                if (r.fit().has("beside_work_beta_seconds_per_byte")) {
                    // The link as a bucket's call beside the computation meets it: what the early buckets are priced on.
                    o.put("beside_work_alpha_seconds", r.fit().path("beside_work_alpha_seconds").asDouble())
                        .put("beside_work_beta_seconds_per_byte", r.fit().path("beside_work_beta_seconds_per_byte")
                            .asDouble());
                }
                if (r.fit().has("alpha_seconds")) {
                    // The link's fit for this row, and the calls it was fitted to ([words, ms] at each size).
                    o.put("alpha_seconds", r.fit().path("alpha_seconds").asDouble())
                        .put("beta_seconds_per_byte", r.fit().path("beta_seconds_per_byte").asDouble())
                        .set("link_call_ms", r.fit().path("link_call_ms"));
                }
                if (r.fit().has("probe_ms")) {
                    // auto's figures: each candidate's typical call on the link (master-worker's priced), the pick the least.
                    o.set("probe_ms", r.fit().path("probe_ms"));
                }
                if (r.fit().has("staged_chunk_share")) {
                    // The share of the last block's chunks the CNN ran stage by stage: what the model's overlap priced.
                    o.put("staged_chunk_share", r.fit().path("staged_chunk_share").asDouble());
                }
            }
            if (!Double.isNaN(r.torch())) {
                o.put("pytorch_samples_per_s", r.torch()).put("ratio", r.ratio());
            }
            if (!Double.isNaN(r.modelMs())) {
                // The error against the mean step, and against the median (without the OS's rare long stalls).
                o.put("predicted_exchange_ms_per_step", r.modelMs()).put("model_error", r.error())
                    .put("predicted_exchange_median_ms_per_step", r.medianModelMs())
                    .put("model_error_median", r.medianError())
                    // Priced with the overlap (the buckets' timeline behind the last block's backward) or without.
                    .put("model_overlap", r.fit().path("predicted_overlap").asBoolean(false))
                    .put("predicted_conversion_ms_per_step", r.fit().path("predicted_conversion_ms_per_step")
                        .asDouble(Double.NaN))
                    .put("predicted_conversion_median_ms_per_step", r.fit().path("predicted_conversion_median_ms_per_step")
                        .asDouble(Double.NaN))
                    // The failed guesses' redos, at the rate the run had: in the prediction, as in the measure.
                    .put("predicted_retry_ms_per_step", r.fit().path("predicted_retry_ms_per_step").asDouble(Double.NaN));
            }
        }
        md.append('\n').append(sameBits(rows)).append('\n');
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(outDir)) {
            Path stage = staged.dir();
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-network.csv"), w -> w.write(csv.toString()));
            org.paratrain.io.AtomicFiles.writeText(stage.resolve("bench-network.md"), w -> w.write(md.toString()));
            org.paratrain.io.AtomicFiles.writeBytes(stage.resolve("bench-network.json"),
                o -> RunWriter.json().writeValue(o, json));
            List<String> labels = rows.stream().map(r -> r.model() + " " + r.link() + " " + r.layout() + " "
                + r.sum() + (r.allreduce().equals("ring") ? "" : " " + allreduce(r))
                + (r.bucket().equals("0") ? "" : " overlap")).toList();
            org.knowm.xchart.CategoryChart chart = torch == null
                ? org.paratrain.cli.experiment.Plots.ratios(labels, rows.stream().map(NetworkRow::paratrain).toList(),
                    rows.stream().map(r -> Double.NaN).toList(), "paratrain, two emulated hosts, " + precision,
                    "samples/s")
                : org.paratrain.cli.experiment.Plots.ratios(labels, rows.stream().map(NetworkRow::ratio).toList(),
                    rows.stream().map(NetworkRow::target).toList(), "paratrain / PyTorch " + torch.replaceAll("a0$", "")
                    + " DDP, two emulated hosts, " + precision, "paratrain / DDP");
            chart.setXAxisTitle("model, link, hosts x ranks, sum, overlap");
            // As the model's plot: below the rows' long names the legend left the bars a strip.
            chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
            org.paratrain.cli.experiment.Plots.save(chart, stage, "bench-network");
            List<String> files = new ArrayList<>(List.of("bench-network.csv", "bench-network.md", "bench-network.json",
                "bench-network.png", "bench-network.svg"));
            // The cost model beside each measured exchange, for the rows it priced.
            List<NetworkRow> priced = rows.stream().filter(r -> !Double.isNaN(r.modelMs())).toList();
            if (!priced.isEmpty()) {
                java.util.Map<String, List<Double>> series = new java.util.LinkedHashMap<>();
                series.put("measured, median step", priced.stream().map(NetworkRow::medianMs).toList());
                series.put("measured, mean step", priced.stream().map(NetworkRow::stepMs).toList());
                series.put("cost model, median step", priced.stream().map(NetworkRow::medianModelMs).toList());
                series.put("cost model, mean step", priced.stream().map(NetworkRow::modelMs).toList());
                org.knowm.xchart.CategoryChart model = org.paratrain.cli.experiment.Plots.bars(
                    priced.stream().map(r -> labels.get(rows.indexOf(r))).toList(), series,
                    "paratrain's exchange a step, measured and modelled, " + precision,
                    "model, link, hosts x ranks, sum, overlap", "ms a step");
                model.getStyler().setDecimalPattern("0.0");
                model.getStyler().setLabelsVisible(false);     // four bars a row: their figures are in the table
                // The rows' long names take the chart's height below it: the legend goes beside.
                model.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
                model.getStyler().setXAxisLabelRotation(90);
                org.paratrain.cli.experiment.Plots.save(model, stage, "bench-network-model");
                files.addAll(List.of("bench-network-model.png", "bench-network-model.svg"));
            }
            // Each link and layout's fit (the first model's) as a machine.json that plan --machine reads.
            for (NetworkRow r : rows) {
                String name = "machine-" + r.link() + "-" + r.layout() + ".json";
                if (!Double.isNaN(r.modelMs()) && !files.contains(name)) {
                    org.paratrain.cli.experiment.MachineFile.write(stage.resolve(name),
                        new org.paratrain.collective.Allreduce.Machine(r.fit().path("alpha_seconds").asDouble(),
                            r.fit().path("beta_seconds_per_byte").asDouble(),
                            r.fit().path("gamma_seconds_per_byte").asDouble()),
                        r.fit().path("seconds_per_sample_parameter").asDouble(), 1, "mpi",
                        List.of("bench", "network", "--links", r.link(), "--layouts", r.layout()));
                    files.add(name);
                }
            }
            staged.publish(files);
        }
    }

    /**
     * {@return the last line, {@code summary: key=value ...}: each row's figures, each bucketed
     * row's overlap against the same row without buckets, each auto row's pick against the
     * fastest of the other allreduces beside it}
     */
    static String summary(List<NetworkRow> rows) {
        StringBuilder summary = new StringBuilder("summary:");
        for (NetworkRow r : rows) {
            summary.append(String.format(Locale.ROOT, " %s_samples_per_s=%.0f %s_exchange_share=%.3f", r.key(),
                r.paratrain(), r.key(), r.exchange()));
            if (!Double.isNaN(r.modelMs())) {
                summary.append(String.format(Locale.ROOT, " %s_model_error=%.3f %s_model_error_median=%.3f", r.key(),
                    r.error(), r.key(), r.medianError()));
            }
            if (!Double.isNaN(r.torch())) {
                summary.append(String.format(Locale.ROOT, " %s_ddp_samples_per_s=%.0f %s_ratio=%.3f", r.key(), r.torch(),
                    r.key(), r.ratio()));
            }
            // Overlap against the same run without it: the speedup, and the most it could be, all of
            // the exchange hidden (1 / (1 - the exchange's share without overlap)).
            rows.stream().filter(o -> o.bucket().equals("0") && !r.bucket().equals("0") && o.link().equals(r.link())
                && o.model().equals(r.model()) && o.layout().equals(r.layout()) && o.sum().equals(r.sum())
                && o.allreduce().equals(r.allreduce())).findFirst()
                .ifPresent(o -> summary.append(String.format(Locale.ROOT, " %s_overlap_speedup=%.3f %s_overlap_bound=%.3f",
                    r.key(), r.paratrain() / o.paratrain(), r.key(), 1 / (1 - o.exchange()))));
            // auto's pick against the fastest of the allreduces run beside it on the same link and model.
            if (r.allreduce().equals("auto")) {
                java.util.Optional<NetworkRow> fastest = rows.stream().filter(o -> o != r && !o.allreduce().equals("auto")
                    && o.sameButAllreduce(r)).max(java.util.Comparator.comparingDouble(NetworkRow::paratrain));
                summary.append(" ").append(r.key()).append("_pick=").append(r.chosen()).append(String.format(Locale.ROOT,
                    " %s_probe_seconds=%.3f", r.key(), r.fit().path("probe_seconds").asDouble(Double.NaN)));
                fastest.ifPresent(f -> summary.append(String.format(Locale.ROOT, " %s_fastest=%s %s_vs_fastest=%.3f",
                    r.key(), f.allreduce(), r.key(), r.paratrain() / f.paratrain())));
            }
        }
        return summary.toString();
    }
}
