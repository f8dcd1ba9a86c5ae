package org.paratrain.export;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.paratrain.data.DataFormatException;

/**
 * A safetensors file, read and checked: its tensors (name, dtype, shape, values) and its
 * {@code __metadata__}. The format (as Hugging Face's {@code safetensors} defines it): an
 * unsigned 64-bit little-endian header length {@code n}, {@code n} bytes of a UTF-8 JSON object
 * mapping each tensor's name to its {@code dtype}, {@code shape} and {@code data_offsets}
 * {@code [begin, end)} (relative to the data, which follows the header), with an optional
 * {@code __metadata__} object of strings; then the data, little-endian, row-major.
 *
 * <p>The checks are the format's own, as its reference reader makes them, each refusal one
 * line naming the file (and the tensor): a file shorter than its header says, a header that is
 * not a JSON object (or repeats a key, or exceeds 100 MB), an unknown dtype, a negative or
 * fractional size, offsets whose length is not the dtype's size times the shape's product,
 * offsets beyond the data, tensors whose data overlap or leave bytes between or after them.
 *
 * <p>Values are read for {@code F64} and {@code F32} (as doubles, exactly); a tensor of another
 * dtype is listed, with its bytes checked, but {@link Tensor#values()} is null. The file is read
 * once, front to back, in chunks, and its SHA-256 computed on the way.
 */
public final class Safetensors {
    /** The largest header the format allows (its reference reader's limit). */
    public static final long MAX_HEADER = 100_000_000L;

    /** Bytes per element of each dtype the format defines. */
    private static final Map<String, Integer> SIZES = Map.ofEntries(Map.entry("F64", 8), Map.entry("F32", 4),
        Map.entry("F16", 2), Map.entry("BF16", 2), Map.entry("I64", 8), Map.entry("I32", 4), Map.entry("I16", 2),
        Map.entry("I8", 1), Map.entry("U64", 8), Map.entry("U32", 4), Map.entry("U16", 2), Map.entry("U8", 1),
        Map.entry("BOOL", 1), Map.entry("F8_E4M3", 1), Map.entry("F8_E5M2", 1));
    private static final ObjectMapper STRICT = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final int CHUNK = 1 << 20;

    /**
     * One tensor of the file.
     *
     * @param name   its name in the header
     * @param dtype  its dtype as the header writes it ({@code F64}, {@code F32}, ...)
     * @param shape  its dimensions
     * @param values its values row-major as doubles, for {@code F64} and {@code F32}; null for other dtypes
     */
    public record Tensor(String name, String dtype, long[] shape, double[] values) {
        /** {@return the shape as {@code [16, 4]}} */
        public String shapeText() {
            return Arrays.toString(shape);
        }
    }

    private final Path file;
    private final Map<String, Tensor> tensors;
    private final Map<String, String> metadata;
    private final String sha256;

    private Safetensors(Path file, Map<String, Tensor> tensors, Map<String, String> metadata, String sha256) {
        this.file = file;
        this.tensors = Collections.unmodifiableMap(tensors);
        this.metadata = Collections.unmodifiableMap(metadata);
        this.sha256 = sha256;
    }

    /**
     * {@return the file, read and checked}
     * @param file a safetensors file
     * @throws DataFormatException naming the file (and the tensor) if it is not a well-formed safetensors file
     * @throws UncheckedIOException naming the file if it cannot be read
     */
    public static Safetensors read(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return read(file, ch);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    /** {@return the file read} */
    public Path file() {
        return file;
    }

    /** {@return the tensors by name, in the order of their data in the file} */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    /** {@return the header's {@code __metadata__} (empty when it has none)} */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** {@return the SHA-256 of the whole file, as 64 lowercase hexadecimal digits} */
    public String sha256() {
        return sha256;
    }

    /** What the header says of one tensor, before its data is read. */
    private record Slot(String name, String dtype, long[] shape, long begin, long end) { }

    private static Safetensors read(Path file, FileChannel ch) throws IOException {
        MessageDigest digest = sha256Digest();
        long size = ch.size();
        if (size < 8) {
            throw new DataFormatException(file + ": " + size + " bytes, too short for a safetensors file (it begins "
                + "with an 8-byte header length)");
        }
        ByteBuffer head = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, head, file);
        digest.update(head.array());
        long n = head.getLong(0);
        if (n < 0 || n > size - 8) {
            throw new DataFormatException(file + ": the header length " + Long.toUnsignedString(n) + " goes beyond the "
                + "file (" + size + " bytes): not a safetensors file, or a truncated one");
        }
        if (n > MAX_HEADER) {
            throw new DataFormatException(file + ": a header of " + n + " bytes, more than the " + MAX_HEADER
                + " the safetensors format allows");
        }
        ByteBuffer header = ByteBuffer.allocate((int) n);
        readFully(ch, header, file);
        digest.update(header.array());
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Slot> slots = slots(file, header.array(), size - 8 - n, metadata);
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (Slot s : slots) {
            double[] values = s.dtype().equals("F64") || s.dtype().equals("F32")
                ? new double[Math.toIntExact(elements(s.shape()))] : null;
            readData(ch, file, s, values, chunk, digest);
            tensors.put(s.name(), new Tensor(s.name(), s.dtype(), s.shape(), values));
        }
        return new Safetensors(file, tensors, metadata, HexFormat.of().formatHex(digest.digest()));
    }

    /** The header's tensors sorted by where their data begins, checked to tile the data exactly. */
    private static List<Slot> slots(Path file, byte[] header, long data, Map<String, String> metadata) {
        if (header.length == 0 || header[0] != '{') {
            throw new DataFormatException(file + ": the header does not begin with '{': not a safetensors file");
        }
        JsonNode root;
        try {
            root = STRICT.readTree(new String(header, StandardCharsets.UTF_8));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new DataFormatException(file + ": the header is not JSON: " + abbreviated(e.getOriginalMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new DataFormatException(file + ": the header is not a JSON object");
        }
        List<Slot> slots = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            if (e.getKey().equals("__metadata__")) {
                metadata(file, e.getValue(), metadata);
            } else {
                slots.add(slot(file, e.getKey(), e.getValue(), data));
            }
        }
        slots.sort(Comparator.comparingLong(Slot::begin).thenComparingLong(Slot::end));
        long at = 0;
        Slot previous = null;
        for (Slot s : slots) {
            if (s.begin() < at) {
                throw new DataFormatException(file + ": the data of tensors " + previous.name() + " " + range(previous)
                    + " and " + s.name() + " " + range(s) + " overlap");
            }
            if (s.begin() > at) {
                throw new DataFormatException(file + ": bytes [" + at + ", " + s.begin() + ") of the data belong to no "
                    + "tensor (before " + s.name() + ")");
            }
            at = s.end();
            previous = s;
        }
        if (at != data) {
            throw new DataFormatException(file + ": " + (data - at) + " bytes after the last tensor's data (the "
                + "header's tensors hold " + at + " of the " + data + " bytes after it)");
        }
        return slots;
    }

    private static Slot slot(Path file, String name, JsonNode t, long data) {
        String where = file + ": tensor " + name;
        if (!t.isObject() || !t.path("dtype").isTextual() || !t.path("shape").isArray()
            || !t.path("data_offsets").isArray() || t.size() != 3) {
            throw new DataFormatException(where + ": expected exactly dtype, shape and data_offsets, got "
                + abbreviated(t));
        }
        String dtype = t.get("dtype").asText();
        Integer bytes = SIZES.get(dtype);
        if (bytes == null) {
            throw new DataFormatException(where + ": dtype " + abbreviated(t.get("dtype")) + " is not one of the "
                + "format's (F64, F32, F16, BF16, I64, ...)");
        }
        long[] shape = new long[t.get("shape").size()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = whole(t.get("shape").get(i), where + ": shape");
        }
        JsonNode o = t.get("data_offsets");
        if (o.size() != 2) {
            throw new DataFormatException(where + ": data_offsets must be [begin, end], got " + abbreviated(o));
        }
        long begin = whole(o.get(0), where + ": data_offsets");
        long end = whole(o.get(1), where + ": data_offsets");
        long need;
        try {
            need = Math.multiplyExact(elements(shape), (long) bytes);
        } catch (ArithmeticException e) {
            throw new DataFormatException(where + ": shape " + Arrays.toString(shape) + " is too large");
        }
        if (end < begin || end > data) {
            throw new DataFormatException(where + ": data_offsets [" + begin + ", " + end + "] are outside the data ("
                + data + " bytes after the header): a truncated file, or a damaged header");
        }
        if (end - begin != need) {
            throw new DataFormatException(where + ": data_offsets [" + begin + ", " + end + "] hold " + (end - begin)
                + " bytes; " + dtype + " of shape " + Arrays.toString(shape) + " needs " + need);
        }
        if ((dtype.equals("F64") || dtype.equals("F32")) && elements(shape) > Integer.MAX_VALUE - 8) {
            throw new DataFormatException(where + ": " + elements(shape) + " values, more than a Java array holds");
        }
        return new Slot(name, dtype, shape, begin, end);
    }

    private static void metadata(Path file, JsonNode m, Map<String, String> into) {
        if (!m.isObject()) {
            throw new DataFormatException(file + ": __metadata__ must be an object of strings, got " + abbreviated(m));
        }
        for (Map.Entry<String, JsonNode> e : m.properties()) {
            if (!e.getValue().isTextual()) {
                throw new DataFormatException(file + ": __metadata__ entry " + e.getKey() + " is not a string: "
                    + abbreviated(e.getValue()));
            }
            into.put(e.getKey(), e.getValue().asText());
        }
    }

    /** Reads one tensor's bytes (in chunks: a large tensor is not held twice), into {@code values} if not null. */
    private static void readData(FileChannel ch, Path file, Slot s, double[] values, ByteBuffer chunk,
                                 MessageDigest digest) throws IOException {
        int width = values == null ? 1 : s.dtype().equals("F64") ? 8 : 4;
        long left = s.end() - s.begin();
        int at = 0;
        while (left > 0) {
            chunk.clear().limit((int) Math.min(CHUNK, left));
            readFully(ch, chunk, file);
            digest.update(chunk.array(), 0, chunk.limit());
            left -= chunk.limit();
            if (values == null) {
                continue;
            }
            chunk.flip();
            for (int i = 0; i < chunk.limit() / width; i++) {
                values[at++] = width == 8 ? chunk.getDouble(i * 8) : chunk.getFloat(i * 4);
            }
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, Path file) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new DataFormatException(file + ": the file ended early (it changed while being read?)");
            }
        }
    }

    private static long whole(JsonNode v, String where) {
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new DataFormatException(where + " must hold whole numbers of at least 0, got " + abbreviated(v));
        }
        return v.asLong();
    }

    private static long elements(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    private static String range(Slot s) {
        return "[" + s.begin() + ", " + s.end() + ")";
    }

    private static String abbreviated(Object v) {
        String s = String.valueOf(v).replaceAll("\\s+", " ");
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }

    static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
