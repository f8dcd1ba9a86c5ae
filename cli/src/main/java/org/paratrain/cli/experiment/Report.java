package org.paratrain.cli.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.comm.JobLaunch;
import org.paratrain.data.Dataset;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.EpochModel;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;

/**
 * A scaling experiment from sweep to files: the table (Markdown, CSV, JSON), the figures
 * (PNG and SVG), analysis.md and run.json with the provenance. Used by both
 * {@code paratrain paper} and {@code paratrain scale}.
 */
public final class Report {
    private Report() { }

    /**
     * What to run and how to describe it.
     *
     * @param title       a line that names the experiment
     * @param data        the training data
     * @param dataInfo    how the data was made or where it came from (for run.json)
     * @param spec        the sweep
     * @param breakEven   sample counts for the break-even measurement, or null to skip it
     * @param mpi         how to start MPI jobs, or null for the local backend
     */
    public record Inputs(String title, Dataset data, ObjectNode dataInfo, SweepSpec spec, int[] breakEven,
                         JobLaunch mpi) { }

    /** Receives progress: a phase name, work done and work in all. */
    public interface Progress {
        /**
         * Called as work is done, from the thread that runs the report.
         *
         * @param phase what is being done, e.g. "sweep" or "break-even"
         * @param done  units of the phase done
         * @param total units of the phase in all
         */
        void update(String phase, int done, int total);
    }

    /**
     * Runs everything and writes into {@code out}; returns the files written, relative to it.
     * Files are made in a staging directory beside {@code out} and moved in only when all of
     * them exist, so a failed run leaves {@code out} as it was.
     *
     * @param out        the output directory, made if missing
     * @param in         what to run and how to describe it
     * @param provenance how and where the run was made, for run.json
     * @param progress   told as work is done
     * @return the files written, relative to {@code out}: tables, figures, analysis.md, run.json
     */
    public static List<String> run(Path out, Inputs in, Provenance provenance, Progress progress) {
        try (org.paratrain.io.StagedFiles staged = org.paratrain.io.StagedFiles.into(out)) {
            List<String> files = runInto(staged.dir(), in, provenance, progress);
            staged.publish(files);
            return files;
        }
    }

    private static List<String> runInto(Path out, Inputs in, Provenance provenance, Progress progress) {
        SweepSpec spec = in.spec();
        java.util.function.IntConsumer sweepProgress = done -> progress.update("sweep", done, spec.totalRuns());
        List<Sweep.Point> points = in.mpi() == null ? Sweep.run(in.data(), spec, sweepProgress)
            : Sweep.runMpi(in.data(), spec, in.mpi(), sweepProgress);
        EpochModel model = in.mpi() != null ? null : Calibration.forWorkload(in.data(), spec.base());
        int warmup = points.get(0).warmup();
        ScalingTable table = ScalingTable.of(points, warmup, spec.base().exchange(),
            p -> predictedRun(model, in, p));
        List<BreakEven.Point> breakEven = in.breakEven() == null ? null
            : BreakEven.measure(in.breakEven(), local(spec.base()).withNodes(1),
                done -> progress.update("break-even", done, in.breakEven().length));
        List<String> files = new ArrayList<>();
        table.write(out, "table1");
        files.addAll(List.of("table1.md", "table1.csv", "table1.json"));
        figures(out, in, points, table, files);
        String setup = setup(in, warmup);
        AtomicFiles.writeText(out.resolve("analysis.md"), w -> w.write(Analysis.markdown(in.title(), setup, table,
            breakEven, provenance.cores())));
        files.add("analysis.md");
        files.add("run.json");
        ObjectNode run = RunWriter.json().createObjectNode();
        run.put("title", in.title());
        run.set("data", in.dataInfo());
        ObjectNode sweep = run.putObject("sweep");
        ArrayNode nodes = sweep.putArray("nodes");
        for (int p : spec.nodes()) {
            nodes.add(p);
        }
        sweep.put("repeats", spec.repeats());
        sweep.put("warmup", warmup);
        sweep.put("warmup_min_seconds", spec.warmupSeconds());
        sweep.put("backend", in.mpi() == null ? "local" : "mpi");
        sweep.set("training", RunWriter.resultJson(points.get(0).runs().get(0), spec.base())
            .get("config"));
        sweep.put("epochs", spec.base().epochs());
        run.set("provenance", provenance.toJson());
        ArrayNode fileList = run.putArray("files");
        files.forEach(fileList::add);
        AtomicFiles.writeBytes(out.resolve("run.json"), o -> RunWriter.json().writeValue(o, run));
        return files;
    }

    private static void figures(Path out, Inputs in, List<Sweep.Point> points, ScalingTable table,
                                List<String> files) {
        Dataset d = in.data();
        TrainSpec base = in.spec().base();
        TrainingResult last = points.get(0).runs().get(0);
        if (d.features() == 1) {
            save(Plots.data(d, "Figure 1: the data set (" + d.samples() + " samples, 1 feature)"), out,
                "figure1_data", files);
            List<Plots.Line> lines = new ArrayList<>();
            for (int e : fitEpochs(base.epochs())) {
                double[] w = Training.local(d, local(base).withNodes(1).withEpochs(e)).params();
                String quality = e == base.epochs() ? "well fitted" : e <= 1 ? "under-trained" : "badly fitted";
                lines.add(line(String.format(Locale.ROOT, "after %d epoch%s (%s): w = %.4g", e, e == 1 ? "" : "s",
                    quality, w[0]), w));
            }
            save(Plots.fits(d, "Figure 2: fits of different quality", lines), out, "figure2_fits", files);
            save(Plots.fits(d, "Figure 3: the trained line over the data", List.of(line(String.format(Locale.ROOT,
                "trained, %d epochs: w = %.6g", base.epochs(), last.params()[0]), last.params()))), out,
                "figure3_fit", files);
        }
        save(Plots.scaling(table.rows(), "Run time against node count (" + base.epochs() + " epochs)"), out,
            "scaling", files);
        save(Plots.breakdown(table.rows(), "Where an epoch's time goes"), out, "breakdown", files);
        save(Plots.loss(last.history().loss(), "Training loss (the same bits at every node count)"), out,
            "loss", files);
    }

    /** The cost model's run time at {@code p} nodes (NaN on the MPI backend, whose machine is not fitted). */
    private static double predictedRun(EpochModel model, Inputs in, int p) {
        if (model == null) {
            return Double.NaN;
        }
        TrainSpec c = in.spec().base();
        int params = Calibration.exchanged(in.data(), c);
        return c.epochs() * model.epochSeconds(c.exchange(), p,
            Plan.sharding(in.data().samples(), c.run().blockSize()), params);
    }

    /**
     * The settings for the runs made on the local backend (the fits of the figures, the
     * break-even): MPI's own allreduce has none there, so recursive doubling, which MPI takes
     * for short vectors, stands in with the same sum. At one rank that gives the same bits.
     */
    static TrainSpec local(TrainSpec s) {
        ExchangeSpec e = s.exchange();
        return e.scheme() == ExchangeSpec.Scheme.ALLREDUCE && e.algorithm().equals("native")
            ? s.withExchange(ExchangeSpec.parse("recursive-doubling", e.sum())) : s;
    }

    /** Epochs at which to show fits: the first, an early one, and the last. */
    static int[] fitEpochs(int epochs) {
        if (epochs <= 2) {
            return epochs == 1 ? new int[] {1} : new int[] {1, 2};
        }
        return new int[] {1, Math.max(2, Math.min(10, epochs / 3)), epochs};
    }

    private static Plots.Line line(String label, double[] params) {
        return new Plots.Line(label, params[0], params.length > 1 ? params[1] : 0.0);
    }

    private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path out, String name,
                             List<String> files) {
        Plots.save(chart, out, name);
        files.add(name + ".png");
        files.add(name + ".svg");
    }

    private static String setup(Inputs in, int warmup) {
        SweepSpec s = in.spec();
        TrainSpec c = s.base();
        return String.format(Locale.ROOT, "Setup: %s. %d samples x %d features; linear regression%s, %s of squared "
                + "errors, full-batch gradient descent (lr %s) from zero weights, %d epochs; gradients combined by %s, "
                + "summed by %s; node counts %s; %d timed runs per count after %d warm-up runs; %s.",
            in.title(), in.data().samples(), in.data().features(), c.model().intercept() ? " with intercept" : "",
            c.run().lossReduction().name().toLowerCase(Locale.ROOT), c.optimizer().learningRate(), c.epochs(),
            c.exchange().label(), c.exchange().sum().label(),
            java.util.Arrays.toString(s.nodes()), s.repeats(), warmup, in.mpi() == null
                ? "local backend (ranks are threads of one JVM)"
                : "MPI backend (ranks are processes started by mpirun, one job per node count)");
    }
}
