package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What data a run trained on, small enough to keep in every checkpoint: the size and CRC-32C
 * of each input file (not its name: a file moved elsewhere is the same data) and how the
 * samples were prepared from it (split, scaling). A checkpoint resumes only on data with the
 * same fingerprint. Files are hashed, not the samples in memory, so that every backend (one
 * holding all samples, MPI ranks each reading only their own blocks) computes the same one.
 */
public final class DataFingerprint {
    private DataFingerprint() { }

    /**
     * {@return the fingerprint of input files and of how their samples were prepared}
     * @param files       the input files (X, y, test files); nulls are skipped
     * @param preparation how samples were prepared from them: split, scaling, label mapping
     * @throws java.io.UncheckedIOException if a file cannot be read
     */
    public static ObjectNode of(List<Path> files, ObjectNode preparation) {
        ObjectNode n = RunWriter.json().createObjectNode();
        ArrayNode a = n.putArray("files");
        for (Path f : files) {
            if (f != null) {
                ObjectNode e = a.addObject();
                e.put("name", f.getFileName().toString());
                e.put("bytes", size(f));
                e.put("crc32c", crc(f));
            }
        }
        n.set("preparation", preparation);
        return n;
    }

    /**
     * The fingerprint of data held in memory (for programs that build their data set
     * themselves): the sample and feature counts and the CRC-32C of every value's bits.
     *
     * @param d the samples
     * @return the fingerprint, in the same shape as that of files
     */
    public static ObjectNode of(org.paratrain.data.Dataset d) {
        CRC32C crc = new CRC32C();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 * 4096).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (double[] a : List.of(d.x(), d.y())) {
            for (int i = 0; i < a.length; i += 4096) {
                b.clear();
                b.asDoubleBuffer().put(a, i, Math.min(4096, a.length - i));
                crc.update(b.array(), 0, 8 * Math.min(4096, a.length - i));
            }
        }
        ObjectNode n = RunWriter.json().createObjectNode();
        ObjectNode e = n.putArray("files").addObject();
        e.put("name", d.samples() + " x " + d.features() + " in memory");
        e.put("bytes", 8L * (d.x().length + d.y().length));
        e.put("crc32c", String.format("%08x", crc.getValue()));
        n.putObject("preparation");
        return n;
    }

    /**
     * {@return how two fingerprints differ, one phrase each, for {@code --resume}'s refusal; empty when they match}
     * @param saved the fingerprint a checkpoint holds
     * @param now   the fingerprint of the data given now
     */
    public static List<String> differences(JsonNode saved, JsonNode now) {
        List<String> out = new ArrayList<>();
        JsonNode a = saved.path("files");
        JsonNode b = now.path("files");
        if (a.size() != b.size()) {
            out.add("data: " + a.size() + " input files then, " + b.size() + " now");
        }
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!SpecCodec.same(a.get(i).path("crc32c"), b.get(i).path("crc32c"))
                || !SpecCodec.same(a.get(i).path("bytes"), b.get(i).path("bytes"))) {
                out.add("data: " + b.get(i).path("name").asText() + " is not the file the checkpoint was made from ("
                    + a.get(i).path("name").asText() + ", " + a.get(i).path("bytes") + " bytes, CRC-32C "
                    + a.get(i).path("crc32c").asText() + "; now " + b.get(i).path("bytes") + " bytes, "
                    + b.get(i).path("crc32c").asText() + ")");
            }
        }
        if (!SpecCodec.same(saved.path("preparation"), now.path("preparation"))) {
            out.add("data preparation: was " + saved.path("preparation") + ", now " + now.path("preparation"));
        }
        return out;
    }

    private static long size(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + ": " + e.getMessage(), e);
        }
    }

    private static String crc(Path f) {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(f)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                crc.update(buf, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + ": " + e.getMessage(), e);
        }
        return String.format("%08x", crc.getValue());
    }
}
