package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxFormatTest {
    @TempDir
    Path dir;

    static byte[] idx(int[] dims, byte[] values) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0x00000800 | dims.length);
        for (int d : dims) {
            out.writeInt(d);
        }
        out.write(values);
        return bytes.toByteArray();
    }

    static void gzip(Path file, byte[] data) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(data);
        }
    }

    @Test
    void readsImagesAndLabelsPlainOrGzipped() throws IOException {
        byte[] pixels = {0, (byte) 255, 51, 102, (byte) 204, 0, 1, 2};      // 2 images of 2 x 2
        Files.write(dir.resolve("img"), idx(new int[] {2, 2, 2}, pixels));
        gzip(dir.resolve("lab.gz"), idx(new int[] {2}, new byte[] {7, 3}));
        Dataset d = IdxFormat.read(dir.resolve("img"), dir.resolve("lab.gz"));
        assertEquals(2, d.samples());
        assertEquals(4, d.features());
        assertArrayEquals(new double[] {0, 1, 0.2, 0.4, 0.8, 0, 1 / 255.0, 2 / 255.0}, d.x(), 1e-15);
        assertArrayEquals(new double[] {7, 3}, d.y(), 0.0);
    }

    @Test
    void readRangeKeepsOnlyTheRequestedItems() throws IOException {
        byte[] pixels = {1, 2, 3, 4, 5, 6};                                 // 3 images of 2 pixels
        gzip(dir.resolve("img.gz"), idx(new int[] {3, 2}, pixels));
        Files.write(dir.resolve("lab"), idx(new int[] {3}, new byte[] {7, 8, 9}));
        assertEquals(3, IdxFormat.count(dir.resolve("img.gz")));
        Dataset mid = IdxFormat.readRange(dir.resolve("img.gz"), dir.resolve("lab"), 1, 3);
        assertArrayEquals(new double[] {3 / 255.0, 4 / 255.0, 5 / 255.0, 6 / 255.0}, mid.x(), 1e-15);
        assertArrayEquals(new double[] {8, 9}, mid.y(), 0.0);
        assertEquals(1, IdxFormat.readRange(dir.resolve("img.gz"), dir.resolve("lab"), 2, 2).samples(),
            "an empty range gives a placeholder");
        assertThrows(DataFormatException.class, () -> IdxFormat.readRange(dir.resolve("img.gz"), dir.resolve("lab"),
            2, 5));
    }

    @Test
    void badFilesAreNamed() throws IOException {
        Files.write(dir.resolve("img"), idx(new int[] {3, 2, 2}, new byte[12]));
        Files.write(dir.resolve("lab"), idx(new int[] {2}, new byte[2]));
        assertTrue(assertThrows(DataFormatException.class, () -> IdxFormat.read(dir.resolve("img"), dir.resolve("lab")))
            .getMessage().contains("holds 3 images but"));
        Files.write(dir.resolve("short"), java.util.Arrays.copyOf(idx(new int[] {3, 2, 2}, new byte[12]), 20));
        assertTrue(assertThrows(DataFormatException.class, () -> IdxFormat.read(dir.resolve("short"),
            dir.resolve("lab"))).getMessage().contains("ends before"));
        Files.writeString(dir.resolve("text"), "hello world, not idx");
        assertTrue(assertThrows(DataFormatException.class, () -> IdxFormat.read(dir.resolve("text"),
            dir.resolve("lab"))).getMessage().contains("not an IDX file"));
        assertTrue(assertThrows(DataFormatException.class, () -> IdxFormat.read(dir.resolve("none"),
            dir.resolve("lab"))).getMessage().endsWith("no such file"));
    }
}
