package org.paratrain.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.data.Columns;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.Standardizer;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.MultilayerPerceptron.Precision;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.ModelSpec;

/**
 * The safetensors file itself, parsed here with a plain {@link ByteBuffer} and Jackson, not
 * through {@link Safetensors}: the header length, the JSON padded with spaces to a multiple of
 * 8, the metadata all strings, the offsets tiling the data from 0 with nothing after, and every
 * parameter written exactly once (as itself in F64, rounded to a float in F32). Then the round
 * trip through {@link InitialParameters} (bit for bit in F64), and the reader on a file made by
 * hand, in an order the writer never uses.
 */
class SafetensorsFormatTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.paratrain.export.OnnxLayoutTest#models")
    void headerOffsetsAndValuesAsTheFormatSays(String name, ModelSpec spec, int features, int classes, String scaling)
        throws Exception {
        SplittableRandom r = new SplittableRandom(name.hashCode());
        double[] params = r.doubles(spec.newModel(features, classes).parameterCount(), -1, 1).toArray();
        Standardizer st = scaling != null && scaling.contains("standardize")
            ? new Standardizer(r.doubles(features, -1, 1).toArray(), r.doubles(features, 0.5, 2).toArray()) : null;
        boolean idx = scaling != null && scaling.contains("idx");
        ModelFile file = new ModelFile(spec, features, classes, params, st, null, Columns.generated(features),
            idx ? DataSpec.Format.IDX : DataSpec.Format.CSV);
        for (Precision p : Precision.values()) {
            byte[] bytes = SafetensorsExport.of(file).precision(p).metadata("owner", "a test").bytes();
            int width = p == Precision.FLOAT64 ? 8 : 4;
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            long n = b.getLong(0);
            assertEquals(0, (8 + n) % 8, "the data starts 8-byte aligned");
            String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
            assertTrue(header.startsWith("{"), header);
            assertEquals(header.strip(), header.stripTrailing(), "padded at the end only");
            assertTrue(header.length() - header.stripTrailing().length() < 8, "at most 7 spaces of padding");
            JsonNode h = new ObjectMapper().readTree(header);
            JsonNode meta = h.get("__metadata__");
            meta.properties().forEach(e -> assertTrue(e.getValue().isTextual(), e.getKey() + " is a string"));
            assertEquals(SafetensorsExport.FORMAT, meta.get("format").asText());
            assertEquals(spec.kind(), meta.get("paratrain_model").asText());
            assertEquals("a test", meta.get("owner").asText());
            assertEquals(p.name().toLowerCase(java.util.Locale.ROOT), meta.get("precision").asText());
            assertEquals(idx, meta.has("pixel_scale"));
            if (st != null) {
                assertArrayEquals(st.mean(), new ObjectMapper().readValue(meta.get("standardizer_mean").asText(),
                    double[].class));
            }
            long data = bytes.length - 8 - n;
            long at = 0;
            List<Double> written = new ArrayList<>();
            for (var e : h.properties()) {
                if (e.getKey().equals("__metadata__")) {
                    continue;
                }
                JsonNode t = e.getValue();
                if (t.get("dtype").asText().equals("I64")) {
                    // A batchnorm module's num_batches_tracked: a scalar 0, after the values.
                    assertTrue(e.getKey().endsWith(".num_batches_tracked"), e.getKey());
                    assertEquals(0, t.get("shape").size(), e.getKey());
                    assertEquals(at, t.get("data_offsets").get(0).asLong(), e.getKey() + " starts where the last ended");
                    assertEquals(0L, b.getLong((int) (8 + n + at)), e.getKey());
                    at += 8;
                    assertEquals(at, t.get("data_offsets").get(1).asLong(), e.getKey() + "'s length");
                    continue;
                }
                assertEquals(p == Precision.FLOAT64 ? "F64" : "F32", t.get("dtype").asText());
                long count = 1;
                for (JsonNode d : t.get("shape")) {
                    count *= d.asLong();
                }
                assertEquals(at, t.get("data_offsets").get(0).asLong(), e.getKey() + " starts where the last ended");
                at += count * width;
                assertEquals(at, t.get("data_offsets").get(1).asLong(), e.getKey() + "'s length");
                for (long i = 0; i < count; i++) {
                    int pos = (int) (8 + n + t.get("data_offsets").get(0).asLong() + i * width);
                    written.add(width == 8 ? b.getDouble(pos) : (double) b.getFloat(pos));
                }
            }
            assertEquals(data, at, "the tensors fill the data, nothing after");
            double[] got = written.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double[] want = Arrays.stream(params).map(v -> width == 8 ? v : (float) v).sorted().toArray();
            assertArrayEquals(want, got, "each parameter once");
            Path f = Files.write(dir.resolve(name.replaceAll("\\W", "_") + p + ".safetensors"), bytes);
            double[] back = InitialParameters.read(f, spec, features, classes).params();
            for (int i = 0; i < params.length; i++) {
                assertEquals(width == 8 ? params[i] : (float) params[i], back[i], 0.0, "parameter " + i);
                if (width == 8) {
                    assertEquals(Double.doubleToRawLongBits(params[i]), Double.doubleToRawLongBits(back[i]));
                }
            }
            Safetensors s = Safetensors.read(f);
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), s.sha256());
            assertEquals("a test", s.metadata().get("owner"));
            assertEquals(SafetensorsExport.of(file).tensors(), s.tensors().values().stream()
                .map(t -> t.name() + " " + t.shapeText()).toList(), "in state_dict order");
        }
    }

    @Test
    void aModelFileRoundTripsBitForBitAndWritesAtomically() throws Exception {
        ModelSpec spec = new ModelSpec.Mlp(List.of(5), org.paratrain.model.MultilayerPerceptron.Activation.TANH,
            org.paratrain.model.MultilayerPerceptron.Head.SOFTMAX, 3);
        double[] params = new SplittableRandom(3).doubles(spec.newModel(4, 3).parameterCount(), -2, 2).toArray();
        params[0] = Double.MIN_VALUE;
        params[1] = -0.0;
        params[2] = Math.nextUp(1.0);
        ModelFile m = new ModelFile(spec, 4, 3, params, null, null);
        Path json = dir.resolve("model.json");
        m.write(json, org.paratrain.experiment.RunWriter.json().createObjectNode(),
            org.paratrain.experiment.Provenance.capture(List.of("test")));
        Path st = dir.resolve("model.safetensors");
        SafetensorsExport.write(m, st);
        for (Path f : List.of(st, json)) {
            InitialParameters init = InitialParameters.read(f, spec, 4, 3);
            double[] back = init.params();
            for (int i = 0; i < params.length; i++) {
                assertEquals(Double.doubleToRawLongBits(params[i]), Double.doubleToRawLongBits(back[i]), f + " " + i);
            }
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))),
                init.sha256());
            assertEquals(f.toString().endsWith(".json") ? "model.json" : "safetensors", init.format());
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of("model.json", "model.safetensors"), files.map(p -> p.getFileName().toString())
                .sorted().toList(), "no temporary file left");
        }
    }

    @Test
    void readsAFileMadeByHandInAnotherOrder() throws Exception {
        // The header lists 0.bias first, its data comes second; F32; no metadata; no padding beyond the JSON.
        String header = "{\"0.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]},"
            + "\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";
        ByteBuffer b = ByteBuffer.allocate(8 + header.length() + 32).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length()).put(header.getBytes(StandardCharsets.US_ASCII));
        for (float v : new float[] {1, 2, 3, 4, 5, 6, 0.5f, -0.25f}) {
            b.putFloat(v);
        }
        Path f = Files.write(dir.resolve("hand.safetensors"), b.array());
        Safetensors s = Safetensors.read(f);
        assertEquals(List.of("0.weight", "0.bias"), List.copyOf(s.tensors().keySet()), "in the order of the data");
        assertEquals(Map.of(), s.metadata());
        // Softmax of 3 features and 2 classes: W class by class, then the biases, as the tensors hold them.
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 0.5, -0.25}, InitialParameters.read(f,
            new ModelSpec.Softmax(2, true), 3, 2).params());
        // An MLP without hidden layers has the same tensors, but stores W transposed (in x out).
        assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6, 0.5, -0.25}, InitialParameters.read(f,
            new ModelSpec.Mlp(List.of(), org.paratrain.model.MultilayerPerceptron.Activation.RELU,
                org.paratrain.model.MultilayerPerceptron.Head.SOFTMAX, 2), 3, 2).params());
        DataFormatException e = assertThrows(DataFormatException.class, () -> InitialParameters.read(f,
            new ModelSpec.Softmax(2, true), 4, 2));
        assertTrue(e.getMessage().contains("0.weight") && e.getMessage().contains("[2, 3]")
            && e.getMessage().contains("[2, 4]"), e.getMessage());
        assertNull(Safetensors.read(Files.write(dir.resolve("i64.safetensors"), intTensor())).tensors().get("n")
            .values(), "another dtype is listed, its values not converted");
    }

    /** One I64 tensor of one element. */
    private static byte[] intTensor() {
        String header = "{\"n\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]}}    ";
        ByteBuffer b = ByteBuffer.allocate(8 + header.length() + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length()).put(header.getBytes(StandardCharsets.US_ASCII)).putLong(7);
        return b.array();
    }
}
