package org.paratrain.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.paratrain.data.NpyFormatTest.assertMessage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LibSVM reader's rules on small files; {@link LibSvmSklearnTest} compares it with scikit-learn. */
class LibSvmFormatTest {
    private static final LibSvmFormat.Layout ONE = new LibSvmFormat.Layout(LibSvmFormat.ZeroBased.FALSE, 0, null);

    @TempDir
    Path dir;

    @Test
    void absentFeaturesAreZeroAndTheCountIsTheLargestIndex() throws IOException {
        Path f = Files.writeString(dir.resolve("d.svm"), "1 1:0.5 3:2\n0 2:1.5\n");
        Dataset d = LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT);
        assertEquals(3, d.features());
        assertArrayEquals(new double[] {0.5, 0, 2, 0, 1.5, 0}, d.x(), 0.0);
        assertArrayEquals(new double[] {1, 0}, d.y(), 0.0);
        Dataset wide = LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT.withFeatures(5, "--n-features 5"));
        assertArrayEquals(new double[] {0.5, 0, 2, 0, 0, 0, 1.5, 0, 0, 0}, wide.x(), 0.0);
        assertMessage(() -> LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT.withFeatures(2, "--n-features 2")),
            "d.svm:1: feature index 3 is beyond the 2 features of --n-features 2");
    }

    @Test
    void anIndexZeroMakesTheFileZeroBasedUnlessOneBasedIsAsked() throws IOException {
        Path f = Files.writeString(dir.resolve("d.svm"), "1 0:3 2:1\n0 1:4\n");
        Dataset d = LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT);
        assertArrayEquals(new double[] {3, 0, 1, 0, 4, 0}, d.x(), 0.0);
        assertMessage(() -> LibSvmFormat.read(f, ONE), "d.svm:1: feature index 0 in a one-based file (--zero-based "
            + "false)");
        assertMessage(() -> LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT.withFeatures(2, "the model (m.json)")),
            "d.svm:1: feature index 2 is beyond the 2 features of the model (m.json) (indices count from 0 here)");
    }

    @Test
    void commentsQueryIdsAndBlankLinesAreSkipped() throws IOException {
        Path f = Files.writeString(dir.resolve("d.svm"), "# made by hand\n\n2 qid:7 1:1.5 2:2 # first\n   \n"
            + "-1 qid:8 2:3\n#\n1\n");
        Dataset d = LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT);
        assertEquals(3, d.samples());
        assertArrayEquals(new double[] {1.5, 2, 0, 3, 0, 0}, d.x(), 0.0);
        assertArrayEquals(new double[] {2, -1, 1}, d.y(), 0.0);
        Files.writeString(f, "1 1:2 qid:3\n");
        assertMessage(() -> LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT), "d.svm:1: 'qid:3' comes after a "
            + "feature");
        Files.writeString(f, "1 qid:x 1:2\n");
        assertMessage(() -> LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT), "d.svm:1: 'qid:x' is not qid:N");
        Files.writeString(f, "# only a comment\n\n");
        assertMessage(() -> LibSvmFormat.read(f, LibSvmFormat.Layout.DEFAULT), "d.svm: the file holds no samples");
    }

    @Test
    void filesReadTogetherShareZeroBasednessAndFeatureCount() throws IOException {
        Path train = Files.writeString(dir.resolve("train.svm"), "1 1:2 2:3\n");
        Path test = Files.writeString(dir.resolve("test.svm"), "0 0:1 4:5\n");
        LibSvmFormat.Layout both = LibSvmFormat.jointly(LibSvmFormat.Layout.DEFAULT, train, test);
        assertEquals(LibSvmFormat.ZeroBased.TRUE, both.zeroBased());
        assertEquals(5, both.features());
        assertArrayEquals(new double[] {0, 2, 3, 0, 0}, LibSvmFormat.read(train, both).x(), 0.0);
        assertArrayEquals(new double[] {1, 0, 0, 0, 5}, LibSvmFormat.read(test, both).x(), 0.0);
        LibSvmFormat.Layout one = LibSvmFormat.jointly(LibSvmFormat.Layout.DEFAULT, train, train);
        assertEquals(new LibSvmFormat.Layout(LibSvmFormat.ZeroBased.FALSE, 2, one.from()), one);
    }
}
