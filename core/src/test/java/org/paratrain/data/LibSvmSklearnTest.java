package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.paratrain.data.NpyFormatTest.assertBits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.PythonReference;

/**
 * The LibSVM reader against scikit-learn: files written by {@code dump_svmlight_file}
 * (zero- and one-based, with query ids, with a comment), read back by
 * {@code load_svmlight_file} and {@code load_svmlight_files} as dense float64 arrays, which
 * the reader must match bit for bit, shape included, under each setting of zero-basedness and
 * feature count that scikit-learn has.
 */
class LibSvmSklearnTest {
    private static final String FILES = """
        import numpy as np
        from sklearn.datasets import dump_svmlight_file, load_svmlight_file, load_svmlight_files
        rs = np.random.RandomState(3)
        def sparse(n, d):
            X = rs.standard_normal((n, d)) * 10.0 ** rs.randint(-5, 5, size=(n, d))
            X[rs.uniform(size=X.shape) < 0.5] = 0
            X[:, -1] = 0         # the last feature never written: the count is the largest index seen
            return X
        X = sparse(40, 6)
        targets = rs.standard_normal(40)
        classes = rs.randint(0, 3, size=40).astype(float)
        dump_svmlight_file(X, targets, 'zero.svm', zero_based=True)
        dump_svmlight_file(X, targets, 'one.svm', zero_based=False)
        dump_svmlight_file(X, classes, 'qid.svm', zero_based=False, query_id=rs.randint(0, 5, size=40),
                           comment='written by scikit-learn\\nover two lines')
        X0 = X.copy()
        X0[:, 0] = 0             # zero-based, but no index 0: auto takes it as one-based, as scikit-learn does
        dump_svmlight_file(X0, targets, 'zero-no0.svm', zero_based=True)
        with open('one.svm') as f, open('blank.svm', 'w') as g:
            for i, line in enumerate(f):
                g.write('\\n# a comment line\\n   \\n' if i %% 7 == 0 else '')
                g.write(line.rstrip('\\n') + ('  # trailing comment\\n' if i %% 3 == 0 else '\\n'))
        train, test = sparse(30, 5), sparse(10, 7)
        train[:, 0] = 0          # only the test file has an index 0: together, both are zero-based
        dump_svmlight_file(train, rs.standard_normal(30), 'train.svm', zero_based=True)
        dump_svmlight_file(test, rs.standard_normal(10), 'test.svm', zero_based=True)
        def save(name, X, y):
            X.toarray().astype('<f8').tofile(name + '.X')
            y.astype('<f8').tofile(name + '.y')
            open(name + '.shape', 'w').write('%%d %%d' %% X.shape)
        for f in ['zero', 'one', 'qid', 'zero-no0', 'blank']:
            save(f, *load_svmlight_file(f + '.svm'))
        save('zero-no0-forced', *load_svmlight_file('zero-no0.svm', zero_based=True))
        save('one-forced', *load_svmlight_file('one.svm', zero_based=False))
        save('one-wide', *load_svmlight_file('one.svm', n_features=9))
        a, b, c, d = load_svmlight_files(['train.svm', 'test.svm'])
        save('train-joint', a, b)
        save('test-joint', c, d)
        """.formatted();

    @TempDir
    static Path dir;

    @BeforeAll
    static void writeWithScikitLearn() {
        PythonReference.needSklearn();
        PythonReference.run(dir, FILES);
    }

    @Test
    void autoDecidesAsLoadSvmlightFileDoes() throws IOException {
        for (String f : new String[] {"zero", "one", "qid", "zero-no0", "blank"}) {
            assertSame(f, LibSvmFormat.read(dir.resolve(f + ".svm"), LibSvmFormat.Layout.DEFAULT));
        }
    }

    @Test
    void zeroBasedAndFeatureCountForcedAsScikitLearnForcesThem() throws IOException {
        LibSvmFormat.Layout zero = new LibSvmFormat.Layout(LibSvmFormat.ZeroBased.TRUE, 0, null);
        assertSame("zero-no0-forced", LibSvmFormat.read(dir.resolve("zero-no0.svm"), zero));
        LibSvmFormat.Layout one = new LibSvmFormat.Layout(LibSvmFormat.ZeroBased.FALSE, 0, null);
        assertSame("one-forced", LibSvmFormat.read(dir.resolve("one.svm"), one));
        assertSame("one-wide", LibSvmFormat.read(dir.resolve("one.svm"),
            LibSvmFormat.Layout.DEFAULT.withFeatures(9, "--n-features 9")));
    }

    @Test
    void trainingAndTestFilesReadTogetherAsLoadSvmlightFilesDoes() throws IOException {
        Path train = dir.resolve("train.svm");
        Path test = dir.resolve("test.svm");
        LibSvmFormat.Layout both = LibSvmFormat.jointly(LibSvmFormat.Layout.DEFAULT, train, test);
        assertSame("train-joint", LibSvmFormat.read(train, both));
        assertSame("test-joint", LibSvmFormat.read(test, both));
    }

    private static void assertSame(String name, Dataset d) throws IOException {
        String[] shape = Files.readString(dir.resolve(name + ".shape")).split(" ");
        assertEquals(Integer.parseInt(shape[0]), d.samples(), name);
        assertEquals(Integer.parseInt(shape[1]), d.features(), name);
        assertBits(PythonReference.float64(dir.resolve(name + ".X")), d.x(), name + " X");
        assertBits(PythonReference.float64(dir.resolve(name + ".y")), d.y(), name + " y");
    }
}
