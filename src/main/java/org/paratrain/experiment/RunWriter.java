package org.paratrain.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.TrainConfig;
import org.paratrain.train.TrainingResult;

/**
 * Writes a training run's files: {@code history.csv} (one row an epoch) and
 * {@code result.json} (parameters, final loss, timings, configuration, provenance).
 * Each is written atomically, result.json last, so its presence means the run is complete.
 */
public final class RunWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RunWriter() { }

    /** The mapper every JSON output of paratrain goes through. */
    public static ObjectMapper json() {
        return JSON;
    }

    /** Writes both files into {@code dir}; {@code data} describes the input for the record. */
    public static void write(Path dir, TrainingResult r, TrainConfig config, ObjectNode data, Provenance provenance) {
        write(dir, r, config, org.paratrain.train.Recipe.paper(), data, provenance);
    }

    /** Writes both files into {@code dir}, recording the model and optimiser of {@code recipe}. */
    public static void write(Path dir, TrainingResult r, TrainConfig config, org.paratrain.train.Recipe recipe,
                             ObjectNode data, Provenance provenance) {
        write(dir, r, config, recipe, data, provenance, JSON.createObjectNode());
    }

    /** As above, with {@code extra} fields (test metrics) added to result.json. */
    public static void write(Path dir, TrainingResult r, TrainConfig config, org.paratrain.train.Recipe recipe,
                             ObjectNode data, Provenance provenance, ObjectNode extra) {
        AtomicFiles.writeText(dir.resolve("history.csv"), out -> {
            out.write("epoch,loss,seconds,compute_seconds,comm_seconds\n");
            TrainingResult.History h = r.history();
            for (int e = 0; e < h.loss().length; e++) {
                out.write((e + 1) + "," + h.loss()[e] + "," + h.seconds()[e] + "," + h.compute()[e] + ","
                    + h.comm()[e] + "\n");
            }
        });
        ObjectNode root = resultJson(r, config);
        root.put("model", recipe.model());
        if (!Double.isNaN(r.trainAccuracy())) {
            root.put("train_accuracy", r.trainAccuracy());
        }
        ObjectNode cfg = (ObjectNode) root.get("config");
        cfg.put("optimizer", recipe.optimizer());
        cfg.put("schedule", recipe.schedule());
        cfg.put("weight_decay", recipe.weightDecay());
        if (!recipe.optimizer().equals("gd") && !recipe.optimizer().equals("adam")) {
            cfg.put("momentum", recipe.momentum());
        }
        root.setAll(extra);
        root.set("data", data);
        root.set("provenance", provenance.toJson());
        AtomicFiles.writeBytes(dir.resolve("result.json"), out -> JSON.writeValue(out, root));
    }

    /** The result and its configuration as JSON. */
    public static ObjectNode resultJson(TrainingResult r, TrainConfig config) {
        ObjectNode root = JSON.createObjectNode();
        ResultCodec.array(root.putArray("params"), r.params());
        root.put("final_loss", r.finalLoss());
        root.put("epochs", r.epochs());
        root.put("nodes", r.nodes());
        root.put("backend", r.backend());
        root.put("algorithm", r.algorithm());
        root.put("model", "linear");
        root.put("train_seconds", r.trainSeconds());
        root.put("compute_seconds", r.computeSeconds());
        root.put("comm_seconds", r.commSeconds());
        root.put("seconds_per_epoch", r.trainSeconds() / r.epochs());
        ObjectNode cfg = root.putObject("config");
        cfg.put("learning_rate", config.learningRate());
        cfg.put("intercept", config.intercept());
        cfg.put("loss_reduction", config.lossReduction().name().toLowerCase(java.util.Locale.ROOT));
        cfg.put("block_size", r.blockSize());
        cfg.put("optimizer", "gd");
        cfg.put("initial_weights", "zeros");
        return root;
    }
}
