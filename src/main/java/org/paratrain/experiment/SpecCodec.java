package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Recipe;
import org.paratrain.train.TrainConfig;

/**
 * The one place a run's settings become JSON and come back: result.json, model.json and
 * checkpoints all record them through here, so what a file says ran is what ran.
 *
 * <p>Three groups: {@code model} (kind, layers, activation, classes, biases and how the
 * weights start), {@code optimizer} (kind, learning rate, schedule, warm-up, momentum or
 * Adam's constants, weight decay) and {@code training} (epochs, loss reduction, batch and
 * block size, seed). Beside them {@code nodes} and {@code exchange}, which change how fast a
 * run goes but never its numbers: a checkpoint made at one node count, with one exchange,
 * continues at another.
 */
public final class SpecCodec {
    private SpecCodec() { }

    /**
     * The settings of a run as JSON.
     *
     * @param config how to train
     * @param recipe what to train and how to update it
     * @return {@code model}, {@code optimizer}, {@code training}, {@code nodes} and {@code exchange}
     */
    public static ObjectNode encode(TrainConfig config, Recipe recipe) {
        ObjectNode root = RunWriter.json().createObjectNode();
        ObjectNode m = root.putObject("model");
        m.put("kind", recipe.model());
        boolean network = recipe.model().startsWith("mlp");
        if (network) {
            m.put("layers", recipe.layers());
            m.put("activation", recipe.activation());
        }
        if (!recipe.model().equals("linear") && !recipe.model().equals("logistic")
            && !recipe.model().equals("mlp-regression")) {
            m.put("classes", recipe.classes());
        }
        m.put("intercept", network || config.intercept());
        m.put("initial_weights", initialWeights(recipe));
        ObjectNode o = root.putObject("optimizer");
        o.put("kind", recipe.optimizer());
        o.put("learning_rate", config.learningRate());
        o.put("schedule", recipe.schedule());
        o.put("warmup_steps", recipe.warmupSteps());
        if (recipe.optimizer().equals("momentum") || recipe.optimizer().equals("nesterov")) {
            o.put("momentum", recipe.momentum());
        }
        if (recipe.optimizer().equals("adam")) {
            o.put("beta1", 0.9);
            o.put("beta2", 0.999);
            o.put("epsilon", 1e-8);
        }
        o.put("weight_decay", recipe.weightDecay());
        ObjectNode t = root.putObject("training");
        t.put("epochs", config.epochs());
        t.put("loss_reduction", config.lossReduction().name().toLowerCase(Locale.ROOT));
        t.put("batch_size", recipe.batchSize());
        t.put("block_size", config.blockSize());
        t.put("seed", recipe.seed());
        root.put("nodes", config.nodes());
        root.put("exchange", config.exchange());
        return root;
    }

    /** How the network's weights start: zeros for the linear models; He or Xavier for an MLP by its activation. */
    static String initialWeights(Recipe recipe) {
        if (!recipe.model().startsWith("mlp")) {
            return "zeros";
        }
        String hidden = recipe.activation().equals("relu") ? "he-normal" : "xavier-uniform";
        return hidden + " hidden layers, xavier-uniform output, zero biases, seed " + recipe.seed();
    }

    /**
     * The settings {@link #encode} wrote, read back.
     *
     * @param root what {@link #encode} wrote (possibly read back from a file)
     * @return the same records
     * @throws IllegalArgumentException if a value is out of range, naming it
     */
    public static Settings decode(JsonNode root) {
        JsonNode m = root.path("model");
        JsonNode o = root.path("optimizer");
        JsonNode t = root.path("training");
        String kind = m.path("kind").asText();
        Recipe recipe = new Recipe(kind, m.path("classes").asInt(0), o.path("kind").asText(),
            o.path("momentum").asDouble(0.9), o.path("weight_decay").asDouble(), o.path("schedule").asText(),
            o.path("warmup_steps").asLong(), t.path("batch_size").asInt(), t.path("seed").asLong(),
            m.path("layers").asText(""), m.path("activation").asText("relu"));
        boolean intercept = !kind.startsWith("mlp") && m.path("intercept").asBoolean();
        TrainConfig config = new TrainConfig(root.path("nodes").asInt(1), t.path("epochs").asInt(),
            o.path("learning_rate").asDouble(), intercept,
            LossReduction.valueOf(t.path("loss_reduction").asText().toUpperCase(Locale.ROOT)),
            t.path("block_size").asInt(), root.path("exchange").asText(TrainConfig.MASTER_WORKER));
        return new Settings(config, recipe);
    }

    /**
     * A run's settings, typed.
     *
     * @param config how to train
     * @param recipe what to train and how to update it
     */
    public record Settings(TrainConfig config, Recipe recipe) { }

    /**
     * Where two runs' settings differ in anything that changes their numbers (not nodes or
     * exchange), as "group.field: was A, now B"; empty when a checkpoint of one may continue
     * as the other.
     *
     * @param saved the settings a checkpoint recorded
     * @param now   the settings of the run that would continue it
     * @return one phrase per difference, empty when none
     */
    public static List<String> differences(JsonNode saved, JsonNode now) {
        List<String> out = new ArrayList<>();
        for (String group : List.of("model", "optimizer", "training")) {
            compare(group, saved.path(group), now.path(group), out);
        }
        return out;
    }

    private static void compare(String group, JsonNode a, JsonNode b, List<String> out) {
        java.util.Set<String> fields = new java.util.TreeSet<>();
        a.fieldNames().forEachRemaining(fields::add);
        b.fieldNames().forEachRemaining(fields::add);
        for (String f : fields) {
            JsonNode x = a.get(f);
            JsonNode y = b.get(f);
            if (!same(x, y)) {
                out.add(group + "." + f + ": was " + (x == null ? "not set" : x) + ", now "
                    + (y == null ? "not set" : y));
            }
        }
    }

    /**
     * Equal as written: a number read back from a file may be another node type (an int for
     * what was written from a long) than the same number made in memory.
     */
    static boolean same(JsonNode x, JsonNode y) {
        return x != null && y != null && x.toString().equals(y.toString());
    }
}
