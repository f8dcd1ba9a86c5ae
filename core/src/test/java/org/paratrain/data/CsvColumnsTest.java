package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Columns chosen by name: the values read are the file's own, moved to the order asked for. */
class CsvColumnsTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void pandasIndexIsDroppedWithANote() throws IOException {
        Path f = file("p.csv", ",a,b,target\n0,1.5,2.5,0\n1,3.5,4.5,1\n");
        CsvTable t = CsvFormat.read(f, new CsvFormat.Layout("target", ',', true, true));
        assertEquals(List.of("a", "b"), t.featureNames());
        assertArrayEquals(new double[] {1.5, 2.5, 3.5, 4.5}, t.numeric().x(), 0.0);
        assertEquals(1, t.notes().size());
        assertTrue(t.notes().get(0).contains("pandas' index"), t.notes().toString());
    }

    @Test
    void keptColumnsComeInTheOrderAskedAndTheRestIsNoted() throws IOException {
        Path f = file("k.csv", "c,id,a,b,y\n3,x7,1,2,0\n6,x8,4,5,1\n");
        CsvTable t = CsvFormat.read(f, new CsvFormat.Layout("y", ',', true, true).keeping(List.of("a", "b", "c")));
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6}, t.numeric().x(), 0.0);   // a text column never parsed
        assertTrue(t.notes().get(0).contains("ignored 1 column that is not among the features: id"), t.notes().toString());
        DataFormatException e = assertThrows(DataFormatException.class, () -> CsvFormat.read(f,
            new CsvFormat.Layout("y", ',', true, true).keeping(List.of("a", "zz", "qq"))));
        assertTrue(e.getMessage().startsWith(f + ": no column 'zz', 'qq'"), e.getMessage());
        assertThrows(DataFormatException.class, () -> CsvFormat.read(f,
            new CsvFormat.Layout("y", ',', true, true).keeping(List.of("a", "y"))));
    }

    @Test
    void droppedColumnsAreLeftOutAndUnknownOnesNamed() throws IOException {
        Path f = file("d.csv", "id,a,b,y\nq,1,2,0\nr,4,5,1\n");
        CsvTable t = CsvFormat.read(f, new CsvFormat.Layout("y", ',', true, true).dropping(List.of("id")));
        assertEquals(List.of("a", "b"), t.featureNames());
        assertArrayEquals(new double[] {1, 2, 4, 5}, t.numeric().x(), 0.0);
        DataFormatException e = assertThrows(DataFormatException.class, () -> CsvFormat.read(f,
            new CsvFormat.Layout("y", ',', true, true).dropping(List.of("nope"))));
        assertTrue(e.getMessage().contains("no column 'nope' to drop"), e.getMessage());
    }
}
