package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CSV as other tools write it: quoting, delimiters, headers or none, string labels, and errors that name line and column. */
class CsvFormatTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private static CsvFormat.Layout label(String column) {
        return new CsvFormat.Layout(column, ',', true, true);
    }

    private String error(Path f, CsvFormat.Layout layout) {
        return assertThrows(DataFormatException.class, () -> CsvFormat.read(f, layout).numeric()).getMessage();
    }

    @Test
    void takesTheLabelColumnByNameIndexOrLast() throws IOException {
        Path f = write("d.csv", "a, y ,b\n1,0,2\n3,1,4.5\n\n");
        Dataset byName = CsvFormat.read(f, label("y")).numeric();
        assertArrayEquals(new double[] {1, 2, 3, 4.5}, byName.x(), 0.0);
        assertArrayEquals(new double[] {0, 1}, byName.y(), 0.0);
        assertArrayEquals(byName.x(), CsvFormat.read(f, label("1")).numeric().x(), 0.0);
        Dataset last = CsvFormat.read(f, CsvFormat.Layout.standard()).numeric();
        assertArrayEquals(new double[] {2, 4.5}, last.y(), 0.0);
        assertEquals(2, last.features());
    }

    @Test
    void readsQuotedHeadersAndFieldsAsPandasRAndPythonWriteThem() throws IOException {
        // csv.QUOTE_ALL, a byte-order mark, embedded delimiters, doubled quotes, a line break in a quoted name.
        Path f = write("q.csv", "\uFEFF\"sepal, length\",\"the \"\"width\"\"\",\"spe\ncies\"\r\n"
            + "\"5.1\",\"3.5\",\"setosa, the small\"\r\n\"6.2\",\"2.9\",\"virginica \"\"big\"\"\"\r\n");
        CsvTable t = CsvFormat.read(f, label("spe\ncies"));
        assertArrayEquals(new String[] {"sepal, length", "the \"width\"", "spe\ncies"}, t.names());
        assertArrayEquals(new double[] {5.1, 3.5, 6.2, 2.9}, t.x(), 0.0);
        assertArrayEquals(new String[] {"setosa, the small", "virginica \"big\""}, t.labels());
        assertArrayEquals(new int[] {3, 4}, t.lines(), "lines of the file, counting the header's two");
    }

    @Test
    void takesAnyDelimiterAndFilesWithoutAHeader() throws IOException {
        Path f = write("s.csv", "1;2;a\n3;4;b\n");
        CsvTable t = CsvFormat.read(f, new CsvFormat.Layout(null, ';', false, true));
        assertEquals(2, t.samples(), "the first row is a sample, not a header");
        assertArrayEquals(new double[] {1, 2, 3, 4}, t.x(), 0.0);
        assertArrayEquals(t.labels(), CsvFormat.read(f, new CsvFormat.Layout("2", ';', false, true)).labels());
        String byName = assertThrows(DataFormatException.class,
            () -> CsvFormat.read(f, new CsvFormat.Layout("y", ';', false, true))).getMessage();
        assertTrue(byName.contains("with --no-header the columns have no names, so --label takes an index"), byName);
        Path numbers = write("n.csv", "1,2,0\n3,4,1\n");
        assertTrue(error(numbers, CsvFormat.Layout.standard()).contains("n.csv:1: the header line holds only numbers"));
        assertTrue(error(numbers, CsvFormat.Layout.standard()).contains("--no-header"));
    }

    @Test
    void missingValuesAreErrorsNamingLineAndColumn() throws IOException {
        Path f = write("m.csv", "a,b,y\n1,2,0\n3,,1\n");
        assertTrue(error(f, CsvFormat.Layout.standard()).contains("m.csv:3: column 2 ('b') is empty: a missing value"),
            error(f, CsvFormat.Layout.standard()));
        Path na = write("na.csv", "a,b,y\n1,2,0\n3,4,1\nNA,5,0\n");
        assertTrue(error(na, CsvFormat.Layout.standard()).contains("na.csv:4: column 1 ('a') is 'NA': a missing value"));
        Path label = write("l.csv", "a,y\n1,\n");
        assertTrue(error(label, CsvFormat.Layout.standard()).contains("l.csv:2: column 2 ('y') is empty"));
    }

    @Test
    void otherErrorsNameFileAndLine() throws IOException {
        Path f = write("bad.csv", "a,b\n1,2\n3\n");
        assertTrue(error(f, CsvFormat.Layout.standard()).contains("bad.csv:3: found 1 columns, expected 2"));
        Path x = write("x.csv", "a,b\n1,2\nzz,1\n");
        assertTrue(error(x, CsvFormat.Layout.standard()).contains("x.csv:3: column 1 ('a') is 'zz', expected a finite"));
        Path quote = write("u.csv", "a,b\n\"1,2\n");
        assertTrue(error(quote, CsvFormat.Layout.standard()).startsWith(quote + ": not valid CSV"));
        assertThrows(DataFormatException.class, () -> CsvFormat.read(write("e.csv", ""), CsvFormat.Layout.standard()));
        Path text = write("t.csv", "a,y\n1,setosa\n");
        assertTrue(error(text, CsvFormat.Layout.standard()).contains("t.csv:2: label 'setosa' (column 'y') is not a "
            + "number"));
    }

    @Test
    void stringLabelsAreNumberedInSortedOrderWhateverTheRowOrder() throws IOException {
        Path f = write("iris.csv", "x,species\n1,virginica\n2,setosa\n3,versicolor\n4,setosa\n");
        CsvTable t = CsvFormat.read(f, CsvFormat.Layout.standard());
        ClassNames names = ClassNames.ofLabels(t.labels());
        assertEquals(List.of("setosa", "versicolor", "virginica"), names.names());
        assertArrayEquals(new double[] {2, 0, 1, 0}, t.coded(names).y(), 0.0);
        Path unknown = write("new.csv", "x,species\n1,setosa\n2,daisy\n");
        String e = assertThrows(DataFormatException.class,
            () -> CsvFormat.read(unknown, CsvFormat.Layout.standard()).coded(names)).getMessage();
        assertTrue(e.contains("new.csv:3: label 'daisy' is not a class the model knows (setosa, versicolor, "
            + "virginica)"), e);
        assertNull(ClassNames.ofLabels(new String[] {"0", "1", "2"}), "numbers are class indices already");
    }

    @Test
    void twoClassLabelsMinusOnePlusOneAndOneTwoBecomeZeroOne() {
        ClassNames signed = ClassNames.ofSignedOrOneBased(new double[] {-1, 1, 1});
        assertEquals(List.of("-1", "+1"), signed.names());
        assertArrayEquals(new double[] {0, 1, 1}, signed.encode(new double[] {-1, 1, 1}, dir), 0.0);
        assertArrayEquals(new double[] {1, 0}, signed.encode(new String[] {"1", "-1"}, i -> "f"), 0.0);
        assertEquals(List.of("1", "2"), ClassNames.ofSignedOrOneBased(new double[] {2, 1}).names());
        assertNull(ClassNames.ofSignedOrOneBased(new double[] {0, 1}));
        assertNull(ClassNames.ofSignedOrOneBased(new double[] {1, 2, 3}));
    }

    /**
     * A sample weights column: read into the samples' weights, never a feature nor an ignored
     * column, by name or by index without a header; kept through --features; a negative, missing
     * or non-numeric weight names its line and column, the label column or all zeros refused.
     */
    @Test
    void aWeightColumnWeighsTheSamplesAndIsNoFeature() throws IOException {
        Path f = write("w.csv", "a,wt,b,y\n1,2,3,0\n4,0.5,6,1\n7,0,9,1\n");
        CsvTable t = CsvFormat.read(f, CsvFormat.Layout.standard().withWeight("wt"));
        Dataset d = t.numeric();
        assertArrayEquals(new double[] {1, 3, 4, 6, 7, 9}, d.x(), 0.0);
        assertArrayEquals(new double[] {2, 0.5, 0}, d.weights(), 0.0);
        assertTrue(t.notes().isEmpty(), t.notes().toString());
        Dataset kept = CsvFormat.read(f, CsvFormat.Layout.standard().withWeight("wt").keeping(List.of("b"))).numeric();
        assertArrayEquals(new double[] {3, 6, 9}, kept.x(), 0.0);
        assertArrayEquals(d.weights(), kept.weights(), 0.0);
        Path plain = write("p.csv", "1,2,3,0\n4,0.5,6,1\n");
        Dataset byIndex = CsvFormat.read(plain, new CsvFormat.Layout(null, ',', false, true).withWeight("1")).numeric();
        assertArrayEquals(new double[] {2, 0.5}, byIndex.weights(), 0.0);
        assertNull(CsvFormat.read(f, CsvFormat.Layout.standard()).numeric().weights());
        // pandas' unnamed index column is still dropped with a weight column beside it.
        Path pandas = write("i.csv", ",a,wt,y\n0,1,2,0\n1,3,1,1\n");
        CsvTable pt = CsvFormat.read(pandas, CsvFormat.Layout.standard().withWeight("wt"));
        assertArrayEquals(new double[] {1, 3}, pt.x(), 0.0);
        assertArrayEquals(new double[] {2, 1}, pt.numeric().weights(), 0.0);

        assertEquals(f + ":3: column 2 ('wt') is '-0.5'; a sample weight must be at least 0",
            error(write("w.csv", "a,wt,b,y\n1,2,3,0\n4,-0.5,6,1\n"), CsvFormat.Layout.standard().withWeight("wt")));
        assertEquals(f + ":2: column 2 ('wt') is 'heavy', expected a finite number",
            error(write("w.csv", "a,wt,b,y\n1,heavy,3,0\n"), CsvFormat.Layout.standard().withWeight("wt")));
        String missing = error(write("w.csv", "a,wt,b,y\n1,,3,0\n"), CsvFormat.Layout.standard().withWeight("wt"));
        assertTrue(missing.startsWith(f + ":2: column 2 ('wt') is empty: a missing value"), missing);
        assertEquals(f + ": every sample weight in column 2 ('wt') is 0; nothing to train on",
            error(write("w.csv", "a,wt,b,y\n1,0,3,0\n2,0,4,1\n"), CsvFormat.Layout.standard().withWeight("wt")));
        assertEquals(f + ": column 'y' is the label column; the sample weights (--sample-weight) need a column of "
            + "their own", error(f, CsvFormat.Layout.standard().withWeight("y")));
        assertEquals(f + ": column 'wt' holds the sample weights (--sample-weight); a feature cannot be the weights too",
            error(f, CsvFormat.Layout.standard().withWeight("wt").keeping(List.of("a", "wt"))));
        String unknown = error(f, CsvFormat.Layout.standard().withWeight("w"));
        assertTrue(unknown.startsWith(f + ": sample weight column 'w' is neither a column of the header"), unknown);
    }
}
