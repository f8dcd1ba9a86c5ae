package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.experiment.ModelFile;

/**
 * The network of docs/training.md's Fashion-MNIST run with batch normalisation and dropout
 * (its layers, precision, optimiser, batch and blocks), on the first 1,024 training images for
 * one epoch: the same model.json at 1 and 2 ranks. The full run takes minutes; this is its
 * headline property on a run a test can afford. Skipped where the data set is not installed,
 * unless {@code PARATRAIN_REQUIRE_DATASETS} is set.
 */
class FashionBatchNormTest {
    static final String LAYERS = "conv:32:3,batchnorm,conv:32:3,batchnorm,pool:2,dropout:0.2,conv:64:3,batchnorm,"
        + "pool:2,dropout:0.2,dense:128,batchnorm,dropout:0.4";
    private static final Path FASHION = Path.of("/usr/share/datasets/fashion-mnist");

    @TempDir
    Path dir;

    @Test
    void theReadmeNetworkKeepsTheBitsAtOneAndTwoRanks() throws IOException {
        boolean present = Files.isDirectory(FASHION);
        if (!present && System.getenv("PARATRAIN_REQUIRE_DATASETS") != null) {
            fail("PARATRAIN_REQUIRE_DATASETS is set, but " + FASHION + " is missing");
        }
        Assumptions.assumeTrue(present, FASHION + " is not installed (apt-get install dataset-fashion-mnist)");
        Path images = head("train-images-idx3-ubyte.gz", 16, 784, 1024);
        Path labels = head("train-labels-idx1-ubyte.gz", 8, 1, 1024);
        ModelFile first = null;
        for (int nodes : new int[] {1, 2}) {
            Path out = dir.resolve("run-" + nodes);
            List<String> args = new ArrayList<>(List.of("train", "--model", "cnn", "--layers", LAYERS, "--precision",
                "float32", "--format", "idx", "--data", images.toString(), "--labels", labels.toString(), "--optimizer",
                "adam", "--lr", "0.002", "--schedule", "cosine", "--batch-size", "256", "--block-size", "128",
                "--label-smoothing", "0.1", "--loss-reduction", "mean", "--epochs", "1", "--nodes",
                String.valueOf(nodes), "--allreduce", "ring", "--quiet", "--out", out.toString()));
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(0, r.status(), r.err());
            ModelFile m = ModelFile.read(out.resolve("model.json"));
            if (first == null) {
                first = m;
            } else {
                assertArrayEquals(first.params(), m.params(), 0.0, nodes + " ranks");
            }
        }
    }

    /** The first {@code n} records of a gzipped IDX file, as an uncompressed IDX file with its count set to n. */
    private Path head(String name, int header, int record, int n) throws IOException {
        byte[] out = new byte[header + n * record];
        try (InputStream in = new GZIPInputStream(Files.newInputStream(FASHION.resolve(name)))) {
            int read = in.readNBytes(out, 0, out.length);
            assertEquals(out.length, read, name);
        }
        ByteBuffer.wrap(out).putInt(4, n);
        return Files.write(dir.resolve(name.replace(".gz", "")), out);
    }
}
