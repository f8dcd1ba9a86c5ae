package org.paratrain.train.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.paratrain.optim.OptimizerState;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;

/**
 * One checkpoint as bytes: a versioned JSON header that people and tools can read, a binary
 * payload that keeps every double's exact bits, and a checksum over both.
 *
 * <pre>
 * "paratrain-checkpoint\n"                 21 bytes, ASCII
 * header length H                           4 bytes, big-endian
 * header                                    H bytes, UTF-8 JSON (below)
 * payload                                   8 bytes a double, little-endian, raw bits:
 *                                           params, optimizer scalars, optimizer vectors in
 *                                           order, best params, history loss, seconds,
 *                                           compute, comm, lr, val_loss, val_accuracy
 * CRC-32C of everything above               8 bytes, big-endian
 * </pre>
 *
 * The header holds {@code format}, {@code version}, {@code epoch}, {@code step},
 * {@code params} (count), {@code best} (count), {@code optimizer} ({@code kind}, {@code steps}, {@code scalars}
 * count, {@code vectors} lengths), {@code history} (entries), {@code sum_grids} (the fixed-point
 * sum's grid exponents carried into the next step, per segment; -2147483648 for none yet; empty
 * for other sums; absent from files written before, which resume with fresh grids) and {@code meta}: what the
 * caller records to tell later which run the checkpoint belongs to (configuration, data
 * fingerprint, provenance). Readers refuse another format or a newer version.
 */
public final class CheckpointFile {
    /** The version written; readers accept it and nothing newer. */
    public static final int VERSION = 1;
    private static final byte[] MAGIC = "paratrain-checkpoint\n".getBytes(StandardCharsets.US_ASCII);
    private static final ObjectMapper JSON = new ObjectMapper();

    private CheckpointFile() { }

    /**
     * A checkpoint read back.
     *
     * @param state the training state, ready to resume from
     * @param meta  the writer's record of what it belongs to: settings, data fingerprint, provenance
     * @param file  the file it was read from, or null when decoded from bytes alone
     */
    public record Contents(TrainingState state, JsonNode meta, java.nio.file.Path file) {
        /**
         * Contents decoded from bytes, not yet from a file.
         *
         * @param state the training state
         * @param meta  the run's record
         */
        public Contents(TrainingState state, JsonNode meta) {
            this(state, meta, null);
        }
    }

    /** The bytes of {@code state} with {@code meta}. */
    static byte[] encode(TrainingState state, JsonNode meta) {
        OptimizerState opt = state.optimizer();
        double[][] vectors = opt.vectors();
        TrainingResult.History h = state.history();
        ObjectNode head = JSON.createObjectNode();
        head.put("format", "paratrain-checkpoint");
        head.put("version", VERSION);
        head.put("epoch", state.epoch());
        head.put("step", state.step());
        head.put("params", state.params().length);
        head.put("best", state.best().length);
        ObjectNode o = head.putObject("optimizer");
        o.put("kind", opt.kind());
        o.put("steps", opt.steps());
        o.put("scalars", opt.scalars().length);
        com.fasterxml.jackson.databind.node.ArrayNode lengths = o.putArray("vectors");
        for (double[] v : vectors) {
            lengths.add(v.length);
        }
        head.put("history", h.loss().length);
        com.fasterxml.jackson.databind.node.ArrayNode grids = head.putArray("sum_grids");
        for (int e : state.sumGrids()) {
            grids.add(e);
        }
        head.set("meta", meta);
        byte[] header = head.toString().getBytes(StandardCharsets.UTF_8);
        List<double[]> arrays = new ArrayList<>(List.of(state.params(), opt.scalars()));
        arrays.addAll(List.of(vectors));
        arrays.add(state.best());
        arrays.addAll(h.arrays());
        long doubles = arrays.stream().mapToLong(a -> a.length).sum();
        long size = MAGIC.length + 4L + header.length + 8 * doubles + 8;
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("a checkpoint of " + size + " bytes is more than one file of this "
                + "format holds (2 GB)");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size);
        b.put(MAGIC).putInt(header.length).put(header);
        b.order(ByteOrder.LITTLE_ENDIAN);
        for (double[] a : arrays) {
            b.asDoubleBuffer().put(a);
            b.position(b.position() + 8 * a.length);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.order(ByteOrder.BIG_ENDIAN).putLong(crc.getValue());
        return b.array();
    }

    /**
     * The checkpoint in {@code bytes}.
     *
     * @throws IOException if the bytes are not a whole, intact checkpoint of a known version;
     *                     the message says what is wrong
     */
    static Contents decode(byte[] bytes) throws IOException {
        if (bytes.length < MAGIC.length + 12 || !java.util.Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0,
            MAGIC.length)) {
            throw new IOException("not a paratrain checkpoint (no \"paratrain-checkpoint\" at the start)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getLong(bytes.length - 8) != crc.getValue()) {
            throw new IOException("checksum mismatch: the file is damaged or was cut short");
        }
        b.position(MAGIC.length);
        int headerLength = b.getInt();
        if (headerLength < 2 || headerLength > bytes.length - b.position() - 8) {
            throw new IOException("header length " + headerLength + " does not fit the file");
        }
        JsonNode head = JSON.readTree(new String(bytes, b.position(), headerLength, StandardCharsets.UTF_8));
        b.position(b.position() + headerLength);
        int version = head.path("version").asInt(-1);
        if (version < 1 || version > VERSION) {
            throw new IOException("checkpoint version " + head.path("version") + "; this paratrain reads version "
                + VERSION + " and older");
        }
        return new Contents(state(head, b.order(ByteOrder.LITTLE_ENDIAN), bytes.length - 8), head.path("meta"));
    }

    private static TrainingState state(JsonNode head, ByteBuffer b, int end) throws IOException {
        JsonNode o = head.path("optimizer");
        int entries = count(head, "history");
        double[] params = doubles(b, count(head, "params"), end);
        double[] scalars = doubles(b, count(o, "scalars"), end);
        double[][] vectors = new double[o.path("vectors").size()][];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = doubles(b, o.path("vectors").get(i).asInt(-1), end);
        }
        double[] best = doubles(b, count(head, "best"), end);
        List<double[]> history = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            history.add(doubles(b, entries, end));
        }
        TrainingResult.History h = TrainingResult.History.of(history);
        if (b.position() != end) {
            throw new IOException((end - b.position()) + " bytes after the payload the header describes");
        }
        JsonNode g = head.path("sum_grids");     // absent in checkpoints from before grids were carried
        if (!g.isMissingNode() && !g.isArray()) {
            throw new IOException("header field \"sum_grids\" is " + g + ", not an array");
        }
        int[] grids = new int[g.size()];
        for (int i = 0; i < grids.length; i++) {
            JsonNode e = g.get(i);
            if (!e.isIntegralNumber() || !e.canConvertToInt()
                || (e.asInt() != Integer.MIN_VALUE && (e.asInt() < -1074 || e.asInt() > 1024))) {
                throw new IOException("header field \"sum_grids\" holds " + e + ": expected a grid exponent from -1074 "
                    + "to 1024, or -2147483648 for none");
            }
            grids[i] = e.asInt();
        }
        try {
            return new TrainingState(head.path("epoch").asInt(-1), head.path("step").asInt(-1), params,
                new OptimizerState(o.path("kind").asText(), o.path("steps").asLong(-1), scalars, vectors), h, best,
                grids);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());
        }
    }

    private static int count(JsonNode n, String field) throws IOException {
        int c = n.path(field).asInt(-1);
        if (c < 0) {
            throw new IOException("header field \"" + field + "\" is missing or negative");
        }
        return c;
    }

    private static double[] doubles(ByteBuffer b, int n, int end) throws IOException {
        if (n < 0 || (long) n * 8 > end - b.position()) {
            throw new IOException("the header describes more payload than the file holds");
        }
        double[] v = new double[n];
        b.asDoubleBuffer().get(v);
        b.position(b.position() + 8 * n);
        return v;
    }
}
