package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.paratrain.train.LossReduction;
import org.paratrain.train.spec.ExchangeSpec;
import org.paratrain.train.spec.LossSpec;
import org.paratrain.train.spec.ModelNames;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The one place a run's settings become JSON and come back: result.json, model.json and
 * checkpoints all record them through here, so what a file says ran is what ran.
 *
 * <p>Three groups: {@code model} (kind, layers, activation, classes, biases and how the
 * weights start), {@code optimizer} (kind, learning rate, schedule, warm-up, momentum or
 * Adam's constants, weight decay) and {@code training} (epochs, loss reduction, batch and
 * block size, seed). Beside them {@code nodes}, {@code exchange} and {@code rebalance_steps}
 * (how often ranks move their block boundaries), which change how fast a run goes but never its
 * numbers: a checkpoint made at one node count, with one exchange,
 * continues at another; and {@code sum}, how the gradients are added up, which does.
 */
public final class SpecCodec {
    private SpecCodec() { }

    /**
     * The settings of a run as JSON.
     *
     * @param spec what was trained, how, on how many nodes and with which exchange
     * @return an object with the groups above
     */
    public static ObjectNode encode(TrainSpec spec) {
        ObjectNode root = RunWriter.json().createObjectNode();
        encodeModel(root.putObject("model"), spec.model(), spec.run().seed());
        OptimizerSpec opt = spec.optimizer();
        ObjectNode o = root.putObject("optimizer");
        o.put("kind", opt.method().label());
        o.put("learning_rate", opt.learningRate());
        o.put("schedule", opt.schedule().label());
        o.put("warmup_steps", opt.warmupSteps());
        if (opt.method() == OptimizerSpec.Method.MOMENTUM || opt.method() == OptimizerSpec.Method.NESTEROV) {
            o.put("momentum", opt.momentum());
        }
        if (opt.method() == OptimizerSpec.Method.ADAM) {
            o.put("beta1", OptimizerSpec.BETA1);
            o.put("beta2", OptimizerSpec.BETA2);
            o.put("epsilon", OptimizerSpec.EPSILON);
        }
        o.put("weight_decay", opt.weightDecay());
        if (opt.clipNorm() > 0) {
            o.put("clip_norm", opt.clipNorm());
        }
        if (!spec.loss().plain()) {
            ObjectNode l = root.putObject("loss");
            LossSpec loss = spec.loss();
            if (loss.balanced()) {
                l.put("class_weights", "balanced");
            } else if (!loss.classWeights().isEmpty()) {
                var a = l.putArray("class_weights");
                loss.classWeights().forEach(a::add);
            }
            l.put("label_smoothing", loss.labelSmoothing());
        }
        RunSpec run = spec.run();
        ObjectNode t = root.putObject("training");
        t.put("epochs", run.epochs());
        t.put("loss_reduction", run.lossReduction().name().toLowerCase(Locale.ROOT));
        t.put("batch_size", run.batchSize());
        t.put("block_size", run.blockSize());
        if (run.bucketSize() == RunSpec.BUCKET_AUTO) {
            t.put("bucket_size", "auto");
        } else {
            t.put("bucket_size", run.bucketSize());
        }
        t.put("seed", run.seed());
        if (run.nodes() instanceof RunSpec.Nodes.Count c) {
            root.put("nodes", c.n());
        } else {
            root.put("nodes", run.nodes().toString());
        }
        root.put("exchange", spec.exchange().label());
        if (run.rebalance() == RunSpec.REBALANCE_AUTO) {
            root.put("rebalance_steps", "auto");
        } else {
            root.put("rebalance_steps", run.rebalance());
        }
        if (spec.exchange().sum() != null) {
            root.put("sum", spec.exchange().sum().label());
        }
        if (spec.exchange().scheme() == ExchangeSpec.Scheme.SHARDED) {
            root.put("shard_optimizer", true);
        }
        return root;
    }

    private static void encodeModel(ObjectNode m, ModelSpec model, long seed) {
        m.put("kind", model.kind());
        if (model instanceof ModelSpec.Mlp mlp) {
            m.put("layers", mlp.layers());
            m.put("activation", mlp.activation().name().toLowerCase(Locale.ROOT));
            m.put("precision", mlp.precision().name().toLowerCase(Locale.ROOT));
        }
        if (model instanceof ModelSpec.Cnn cnn) {
            m.put("layers", cnn.label());
            m.put("precision", cnn.precision().name().toLowerCase(Locale.ROOT));
            if (cnn.image() != null) {
                m.put("image_shape", cnn.image().toString());
            }
        }
        if (model instanceof ModelSpec.Softmax || model instanceof ModelSpec.Cnn
            || model.classifier() && model instanceof ModelSpec.Mlp) {
            m.put("classes", model.classes());
        }
        m.put("intercept", model.intercept());
        m.put("initial_weights", model.initialWeights(seed));
    }

    /**
     * The settings {@link #encode} wrote, read back into the same specs.
     *
     * @param root what {@link #encode} wrote
     * @return the spec
     * @throws IllegalArgumentException if a setting is missing or out of range
     */
    public static TrainSpec decode(JsonNode root) {
        JsonNode o = root.path("optimizer");
        JsonNode t = root.path("training");
        OptimizerSpec opt = new OptimizerSpec(OptimizerSpec.Method.parse(o.path("kind").asText()),
            o.path("learning_rate").asDouble(), o.path("momentum").asDouble(OptimizerSpec.DEFAULT_MOMENTUM), o.path("weight_decay").asDouble(),
            OptimizerSpec.Schedule.parse(o.path("schedule").asText("constant")), o.path("warmup_steps").asLong(),
            o.path("clip_norm").asDouble(0.0));
        RunSpec run = new RunSpec(RunSpec.Nodes.parse(root.path("nodes").asText("1")), t.path("epochs").asInt(),
            t.path("batch_size").asInt(), t.path("seed").asLong(),
            LossReduction.valueOf(t.path("loss_reduction").asText("sum").toUpperCase(Locale.ROOT)),
            t.path("block_size").asInt(), root.path("rebalance_steps").asText("0").equals("auto")
                ? RunSpec.REBALANCE_AUTO : root.path("rebalance_steps").asInt(0),
            t.path("bucket_size").asText("auto").equals("auto") ? RunSpec.BUCKET_AUTO : t.path("bucket_size").asInt());
        // A record without a sum is older than the sums, when every scheme summed by block.
        String name = root.path("exchange").asText("master-worker");
        ExchangeSpec exchange = ExchangeSpec.parse(name, root.has("sum") ? ExchangeSpec.Sum.parse(
            root.path("sum").asText()) : name.equals("auto") ? null : ExchangeSpec.Sum.BLOCKS);
        return new TrainSpec(decodeModel(root.path("model")), opt,
            root.path("shard_optimizer").asBoolean() ? exchange.sharded() : exchange, run, decodeLoss(root.path("loss")));
    }

    /** The {@code loss} group {@link #encode} wrote, or plain cross-entropy when there is none. */
    private static LossSpec decodeLoss(JsonNode l) {
        if (l.isMissingNode()) {
            return LossSpec.PLAIN;
        }
        JsonNode w = l.path("class_weights");
        List<Double> weights = new ArrayList<>();
        w.forEach(v -> weights.add(v.asDouble()));
        return new LossSpec(w.isArray() ? weights : List.of(), w.asText("").equals("balanced"),
            l.path("label_smoothing").asDouble(0.0));
    }

    /**
     * The model spec {@link #encode} wrote under {@code model} (also in model files).
     *
     * @param m the {@code model} object
     * @return the spec
     */
    public static ModelSpec decodeModel(JsonNode m) {
        return ModelNames.named(m.path("kind").asText(), m.path("intercept").asBoolean(), m.path("classes").asInt(0),
            m.path("layers").asText(""), m.path("activation").asText("relu"), m.path("image_shape").asText(""))
            .withPrecision(ModelNames.precision(m.path("precision").asText("float64")));
    }

    /**
     * Where two runs' settings differ in anything that changes their numbers (not nodes or
     * the exchange's algorithm, but its sum: a fixed-point sum and the block table round
     * differently), as "group.field: was A, now B"; empty when a checkpoint of one may continue
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
        String was = sumOf(saved);
        String is = sumOf(now);
        if (!was.equals(is)) {
            out.add("sum: was " + was + ", now " + is);
        }
        return out;
    }

    /** The sum a record ran with: records older than the sums summed by block. */
    private static String sumOf(JsonNode settings) {
        return settings.path("sum").asText(ExchangeSpec.Sum.BLOCKS.label());
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
