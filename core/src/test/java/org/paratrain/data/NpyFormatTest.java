package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.PythonReference;

/**
 * The .npy and .npz readers against files numpy itself wrote: every dtype read here, both
 * byte orders, C and Fortran order, format versions 1.0, 2.0 and 3.0, npz stored and
 * compressed. Each array's reference is what numpy's {@code astype('<f8')} makes of it, written
 * as raw little-endian float64 bytes by numpy, compared bit for bit.
 */
class NpyFormatTest {
    static final List<String> DTYPES = List.of("<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "|i1", "<i2", ">i2", "<i4",
        ">i4", "<i8", ">i8", "|u1", "<u2", ">u2", "<u4", ">u4", "<u8", ">u8", "|b1");

    /** 7 x 3 arrays of each dtype with its extremes, in C and Fortran order, in each version; their references. */
    private static final String ARRAYS = """
        import numpy as np
        from numpy.lib import format as fmt
        rs = np.random.RandomState(7)
        def values(dt):
            d = np.dtype(dt)
            if d.kind == 'f':
                i = np.finfo(d)
                e = 3 if d.itemsize == 2 else 6      # float16 ends at 65504
                v = rs.standard_normal(21) * 10.0 ** rs.randint(-e, e, size=21)
                v[:6] = [i.max, -i.max, i.tiny, i.tiny / 4, -0.0, i.eps]
                return v.astype(d)
            if d.kind == 'b':
                return rs.randint(0, 2, size=21).astype(d)
            i = np.iinfo(d)
            v = rs.randint(i.min, i.max, size=21, dtype=d.newbyteorder('='))
            extremes = [i.min, i.max, 0, 1, i.max - 1]
            if d.kind == 'u' and d.itemsize == 8:
                extremes += [2**63 + 1, 2**53 + 1, 2**63 + 2**11, 2**63 + 2**10, 2**64 - 2**10]
            if d.kind == 'i' and d.itemsize == 8:
                extremes += [2**53 + 1, -(2**53) - 1, 2**62 + 2**9]
            v[:len(extremes)] = extremes
            return v.astype(d)
        for dt in %s:
            a = values(dt).reshape(7, 3)
            name = dt.replace('<', 'le').replace('>', 'be').replace('|', '')
            a.astype('<f8').tofile(name + '.f64')
            for order in 'CF':
                for version in [(1, 0), (2, 0), (3, 0)]:
                    with open('%%s-%%s-%%d.npy' %% (name, order, version[0]), 'wb') as f:
                        fmt.write_array(f, np.asarray(a, order=order), version=version)
            np.save(name + '-labels.npy', a[:, 0])
            np.save(name + '-column.npy', a[:, :1])
        """.formatted(DTYPES.stream().map(d -> "'" + d + "'").toList());

    @TempDir
    static Path dir;

    @BeforeAll
    static void writeWithNumpy() {
        PythonReference.needNumpy();
        PythonReference.run(dir, ARRAYS);
    }

    private static String name(String dtype) {
        return dtype.replace("<", "le").replace(">", "be").replace("|", "");
    }

    @Test
    void everyDtypeOrderAndVersionReadsAsNumpysFloat64() throws IOException {
        for (String dtype : DTYPES) {
            double[] expected = PythonReference.float64(dir.resolve(name(dtype) + ".f64"));
            for (String order : List.of("C", "F")) {
                for (int version = 1; version <= 3; version++) {
                    Path f = dir.resolve(name(dtype) + "-" + order + "-" + version + ".npy");
                    Dataset d = NpyFormat.readFeatures(f);
                    assertEquals(7, d.samples(), f.toString());
                    assertEquals(3, d.features(), f.toString());
                    assertBits(expected, d.x(), f.toString());
                }
            }
        }
    }

    @Test
    void labelsAreOneDimensionalOrOneColumn() throws IOException {
        for (String dtype : DTYPES) {
            double[] all = PythonReference.float64(dir.resolve(name(dtype) + ".f64"));
            double[] first = new double[7];
            for (int i = 0; i < 7; i++) {
                first[i] = all[3 * i];
            }
            Path x = dir.resolve(name(dtype) + "-C-1.npy");
            assertBits(first, NpyFormat.read(x, dir.resolve(name(dtype) + "-labels.npy")).y(), dtype);
            assertBits(first, NpyFormat.read(x, dir.resolve(name(dtype) + "-column.npy")).y(), dtype);
        }
    }

    @Test
    void npzStoredAndCompressedWithEachUsualName() throws IOException {
        PythonReference.run(dir, """
            import numpy as np
            X = np.arange(12, dtype='>f4').reshape(4, 3) / 7
            y = np.array([0, 1, 1, 0], dtype='<i8')
            X.astype('<f8').tofile('npz-X.f64')
            np.savez('stored.npz', X=X, y=y, other=np.zeros(2))
            np.savez_compressed('deflated.npz', x=np.asfortranarray(X), target=y)
            np.savez_compressed('named.npz', data=X, labels=y.reshape(4, 1))
            np.savez('custom.npz', feats=X, y=np.ones(4), cls=y)
            """);
        double[] x = PythonReference.float64(dir.resolve("npz-X.f64"));
        for (String f : List.of("stored.npz", "deflated.npz", "named.npz")) {
            Dataset d = NpzFormat.read(dir.resolve(f), NpzFormat.Names.DEFAULT);
            assertEquals(3, d.features(), f);
            assertBits(x, d.x(), f);
            assertArrayEquals(new double[] {0, 1, 1, 0}, d.y(), 0.0, f);
        }
        Dataset custom = NpzFormat.read(dir.resolve("custom.npz"), new NpzFormat.Names("feats", "cls"));
        assertBits(x, custom.x(), "custom.npz");
        assertArrayEquals(new double[] {0, 1, 1, 0}, custom.y(), 0.0);
        assertEquals(4, NpzFormat.readFeatures(dir.resolve("custom.npz"), new NpzFormat.Names("feats", null))
            .samples());
        assertMessage(() -> NpzFormat.read(dir.resolve("custom.npz"), NpzFormat.Names.DEFAULT),
            "custom.npz: no array named X, x or data for the features; it holds feats, y, cls; name the features' "
                + "array with --npz-x");
        assertMessage(() -> NpzFormat.read(dir.resolve("stored.npz"), new NpzFormat.Names(null, "z")),
            "stored.npz: no array named 'z' (--npz-y) for the labels; it holds X, y, other");
    }

    @Test
    void notFiniteValuesAreNamedByTheirIndexInEitherOrder() {
        PythonReference.run(dir, """
            import numpy as np
            a = np.ones((5, 3), dtype='<f4')
            a[4, 2] = np.nan
            np.save('nan-C.npy', a)
            np.save('nan-F.npy', np.asfortranarray(a))
            b = np.ones(5, dtype='>f8')
            b[3] = -np.inf
            np.save('inf-labels.npy', b)
            """);
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("nan-C.npy")), "value [4, 2] (row 4, column 2, counted "
            + "from 0) is nan, expected a finite number");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("nan-F.npy")), "value [4, 2] (row 4, column 2");
        assertMessage(() -> NpyFormat.read(dir.resolve("u1-C-1.npy"), dir.resolve("inf-labels.npy")),
            "inf-labels.npy: value [3] (row 3, counted from 0) is -inf");
    }

    @Test
    void shapesAndTypesThatAreNotSamplesAreRefusedByWhatTheyAre() throws IOException {
        PythonReference.run(dir, """
            import numpy as np
            np.save('one-d.npy', np.arange(5.0))
            np.save('three-d.npy', np.zeros((2, 2, 2)))
            np.save('scalar.npy', np.float64(3))
            np.save('strings.npy', np.array(['a', 'b']))
            np.save('objects.npy', np.array([{}, 1], dtype=object), allow_pickle=True)
            np.save('complex.npy', np.zeros((2, 2), dtype=complex))
            np.save('empty.npy', np.zeros((0, 3)))
            np.save('structured.npy', np.zeros(2, dtype=[('a', '<f8'), ('b', '<i4')]))
            np.save('half-words.npy', np.zeros((2, 2), dtype='<f16'))
            """);
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("one-d.npy")), "one-d.npy: a 1-D array of 5 values; "
            + "expected 2-D samples x features (save X.reshape(-1, 1)");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("three-d.npy")), "an array of shape (2, 2, 2); "
            + "expected 2-D samples x features (save X.reshape(len(X), -1)");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("scalar.npy")), "scalar.npy: a scalar");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("strings.npy")), "strings.npy: holds strings");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("objects.npy")), "objects.npy: holds Python objects");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("complex.npy")), "holds complex numbers");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("empty.npy")), "empty.npy: holds no samples");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("structured.npy")), "a structured array");
        assertMessage(() -> NpyFormat.readFeatures(dir.resolve("half-words.npy")), "dtype '<f16' is not one read");
        assertMessage(() -> NpyFormat.read(dir.resolve("u1-C-1.npy"), dir.resolve("u1-C-1.npy")),
            "u1-C-1.npy: labels of shape (7, 3); expected one label a sample");
        assertMessage(() -> NpyFormat.read(dir.resolve("u1-C-1.npy"), dir.resolve("one-d.npy")),
            "one-d.npy: 5 labels, but " + dir.resolve("u1-C-1.npy") + " holds 7 samples");
    }

    @Test
    void aFileCutShortOrGoingOnIsRefusedBeforeAllocating() throws IOException {
        byte[] whole = Files.readAllBytes(dir.resolve("lef8-C-1.npy"));
        Path cut = Files.write(dir.resolve("cut.npy"), Arrays.copyOf(whole, whole.length - 9));
        assertMessage(() -> NpyFormat.readFeatures(cut), "cut.npy: ends after 159 of the 168 bytes of data its header "
            + "announces (shape (7, 3), dtype '<f8')");
        Path longer = Files.write(dir.resolve("longer.npy"), Arrays.copyOf(whole, whole.length + 3));
        assertMessage(() -> NpyFormat.readFeatures(longer), "longer.npy: holds 3 bytes after the 168 bytes of data");
        Path header = Files.write(dir.resolve("header.npy"), Arrays.copyOf(whole, 20));
        assertMessage(() -> NpyFormat.readFeatures(header), "header.npy: ends inside its .npy header");
        Path text = Files.writeString(dir.resolve("text.npy"), "1 2 3\n4 5 6\n");
        assertMessage(() -> NpyFormat.readFeatures(text), "text.npy: not a NumPy .npy array");
    }

    /** Headers numpy itself would not write today but reads: Python 2's longs, no trailing comma, another key order. */
    @Test
    void headersAsPython2WroteThem() throws IOException {
        Path f = dir.resolve("py2.npy");
        Files.write(f, npy("{'shape': (2L, 1L), 'fortran_order': False, 'descr': '<i2'}", new byte[] {5, 0, -1, -1}));
        Dataset d = NpyFormat.readFeatures(f);
        assertArrayEquals(new double[] {5, -1}, d.x(), 0.0);
        Files.write(f, npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 1), 'extra': 1}", new byte[4]));
        assertMessage(() -> NpyFormat.readFeatures(f), "is not a dict of exactly 'descr', 'fortran_order' and 'shape'");
        Files.write(f, npy("{'descr': '<i2', 'fortran_order': 0, 'shape': (2, 1)}", new byte[4]));
        assertMessage(() -> NpyFormat.readFeatures(f), "fortran_order is 0, expected True or False");
        Files.write(f, npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 1", new byte[4]));
        assertMessage(() -> NpyFormat.readFeatures(f), "the .npy header is not a Python dict literal");
    }

    /** A version 1.0 .npy file of {@code header} (padded as numpy pads it) and {@code data}. */
    static byte[] npy(String header, byte[] data) {
        StringBuilder h = new StringBuilder(header);
        while ((10 + h.length() + 1) % 64 != 0) {
            h.append(' ');
        }
        h.append('\n');
        byte[] text = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[10 + text.length + data.length];
        byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) text.length, (byte) (text.length >> 8)};
        System.arraycopy(magic, 0, out, 0, 10);
        System.arraycopy(text, 0, out, 10, text.length);
        System.arraycopy(data, 0, out, 10 + text.length, data.length);
        return out;
    }

    static void assertBits(double[] expected, double[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            int k = i;
            assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(actual[i]),
                () -> what + " value " + k + ": expected " + expected[k] + ", got " + actual[k]);
        }
    }

    static void assertMessage(org.junit.jupiter.api.function.Executable read, String part) {
        String m = assertThrows(DataFormatException.class, read).getMessage();
        assertTrue(m.contains(part), m);
        assertEquals(1, m.lines().count(), m);
    }
}
