package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PaperFormatTest {
    @TempDir
    Path dir;

    @Test
    void writeThenReadGivesTheSameBits() {
        double[] x = {0.1, -1e-310, 1.7976931348623157e308, 4.9e-324, -0.0, 1.0 / 3, 2.5e-17, 123456789.123};
        double[] y = {Math.PI, -Math.E, 0.0, 1e22};
        Dataset d = new Dataset(x, y, 4, 2);
        PaperFormat.write(d, dir);
        Dataset back = PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in"));
        assertEquals(2, back.features());
        for (int i = 0; i < x.length; i++) {
            assertEquals(Double.doubleToRawLongBits(x[i]), Double.doubleToRawLongBits(back.x()[i]));
        }
        assertArrayEquals(y, back.y(), 0.0);
    }

    @Property(tries = 200)
    void anyFiniteValuesRoundTrip(@ForAll @Size(min = 1, max = 20) java.util.List<@DoubleRange(min = -1e300, max = 1e300) Double> values)
        throws IOException {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        // jqwik runs properties outside JUnit Jupiter, which makes the @TempDir above: one directory a try, removed here.
        Path tmp = Files.createTempDirectory("pf");
        try {
            PaperFormat.write(new Dataset(v, v.clone(), v.length, 1), tmp);
            Dataset back = PaperFormat.read(tmp.resolve("X.in"), tmp.resolve("y.in"));
            for (int i = 0; i < v.length; i++) {
                assertEquals(Double.doubleToRawLongBits(v[i]), Double.doubleToRawLongBits(back.x()[i]));
            }
        } finally {
            Files.deleteIfExists(tmp.resolve("X.in"));
            Files.deleteIfExists(tmp.resolve("y.in"));
            Files.delete(tmp);
        }
    }

    @Test
    void acceptsTabsSurroundingSpaceAndTrailingBlankLines() throws IOException {
        Files.writeString(dir.resolve("X.in"), "  1\t2 \n3  4\n\n\n");
        Files.writeString(dir.resolve("y.in"), "5\n6");
        Dataset d = PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in"));
        assertArrayEquals(new double[] {1, 2, 3, 4}, d.x(), 0.0);
        assertArrayEquals(new double[] {5, 6}, d.y(), 0.0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "ragged row           | 1 2\\n3\\n       | 1\\n2\\n   | X.in:2: found 1 numbers, expected 2 like line 1",
        "not a number         | 1\\n2x\\n      | 1\\n2\\n   | X.in:2: value 1 is '2x', expected a number",
        "NaN                  | 1\\nNaN\\n     | 1\\n2\\n   | X.in:2: value 1 is NaN, expected a finite number",
        "infinity in y        | 1\\n2\\n       | 1\\n-Infinity\\n | y.in:2: value 1 is -Infinity, expected a finite number",
        "two values in y      | 1\\n2\\n       | 1\\n2 3\\n | y.in:2: found 2 numbers, expected 1",
        "blank line in middle | 1\\n\\n2\\n    | 1\\n2\\n   | X.in:2: blank line before the end of the file",
        "empty X              | \\n             | 1\\n      | X.in: the file is empty",
        "lengths differ       | 1\\n2\\n3\\n   | 1\\n2\\n   | has 3 samples but",
    })
    void badInputNamesFileLineAndExpectation(String name, String x, String y, String expected) throws IOException {
        Files.writeString(dir.resolve("X.in"), x.strip().replace("\\n", "\n"));
        Files.writeString(dir.resolve("y.in"), y.strip().replace("\\n", "\n"));
        DataFormatException e = assertThrows(DataFormatException.class,
            () -> PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")));
        assertTrue(e.getMessage().contains(expected.strip()), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    /** A rank's range of lines equals those rows of the whole file; blank lines are skipped, not counted. */
    @Test
    void readRangeTakesOnlyTheRequestedSamples() throws IOException {
        Files.writeString(dir.resolve("X.in"), "1 10\n2 20\n\n3 30\n4 40\n5 50\n");
        Files.writeString(dir.resolve("y.in"), "-1\n-2\n-3\n-4\n-5\n");
        assertEquals(5, PaperFormat.countSamples(dir.resolve("X.in")));
        Dataset mid = PaperFormat.readRange(dir.resolve("X.in"), dir.resolve("y.in"), 1, 4, 5);
        assertArrayEquals(new double[] {2, 20, 3, 30, 4, 40}, mid.x(), 0.0);
        assertArrayEquals(new double[] {-2, -3, -4}, mid.y(), 0.0);
        assertEquals(2, mid.features());
        Files.writeString(dir.resolve("y.in"), "-1\n-2\n");
        assertThrows(DataFormatException.class,
            () -> PaperFormat.readRange(dir.resolve("X.in"), dir.resolve("y.in"), 0, 2, 5));
    }

    @Test
    void missingFileIsNamed() {
        DataFormatException e = assertThrows(DataFormatException.class,
            () -> PaperFormat.read(dir.resolve("none.in"), dir.resolve("y.in")));
        assertTrue(e.getMessage().endsWith("none.in: no such file"), e.getMessage());
    }

    @Test
    void binaryFileIsRejected() throws IOException {
        Files.write(dir.resolve("X.in"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        Files.writeString(dir.resolve("y.in"), "1\n");
        assertThrows(DataFormatException.class, () -> PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")));
    }

    /** The scan splits a line as the regular expression it replaced did, on any mix of the characters around separators. */
    @Property(tries = 2000)
    void tokensAreWhatTheRegularExpressionGave(@ForAll long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        char[] alphabet = {' ', '\t', '1', '-', 'e', '\u00a0', '\r', '.'};
        StringBuilder line = new StringBuilder();
        int n = r.nextInt(0, 24);
        for (int i = 0; i < n; i++) {
            line.append(alphabet[r.nextInt(alphabet.length)]);
        }
        String s = line.toString().strip();
        String[] expected = s.isEmpty() ? new String[0] : s.split("[ \t]+");
        assertArrayEquals(expected, PaperFormat.tokens(line.toString()), "line '" + line + "'");
    }
}
