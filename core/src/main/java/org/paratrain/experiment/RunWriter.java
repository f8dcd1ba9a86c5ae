package org.paratrain.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.TrainingResult;

/**
 * Writes a training run's files: {@code history.csv} (one row an epoch) and
 * {@code result.json} (parameters, final loss, timings, configuration, provenance).
 * Each is written atomically, result.json last, so its presence means the run is complete.
 */
public final class RunWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RunWriter() { }

    /** {@return the mapper every JSON output of paratrain goes through (indented output)} */
    public static ObjectMapper json() {
        return JSON;
    }

    /**
     * Writes a run's {@code result.json} and {@code history.csv} into {@code dir}, each atomically.
     *
     * @param dir        the run's output directory, made if missing
     * @param r          the training result
     * @param spec       what was trained and how
     * @param data       where the data came from and how it was prepared
     * @param provenance how and where the run was made
     * @param extra      more fields for result.json, e.g. test metrics; may be empty
     */
    public static void write(Path dir, TrainingResult r, TrainSpec spec, ObjectNode data, Provenance provenance,
                             ObjectNode extra) {
        AtomicFiles.writeText(dir.resolve("history.csv"), out -> {
            writeHistory(out, r.history(), r.history().loss().length);
        });
        ObjectNode root = resultJson(r, spec);
        if (!Double.isNaN(r.trainAccuracy())) {
            root.put("train_accuracy", r.trainAccuracy());
        }
        root.setAll(extra);
        root.set("data", data);
        root.set("provenance", provenance.toJson());
        AtomicFiles.writeBytes(dir.resolve("result.json"), out -> JSON.writeValue(out, root));
    }

    /**
     * Adds a field to the result.json in {@code dir}, rewriting it atomically.
     *
     * @param dir   a run's output directory, with a result.json
     * @param field the field's name; an existing one is replaced
     * @param value its value
     * @throws java.io.UncheckedIOException if the file cannot be read or written
     */
    public static void addToResult(Path dir, String field, com.fasterxml.jackson.databind.JsonNode value) {
        Path file = dir.resolve("result.json");
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(file.toFile());
            root.set(field, value);
            AtomicFiles.writeBytes(file, out -> JSON.writeValue(out, root));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot update " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the first {@code epochs} entries of {@code h} as {@code dir/history.csv}, for a run
     * that failed or diverged: what went wrong shows in it.
     *
     * @param dir    the run's output directory, made if missing
     * @param h      the history so far
     * @param epochs entries to write, the epochs completed
     * @return the file written
     */
    public static Path writePartialHistory(Path dir, TrainingResult.History h, int epochs) {
        Path file = dir.resolve("history.csv");
        AtomicFiles.writeText(file, out -> writeHistory(out, h, epochs));
        return file;
    }

    /**
     * history.csv: one row an epoch. {@code elapsed_seconds} counts from the start of training
     * to the end of the epoch; {@code loss} is the epoch's training loss (the sum, or mean, over
     * its steps, each at the parameters the step started from); {@code lr} the learning rate of
     * its last update; {@code val_loss} and {@code val_accuracy} (classifiers) the validation
     * measures after the epoch, empty where it was not validated, and present only when the run
     * validated; {@code compute_seconds} and {@code comm_seconds} rank 0's time in the epoch.
     */
    private static void writeHistory(java.io.Writer out, TrainingResult.History h, int epochs)
        throws java.io.IOException {
        boolean validated = java.util.Arrays.stream(h.valLoss(), 0, epochs).anyMatch(v -> !Double.isNaN(v));
        boolean accuracy = java.util.Arrays.stream(h.valAccuracy(), 0, epochs).anyMatch(v -> !Double.isNaN(v));
        out.write("epoch,elapsed_seconds,loss,lr" + (validated ? ",val_loss" : "") + (accuracy ? ",val_accuracy" : "")
            + ",compute_seconds,comm_seconds\n");
        for (int e = 0; e < epochs; e++) {
            StringBuilder row = new StringBuilder().append(e + 1).append(',').append(h.seconds()[e]).append(',')
                .append(h.loss()[e]).append(',').append(cell(h.lr()[e]));
            if (validated) {
                row.append(',').append(cell(h.valLoss()[e]));
            }
            if (accuracy) {
                row.append(',').append(cell(h.valAccuracy()[e]));
            }
            out.write(row.append(',').append(h.compute()[e]).append(',').append(h.comm()[e]).append('\n').toString());
        }
    }

    /** A number, or an empty cell for NaN (not measured). */
    private static String cell(double v) {
        return Double.isNaN(v) ? "" : Double.toString(v);
    }

    /**
     * {@return the result and the settings it was trained with (see {@link SpecCodec}), as result.json holds them}
     * @param r      the training result
     * @param spec   what was trained and how
     */
    public static ObjectNode resultJson(TrainingResult r, TrainSpec spec) {
        ObjectNode root = JSON.createObjectNode();
        ResultCodec.array(root.putArray("params"), r.params());
        root.put("final_loss", r.finalLoss());
        root.put("epochs", r.epochs());
        root.put("nodes", r.nodes());
        root.put("backend", r.backend());
        root.put("algorithm", r.algorithm());
        root.put("model", spec.model().kind());
        root.put("train_seconds", r.trainSeconds());
        root.put("compute_seconds", r.computeSeconds());
        root.put("comm_seconds", r.commSeconds());
        root.put("seconds_per_epoch", r.trainSeconds() / r.epochs());
        root.set("config", SpecCodec.encode(spec));
        root.put("block_size", r.blockSize());
        if (r.split() != null) {
            ArrayNode blocks = root.putArray("blocks_per_rank");
            for (int n : r.split().blocksPerRank()) {
                blocks.add(n);
            }
            root.put("split_moves", r.split().moves());
        }
        ResultCodec.rankTimes(root, r.rankTimes());
        if (spec.exchange().sum() != null && spec.exchange().sum().fixed()) {
            root.put("grid_guess_misses", r.guessMisses());
        }
        return root;
    }
}
