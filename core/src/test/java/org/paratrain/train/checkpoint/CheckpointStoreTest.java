package org.paratrain.train.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.optim.OptimizerState;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;

class CheckpointStoreTest {
    @TempDir
    Path dir;

    static TrainingState state(int epoch, double[] params) {
        double[] h = new double[epoch];
        for (int i = 0; i < epoch; i++) {
            h[i] = 100.0 / (i + 1);
        }
        return new TrainingState(epoch, 0, params, new OptimizerState("adam", 7L * epoch,
            new double[] {0.9, 0.999}, new double[][] {params.clone(), new double[params.length]}),
            new TrainingResult.History(h, h, h, h));
    }

    static ObjectNode meta() {
        ObjectNode m = new ObjectMapper().createObjectNode();
        m.putObject("settings").put("lr", 0.1);
        return m;
    }

    /** Every double comes back with its exact bits: signed zeros, subnormals, NaN payloads, infinities. */
    @Property(tries = 200)
    void bitsSurviveTheRoundTrip(@ForAll double a, @ForAll double b, @ForAll long rawBits) throws IOException {
        double[] p = {a, b, Double.longBitsToDouble(rawBits), -0.0, Double.MIN_VALUE, Double.MAX_VALUE,
            Double.longBitsToDouble(0x7ff0000000000123L), Double.NEGATIVE_INFINITY};
        TrainingState s = state(3, p);
        CheckpointFile.Contents c = CheckpointFile.decode(CheckpointFile.encode(s, meta()));
        for (int i = 0; i < p.length; i++) {
            assertEquals(Double.doubleToRawLongBits(p[i]), Double.doubleToRawLongBits(c.state().params()[i]));
        }
        assertEquals(s, c.state());
        assertEquals(meta(), c.meta());
    }

    /**
     * The fixed-point sum's carried grid exponents come back as written, "none yet" included; a
     * checkpoint written before they were kept (no field) reads as carrying none; a field that is
     * not integers is refused by name.
     */
    @Test
    void carriedGridsSurviveTheRoundTrip() throws IOException {
        TrainingState plain = state(2, new double[] {1, 2});
        int[] grids = {Integer.MIN_VALUE, -1074, 7, 1024};
        TrainingState s = new TrainingState(2, 0, plain.params(), plain.optimizer(), plain.history(), new double[0],
            grids);
        assertArrayEquals(grids, CheckpointFile.decode(CheckpointFile.encode(s, meta())).state().sumGrids());
        byte[] before = withHeader(CheckpointFile.encode(plain, meta()), h -> h.remove("sum_grids"));
        assertEquals(0, CheckpointFile.decode(before).state().sumGrids().length);
        for (java.util.function.Consumer<ObjectNode> edit : List.<java.util.function.Consumer<ObjectNode>>of(
            h -> h.putArray("sum_grids").add(1.5), h -> h.putArray("sum_grids").add(1025),
            h -> h.putArray("sum_grids").add(-1075), h -> h.put("sum_grids", "4"), h -> h.putObject("sum_grids"))) {
            byte[] bad = withHeader(CheckpointFile.encode(s, meta()), edit);
            IOException e = assertThrows(IOException.class, () -> CheckpointFile.decode(bad));
            assertTrue(e.getMessage().contains("sum_grids"), e.getMessage());
        }
    }

    /**
     * A fixed-point run resumed from a checkpoint without grids (written before they were kept) is
     * told that its bits may differ from an uninterrupted run's; with grids, or with a sum that has
     * none, nothing is said.
     */
    @Test
    void aFixedPointCheckpointWithoutGridsIsNamed() throws IOException {
        TrainingState plain = state(2, new double[] {1, 2});
        TrainingState withGrids = new TrainingState(2, 0, plain.params(), plain.optimizer(), plain.history(),
            new double[0], new int[] {4, -8});
        for (String sum : List.of("fixed:1", "blocks")) {
            for (TrainingState t : List.of(plain, withGrids)) {
                Path d = Files.createTempDirectory(dir, "ck");
                ObjectNode m = meta();
                ((ObjectNode) m.path("settings")).put("sum", sum);
                new CheckpointStore(d, 2).write(t, m);
                List<String> warnings = new ArrayList<>();
                org.paratrain.experiment.CheckpointRecords.load(d, m, warnings::add);
                boolean expected = sum.equals("fixed:1") && t == plain;
                assertEquals(expected ? 1 : 0, warnings.size(), sum + " " + warnings);
                if (expected) {
                    assertTrue(warnings.get(0).contains("before checkpoints kept the fixed-point sum's grids"),
                        warnings.get(0));
                }
            }
        }
    }

    /** The file's bytes with its header changed by {@code edit}, framed and checksummed again. */
    private static byte[] withHeader(byte[] file, java.util.function.Consumer<ObjectNode> edit) throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(file);
        int magic = "paratrain-checkpoint\n".length();
        int length = b.getInt(magic);
        ObjectNode head = (ObjectNode) new ObjectMapper().readTree(new String(file, magic + 4, length,
            java.nio.charset.StandardCharsets.UTF_8));
        edit.accept(head);
        byte[] h = head.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int payload = file.length - 8 - magic - 4 - length;
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(magic + 4 + h.length + payload + 8);
        out.put(file, 0, magic).putInt(h.length).put(h).put(file, magic + 4 + length, payload);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putLong(crc.getValue());
        return out.array();
    }

    /** Any single flipped bit, or a cut anywhere, is caught by the checksum or the framing. */
    @Test
    void damageAnywhereIsRefused() {
        byte[] ok = CheckpointFile.encode(state(4, new double[] {1, 2, 3}), meta());
        for (int i = 0; i < ok.length; i++) {
            byte[] bad = ok.clone();
            bad[i] ^= (byte) (1 << (i % 8));
            assertThrows(IOException.class, () -> CheckpointFile.decode(bad), "flipped bit in byte " + i);
        }
        for (int n = 0; n < ok.length; n += 7) {
            byte[] cut = java.util.Arrays.copyOf(ok, n);
            assertThrows(IOException.class, () -> CheckpointFile.decode(cut), "cut at " + n);
        }
    }

    @Test
    void keepsTheNewestAndFallsBackPastADamagedOne() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 2);
        for (int e = 1; e <= 5; e++) {
            store.write(state(e, new double[] {e, -e}), meta());
        }
        List<Path> files = CheckpointStore.list(dir);
        assertEquals(2, files.size(), files.toString());
        assertEquals(5, CheckpointStore.newest(dir, w -> { }).state().epoch());
        try (var s = Files.list(dir)) {
            assertEquals(2, s.count(), "temporary files left behind");
        }
        // Damage the newest: a warning, and the one before it.
        byte[] b = Files.readAllBytes(files.get(1));
        b[b.length / 2] ^= 1;
        Files.write(files.get(1), b);
        List<String> warnings = new ArrayList<>();
        TrainingState s = CheckpointStore.newest(dir, warnings::add).state();
        assertEquals(4, s.epoch());
        assertArrayEquals(new double[] {4, -4}, s.params());
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains(files.get(1).getFileName().toString())
            && warnings.get(0).contains("checksum"), warnings.get(0));
        // Damage both: an error naming the directory and both reasons.
        Files.write(files.get(0), new byte[] {1, 2, 3});
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> CheckpointStore.newest(dir, w -> { }));
        assertTrue(e.getMessage().contains("no intact checkpoint") && e.getMessage().contains("not a paratrain"),
            e.getMessage());
    }

    @Test
    void anEmptyDirectoryIsNamed() {
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> CheckpointStore.newest(dir, w -> { }));
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    }

    /** A writer killed mid-write leaves a temporary file; the next write removes it, but not a live writer's. */
    @Test
    void temporariesOfDeadWritersAreRemoved() throws IOException {
        Files.createDirectories(dir);
        Path dead = Files.writeString(dir.resolve(".checkpoint-999999999-1.tmp"), "half a checkpoint");
        Path live = Files.writeString(dir.resolve(".checkpoint-" + ProcessHandle.current().pid() + "-2.tmp"), "busy");
        new CheckpointStore(dir, 2).write(state(1, new double[] {1}), meta());
        assertTrue(Files.notExists(dead));
        assertTrue(Files.exists(live));
    }
}
