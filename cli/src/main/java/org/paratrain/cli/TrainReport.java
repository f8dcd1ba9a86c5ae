package org.paratrain.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.StagedFiles;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.TrainingResult;

/** What {@code train} prints at the end, and the files it writes: one place for every way of training. */
final class TrainReport {
    private TrainReport() { }

    /** The summary: what was trained on what, the parameters (summarised when many), loss, accuracy, time. */
    static void print(PrintWriter out, String model, int samples, int features, TrainingResult r, int epochsAsked) {
        out.printf(Locale.ROOT, "trained %s on %d samples x %d features: %s (%s, %s), %s%s%n", model, samples, features,
            Formats.count(r.nodes(), "node"), r.backend(), r.algorithm(), Formats.count(r.epochs(), "epoch"),
            r.epochs() < epochsAsked ? " (stopped early; the best parameters kept)" : "");
        out.println("  params     " + parameters(r.params()));
        out.printf(Locale.ROOT, "  final loss %.10g%n", r.finalLoss());
        if (!Double.isNaN(r.trainAccuracy())) {
            out.println("  accuracy   " + Formats.accuracy(r.trainAccuracy()) + " on the training data");
        }
        Best best = best(r.history());
        if (best != null) {
            out.printf(Locale.ROOT, "  validation best epoch %d: loss %.6g%s%n", best.epoch(), best.loss(),
                Double.isNaN(best.accuracy()) ? "" : ", accuracy " + Formats.accuracy(best.accuracy()));
        }
        out.printf(Locale.ROOT, "  time       %s (%s an epoch: compute %s, communication %s)%n",
            Formats.duration(r.trainSeconds()), Formats.duration(r.trainSeconds() / r.epochs()),
            Formats.duration(r.computeSeconds() / r.epochs()), Formats.duration(r.commSeconds() / r.epochs()));
        if (r.split() != null && r.split().moves() > 0) {
            out.printf(Locale.ROOT, "  blocks     %s a rank at the end (the split moved %s to follow the ranks' speeds)%n",
                r.split().text(), Formats.count(r.split().moves(), "time"));
        }
    }

    /**
     * The epoch of lowest validation loss (the first of equals, as early stopping keeps it).
     *
     * @param epoch    1-based
     * @param loss     its validation loss
     * @param accuracy its validation accuracy, NaN for a regression
     */
    record Best(int epoch, double loss, double accuracy) { }

    /** {@return the best validated epoch of {@code h}, or null if no epoch was validated} */
    static Best best(TrainingResult.History h) {
        Best best = null;
        for (int e = 0; e < h.valLoss().length; e++) {
            double v = h.valLoss()[e];
            if (!Double.isNaN(v) && (best == null || v < best.loss())) {
                best = new Best(e + 1, v, h.valAccuracy()[e]);
            }
        }
        return best;
    }

    /** The files of a run, published together. */
    static final java.util.List<String> FILES = java.util.List.of("history.csv", "result.json", "model.json");

    /**
     * Writes result.json, history.csv and model.json into {@code dir}, all three or none (an
     * older run's files there stay as they were if any of them cannot be written), and says so
     * on {@code out}; {@code data} describes the input, {@code extra} adds fields (test metrics,
     * restarts, init_from) to result.json; its {@code init_from} goes into model.json's training record too.
     */
    static void write(PrintWriter out, Path dir, TrainingResult r, TrainSpec spec, ModelFile model,
                      ObjectNode data, ObjectNode extra, Provenance provenance) {
        try (StagedFiles staged = StagedFiles.into(dir)) {
            RunWriter.write(staged.dir(), r, spec, data, provenance, extra);
            ObjectNode training = RunWriter.resultJson(r, spec).retain("config", "epochs", "nodes", "backend",
                "algorithm", "final_loss");
            if (extra.has("init_from")) {
                training.set("init_from", extra.get("init_from"));     // where the parameters started
            }
            model.write(staged.dir().resolve("model.json"), training, provenance);
            staged.publish(FILES);
        }
        out.println("wrote " + dir.resolve("result.json") + ", history.csv and model.json");
    }

    /**
     * Where a failed run's history goes: beside {@code --out}, never into it, so that an older
     * run's files there are not mixed with the failed one's.
     */
    static Path failedDirectory(Path out) {
        Path abs = out.toAbsolutePath().normalize();
        return abs.resolveSibling(abs.getFileName() + ".failed");
    }

    /** The first 8 parameters, and how many there are in all. */
    private static String parameters(double[] v) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(v.length, 8);
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.10g", v[i]));
        }
        return v.length > shown ? sb + " ... (" + v.length + " in all)" : sb.toString();
    }
}
