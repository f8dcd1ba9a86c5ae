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
    void csvTakesTheLabelColumnByNameIndexOrLast() throws IOException {
        Path f = dir.resolve("d.csv");
        Files.writeString(f, "a, y ,b\n1,0,2\n3,1,4.5\n\n");
        Dataset byName = TableFormats.csv(f, "y");
        assertArrayEquals(new double[] {1, 2, 3, 4.5}, byName.x(), 0.0);
        assertArrayEquals(new double[] {0, 1}, byName.y(), 0.0);
        assertArrayEquals(byName.x(), TableFormats.csv(f, "1").x(), 0.0);
        Dataset last = TableFormats.csv(f, null);
        assertArrayEquals(new double[] {2, 4.5}, last.y(), 0.0);
        assertEquals(2, last.features());
    }

    @Test
    void csvErrorsNameFileAndLine() throws IOException {
        Path f = dir.resolve("bad.csv");
        Files.writeString(f, "a,b\n1,2\n3\n");
        assertTrue(assertThrows(DataFormatException.class, () -> TableFormats.csv(f, null)).getMessage()
            .contains("bad.csv:3: found 1 columns, expected 2"));
        Files.writeString(f, "a,b\n1,NaN\n");
        assertTrue(assertThrows(DataFormatException.class, () -> TableFormats.csv(f, null)).getMessage()
            .contains("bad.csv:2: b is NaN"));
        Files.writeString(f, "");
        assertThrows(DataFormatException.class, () -> TableFormats.csv(f, null));
    }

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
