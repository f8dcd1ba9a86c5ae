package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.paratrain.train.TrainingResult;

/**
 * A {@link TrainingResult} to JSON and back, whole (history included), so that results
 * made by MPI ranks in other processes reach the process that writes the report. Doubles
 * are written as the shortest decimal that reads back to the same bits.
 */
public final class ResultCodec {
    private ResultCodec() { }

    /**
     * A result as JSON.
     *
     * @param r the result
     * @return its JSON, history included
     */
    public static ObjectNode toJson(TrainingResult r) {
        ObjectNode o = RunWriter.json().createObjectNode();
        array(o.putArray("params"), r.params());
        o.put("final_loss", r.finalLoss());
        o.put("epochs", r.epochs());
        o.put("nodes", r.nodes());
        o.put("backend", r.backend());
        o.put("algorithm", r.algorithm());
        o.put("block_size", r.blockSize());
        o.put("train_seconds", r.trainSeconds());
        o.put("compute_seconds", r.computeSeconds());
        o.put("comm_seconds", r.commSeconds());
        ObjectNode h = o.putObject("history");
        array(h.putArray("loss"), r.history().loss());
        array(h.putArray("seconds"), r.history().seconds());
        array(h.putArray("compute"), r.history().compute());
        array(h.putArray("comm"), r.history().comm());
        if (!Double.isNaN(r.trainAccuracy())) {
            o.put("train_accuracy", r.trainAccuracy());
        }
        if (r.split() != null) {
            ArrayNode b = o.putArray("blocks_per_rank");
            for (int n : r.split().blocksPerRank()) {
                b.add(n);
            }
            o.put("split_moves", r.split().moves());
        }
        rankTimes(o, r.rankTimes());
        o.put("grid_guess_misses", r.guessMisses());
        return o;
    }

    /**
     * A result from the JSON {@link #toJson} made.
     *
     * @param o the JSON
     * @return the result, the same bits as the one written
     */
    public static TrainingResult fromJson(JsonNode o) {
        JsonNode h = o.get("history");
        return new TrainingResult(doubles(o.get("params")), o.get("final_loss").asDouble(), o.get("epochs").asInt(),
            o.get("nodes").asInt(), o.get("backend").asText(), o.get("algorithm").asText(),
            o.get("block_size").asInt(), o.get("train_seconds").asDouble(), o.get("compute_seconds").asDouble(),
            o.get("comm_seconds").asDouble(), new TrainingResult.History(doubles(h.get("loss")),
                doubles(h.get("seconds")), doubles(h.get("compute")), doubles(h.get("comm"))),
            o.has("train_accuracy") ? o.get("train_accuracy").asDouble() : Double.NaN,
            o.has("blocks_per_rank") ? new TrainingResult.Split(ints(o.get("blocks_per_rank")),
                o.path("split_moves").asInt()) : null,
            rankTimes(o), o.path("grid_guess_misses").asLong(0));
    }

    /** {@return the ranks' times a result holds, or null; figures written before some were measured read as none} */
    private static TrainingResult.RankTimes rankTimes(JsonNode o) {
        if (!o.has("compute_seconds_per_rank") || !o.has("comm_seconds_per_rank")) {
            return null;
        }
        double[] compute = doubles(o.get("compute_seconds_per_rank"));
        double[] exchange = doubles(o.get("comm_seconds_per_rank"));
        JsonNode free = o.get("exchange_without_waits_seconds");
        double[] update = doubles(o.get("update_seconds_per_rank"));
        if (update.length != compute.length || compute.length != exchange.length || free == null || !free.isNumber()) {
            return compute.length == exchange.length && compute.length > 0
                ? new TrainingResult.RankTimes(compute, exchange) : null;
        }
        JsonNode median = o.get("exchange_without_waits_median_seconds");
        double[] staged = new double[compute.length];      // not written: not measured, for a result read back
        java.util.Arrays.fill(staged, Double.NaN);
        return new TrainingResult.RankTimes(compute, exchange, update, free.asDouble(),
            o.path("exchange_without_waits_steps").asInt(), staged,
            median != null && median.isNumber() ? median.asDouble() : Double.NaN);
    }

    /**
     * Writes each rank's compute, exchange and update seconds (when gathered) as
     * {@code compute_seconds_per_rank}, {@code comm_seconds_per_rank} (the update included) and
     * {@code update_seconds_per_rank}, in rank order, and the exchange without waits or update
     * over the last steps as {@code exchange_without_waits_seconds} and
     * {@code exchange_without_waits_steps}, and its median step as
     * {@code exchange_without_waits_median_seconds} (when measured).
     *
     * @param o     the result's JSON object
     * @param times the ranks' times, or null to write nothing
     */
    public static void rankTimes(ObjectNode o, TrainingResult.RankTimes times) {
        if (times != null) {
            array(o.putArray("compute_seconds_per_rank"), times.compute());
            array(o.putArray("comm_seconds_per_rank"), times.exchange());
            array(o.putArray("update_seconds_per_rank"), times.update());
            if (times.waitFreeSteps() > 0 && Double.isFinite(times.waitFree())) {
                o.put("exchange_without_waits_seconds", times.waitFree());
                o.put("exchange_without_waits_steps", times.waitFreeSteps());
                if (Double.isFinite(times.waitFreeMedian())) {
                    o.put("exchange_without_waits_median_seconds", times.waitFreeMedian());
                }
            }
        }
    }

    /** Appends every value of {@code v} to {@code a}. */
    static void array(ArrayNode a, double[] v) {
        for (double d : v) {
            a.add(d);
        }
    }

    private static int[] ints(JsonNode a) {
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }

    /** The numbers of a JSON array; an empty array when {@code a} is missing or not an array. */
    static double[] doubles(JsonNode a) {
        if (a == null || !a.isArray()) {
            return new double[0];
        }
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asDouble();
        }
        return v;
    }
}
