package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableFormatsTest {
    @TempDir
    Path dir;

    @Test
    void libsvmFillsAbsentFeaturesWithZero() throws IOException {
        Path f = dir.resolve("d.svm");
        Files.writeString(f, "1 1:0.5 3:2\n0 2:1.5\n");
        Dataset d = TableFormats.libsvm(f, 0);
        assertEquals(3, d.features());
        assertArrayEquals(new double[] {0.5, 0, 2, 0, 1.5, 0}, d.x(), 0.0);
        assertArrayEquals(new double[] {1, 0}, d.y(), 0.0);
        assertEquals(5, TableFormats.libsvm(f, 5).features());
        Files.writeString(f, "1 0:3\n");
        assertTrue(assertThrows(DataFormatException.class, () -> TableFormats.libsvm(f, 0)).getMessage()
            .contains("d.svm:1: '0:3' is not index:value"));
    }
}
