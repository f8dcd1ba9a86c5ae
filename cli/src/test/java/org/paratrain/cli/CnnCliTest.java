package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.data.Dataset;
import org.paratrain.data.IdxFormat;
import org.paratrain.experiment.ModelFile;
import org.paratrain.model.ConvNet;

/**
 * {@code --model cnn} from the command line on IDX images: trained at 1 and 2 ranks to the
 * same bits, recorded in model.json with its layers, image shape and precision, and evaluated
 * from that file to the accuracy the network itself gives; and {@code bench dl} without torch.
 */
class CnnCliTest {
    @TempDir
    Path dir;

    /** 8x8 images of a horizontal (0), vertical (1) or diagonal (2) bar over noise, as IDX bytes. */
    private void bars(String name, int n, long seed) throws IOException {
        Random r = new Random(seed);
        byte[] pixels = new byte[n * 64];
        byte[] labels = new byte[n];
        for (int i = 0; i < n; i++) {
            int label = r.nextInt(3);
            labels[i] = (byte) label;
            int at = r.nextInt(4) + 2;
            for (int j = 0; j < 64; j++) {
                pixels[i * 64 + j] = (byte) r.nextInt(80);
            }
            for (int t = 1; t < 7; t++) {
                int p = label == 0 ? at * 8 + t : label == 1 ? t * 8 + at : t * 8 + t;
                pixels[i * 64 + p] = (byte) (160 + r.nextInt(96));
            }
        }
        Files.write(dir.resolve(name + "-images"), BadInputFiles.idx(new int[] {n, 8, 8}, pixels));
        Files.write(dir.resolve(name + "-labels"), BadInputFiles.idx(new int[] {n}, labels));
    }

    private CliTest.Run train(int nodes, String precision) {
        return CliTest.run("train", "--format", "idx", "--data", dir.resolve("train-images").toString(), "--labels",
            dir.resolve("train-labels").toString(), "--test-data", dir.resolve("test-images").toString(),
            "--test-labels", dir.resolve("test-labels").toString(), "--model", "cnn", "--layers",
            "conv:4:3,pool:2,dense:8", "--precision", precision, "--optimizer", "adam", "--lr", "0.01",
            "--batch-size", "50", "--block-size", "10", "--loss-reduction", "mean", "--epochs", "12", "--seed", "3",
            "--nodes", String.valueOf(nodes), "--out", dir.resolve("run-" + nodes + "-" + precision).toString());
    }

    @Test
    void trainsOnIdxImagesRecordsTheNetworkAndEvaluatesFromTheFile() throws IOException {
        bars("train", 600, 1);
        bars("test", 300, 2);
        for (String precision : new String[] {"float64", "float32"}) {
            CliTest.Run one = train(1, precision);
            assertEquals(0, one.status(), one.err());
            CliTest.Run two = train(2, precision);
            assertEquals(0, two.status(), two.err());
            assertTrue(two.out().contains("trained cnn on 600 samples x 64 features: 2 nodes"), two.out());
            Path file = dir.resolve("run-2-" + precision + "/model.json");
            ModelFile m1 = ModelFile.read(dir.resolve("run-1-" + precision + "/model.json"));
            ModelFile m2 = ModelFile.read(file);
            assertArrayEquals(m1.params(), m2.params(), 0.0, precision + ": the same bits at 1 and 2 ranks");
            JsonNode json = new ObjectMapper().readTree(file.toFile());
            assertEquals("cnn", json.get("model").asText());
            assertEquals("conv:4:3,pool:2,dense:8", json.get("layers").asText());
            assertEquals("8x8x1", json.get("image_shape").asText());
            assertEquals(precision, json.get("precision").asText());

            // evaluate reads the file back and gives the network's own accuracy on the test images.
            Dataset test = IdxFormat.read(dir.resolve("test-images"), dir.resolve("test-labels"));
            double accuracy = ((ConvNet) m2.newModel()).accuracy(test, m2.params());
            assertTrue(accuracy > 0.9, precision + ": test accuracy " + accuracy);
            Path metrics = dir.resolve("metrics-" + precision + ".json");
            CliTest.Run ev = CliTest.run("evaluate", "--model-file", file.toString(), "--format", "idx", "--data",
                dir.resolve("test-images").toString(), "--labels", dir.resolve("test-labels").toString(), "--out",
                metrics.toString());
            assertEquals(0, ev.status(), ev.err());
            assertEquals(accuracy, new ObjectMapper().readTree(metrics.toFile()).get("accuracy").asDouble(), 1e-12);

            // predict needs no labels: the images alone give the classes the network predicts.
            Path predicted = dir.resolve("predicted-" + precision + ".txt");
            CliTest.Run pr = CliTest.run("predict", "--model-file", file.toString(), "--format", "idx", "--data",
                dir.resolve("test-images").toString(), "--out", predicted.toString());
            assertEquals(0, pr.status(), pr.err());
            List<String> lines = Files.readAllLines(predicted);
            assertEquals(test.samples(), lines.size());
            ConvNet net = (ConvNet) m2.newModel();
            for (int i = 0; i < test.samples(); i += 37) {
                assertEquals(net.predict(test, i, m2.params()), Integer.parseInt(lines.get(i).strip()), "image " + i);
            }
        }
    }

    /**
     * Dropout's masks follow the seed, the step and the sample, never the rank: the same model
     * file at 1 local rank, 3 local ranks and 2 MPI processes (skipped without mpirun unless
     * PARATRAIN_REQUIRE_MPI is set), for a CNN and an MLP (with class weights, label smoothing
     * and clipping too), full batch and mini-batch; the file names the layers, and reads back.
     */
    @Test
    void dropoutKeepsTheBitsOnEveryBackend() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        bars("train", 400, 5);
        List<String> cnn = List.of("--format", "idx", "--data", dir.resolve("train-images").toString(), "--labels",
            dir.resolve("train-labels").toString(), "--model", "cnn", "--layers",
            "conv:4:3,dropout:0.2,pool:2,dense:8,dropout:0.5", "--block-size", "10", "--epochs", "3");
        List<String> mlp = List.of("--format", "csv", "--data", "core/src/test/resources/fixtures/iris.csv", "--label",
            "species", "--model", "mlp", "--layers", "16,dropout:0.5,8,dropout:0.25", "--epochs", "20",
            "--class-weight", "1,2.5,0.5", "--label-smoothing", "0.1", "--clip-norm", "1");
        for (List<String> model : List.of(cnn, mlp)) {
            String layers = model.get(model.indexOf("--layers") + 1);
            for (String batch : List.of("0", "40")) {
                ModelFile first = null;
                for (List<String> w : List.of(List.of("--nodes", "1"), List.of("--nodes", "3"),
                    List.of("--backend", "mpi", "--nodes", "2"))) {
                    Path out = dir.resolve("dropout-" + Math.abs(layers.hashCode()) + "-" + batch + "-"
                        + String.join("", w).replace("-", ""));
                    List<String> args = new java.util.ArrayList<>(List.of("train"));
                    args.addAll(model);
                    args.addAll(List.of("--optimizer", "adam", "--lr", "0.01", "--batch-size", batch, "--quiet",
                        "--out", out.toString()));
                    args.addAll(w);
                    CliTest.Run r = CliTest.run(args.toArray(String[]::new));
                    assertEquals(0, r.status(), w + ": " + r.err());
                    assertEquals(layers, new ObjectMapper().readTree(out.resolve("model.json").toFile()).get("layers")
                        .asText());
                    ModelFile m = ModelFile.read(out.resolve("model.json"));
                    if (first == null) {
                        first = m;
                    } else {
                        assertArrayEquals(first.params(), m.params(), 0.0, layers + ", batch " + batch + ", " + w);
                    }
                }
            }
        }
    }

    /**
     * A gradient long enough to be summed in one ring (68,611 parameters: the ring's first step
     * carries values, the next deposits them, the own chunk converts as it combines): the same
     * model file at 1 and 3 local ranks and 2 MPI processes (skipped without mpirun unless
     * PARATRAIN_REQUIRE_MPI is set), with the ring and, summed whole, the tree.
     */
    @Test
    void aLongGradientInOneRingKeepsTheBitsOnEveryBackend() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        ModelFile first = null;
        for (List<String> w : List.of(List.of("--nodes", "1", "--allreduce", "ring"),
            List.of("--nodes", "3", "--allreduce", "ring"), List.of("--nodes", "3", "--allreduce", "tree"),
            List.of("--backend", "mpi", "--nodes", "2", "--allreduce", "ring"))) {
            Path out = dir.resolve("ring-" + String.join("", w).replace("-", ""));
            List<String> args = new java.util.ArrayList<>(List.of("train", "--format", "csv", "--data",
                "core/src/test/resources/fixtures/iris.csv", "--label", "species", "--model", "mlp", "--layers",
                "512,128", "--epochs", "4", "--optimizer", "adam", "--lr", "0.001", "--batch-size", "50", "--quiet",
                "--out", out.toString()));
            args.addAll(w);
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(0, r.status(), w + ": " + r.err());
            ModelFile m = ModelFile.read(out.resolve("model.json"));
            assertEquals(4 * 512 + 512 + 512 * 128 + 128 + 128 * 3 + 3, m.params().length);
            if (first == null) {
                first = m;
            } else {
                assertArrayEquals(first.params(), m.params(), 0.0, w.toString());
            }
        }
    }

    /**
     * Batchnorm from the command line: the same model.json at 1 and 3 local ranks and with
     * master-worker, in float64 and float32; the running statistics in the file; evaluate by
     * them from the file; the shared exchange and a full batch too large refused in one line.
     */
    @Test
    void batchnormKeepsTheBitsAndTheFileEvaluates() throws IOException {
        bars("train", 300, 5);
        bars("test", 200, 6);
        for (String precision : List.of("float64", "float32")) {
            ModelFile first = null;
            for (List<String> w : List.of(List.of("--nodes", "1"), List.of("--nodes", "3"),
                List.of("--nodes", "2", "--allreduce", "master-worker"))) {
                ModelFile m = batchnorm(precision, w);
                if (first == null) {
                    first = m;
                } else {
                    assertArrayEquals(first.params(), m.params(), 0.0, precision + " " + w);
                }
            }
            Path file = dir.resolve("bn-" + precision + "-nodes1/model.json");
            JsonNode json = new ObjectMapper().readTree(file.toFile());
            assertEquals("conv:4:3,batchnorm,pool:2,dense:8,batchnorm,dropout:0.2", json.get("layers").asText());
            // conv 4 x (9 + 1), batchnorm 4 x 4, pool, dense 36 x 8 + 8, batchnorm 8 x 4, head 8 x 3 + 3.
            assertEquals(40 + 16 + 296 + 32 + 27, first.params().length);
            assertTrue(first.params()[40 + 8] != 0.0 && first.params()[40 + 12] != 1.0, "running statistics moved");
            Path metrics = dir.resolve("bn-metrics-" + precision + ".json");
            CliTest.Run eval = CliTest.run("evaluate", "--model-file", file.toString(), "--format", "idx", "--data",
                dir.resolve("test-images").toString(), "--labels", dir.resolve("test-labels").toString(), "--out",
                metrics.toString());
            assertEquals(0, eval.status(), eval.err());
            Dataset test = IdxFormat.read(dir.resolve("test-images"), dir.resolve("test-labels"));
            double accuracy = ((ConvNet) first.newModel()).accuracy(test, first.params());
            assertTrue(accuracy > 0.9, precision + ": test accuracy " + accuracy);
            assertEquals(accuracy, new ObjectMapper().readTree(metrics.toFile()).get("accuracy").asDouble(), 1e-12);
        }
        CliTest.Run shared = CliTest.run("train", "--format", "idx", "--data", dir.resolve("train-images").toString(),
            "--labels", dir.resolve("train-labels").toString(), "--model", "cnn", "--layers", "conv:2:3,batchnorm",
            "--nodes", "2", "--allreduce", "shared", "--epochs", "1");
        assertEquals(2, shared.status(), shared.err());
        assertEquals("paratrain train: error: --allreduce shared does not go with batchnorm in --layers: batchnorm sums each "
            + "step's statistics over every rank's own blocks, and shared hands blocks out as ranks are ready; use "
            + "ring, rabenseifner or auto", shared.err().strip());
        bars("big", 8200, 7);
        CliTest.Run big = CliTest.run("train", "--format", "idx", "--data", dir.resolve("big-images").toString(),
            "--labels", dir.resolve("big-labels").toString(), "--model", "cnn", "--layers", "conv:2:3,batchnorm",
            "--batch-size", "8200", "--epochs", "1", "--out", dir.resolve("big").toString());
        assertEquals(2, big.status(), big.err());
        assertEquals("paratrain train: error: batchnorm in --layers keeps every activation of a rank's step until its "
            + "backward pass: --batch-size 8200 gives 8200 samples a rank, more than 8192; give a smaller --batch-size",
            big.err().strip());
        assertTrue(!Files.exists(dir.resolve("big")), "no output");
    }

    /** The same network with batchnorm on Open MPI: 2 processes, and 2 of 2 ranks as threads, as one local rank. */
    @Test
    void batchnormOnMpiRanksKeepsTheBits() throws IOException {
        org.paratrain.NeedMpi.mpirun();
        bars("train", 300, 5);
        bars("test", 200, 6);
        ModelFile one = batchnorm("float32", List.of("--nodes", "1"));
        for (List<String> w : List.of(List.of("--backend", "mpi", "--nodes", "2"),
            List.of("--backend", "mpi", "--nodes", "4", "--ranks-per-process", "2"))) {
            assertArrayEquals(one.params(), batchnorm("float32", w).params(), 0.0, w.toString());
        }
    }

    private ModelFile batchnorm(String precision, List<String> w) throws IOException {
        Path out = dir.resolve("bn-" + precision + "-" + String.join("", w).replace("-", ""));
        List<String> args = new java.util.ArrayList<>(List.of("train", "--format", "idx", "--data",
            dir.resolve("train-images").toString(), "--labels", dir.resolve("train-labels").toString(), "--model",
            "cnn", "--layers", "conv:4:3,batchnorm,pool:2,dense:8,batchnorm,dropout:0.2", "--precision", precision,
            "--optimizer", "adam", "--lr", "0.01", "--batch-size", "60", "--block-size", "20", "--epochs", "6",
            "--seed", "3", "--quiet", "--out", out.toString()));
        args.addAll(w);
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), w + ": " + r.err());
        return ModelFile.read(out.resolve("model.json"));
    }

    /** IDX images keep their shape: 6 x 10 images train without --image-shape, and the model records it. */
    @Test
    void nonSquareIdxImagesKeepTheirShape() throws IOException {
        Random r = new Random(4);
        byte[] pixels = new byte[40 * 60];
        r.nextBytes(pixels);
        byte[] labels = new byte[40];
        for (int i = 0; i < 40; i++) {
            labels[i] = (byte) (i % 2);
        }
        Files.write(dir.resolve("wide-images"), BadInputFiles.idx(new int[] {40, 6, 10}, pixels));
        Files.write(dir.resolve("wide-labels"), BadInputFiles.idx(new int[] {40}, labels));
        CliTest.Run run = CliTest.run("train", "--format", "idx", "--data", dir.resolve("wide-images").toString(),
            "--labels", dir.resolve("wide-labels").toString(), "--model", "cnn", "--layers", "conv:2:3,pool:2",
            "--epochs", "2", "--lr", "0.01", "--out", dir.resolve("wide").toString());
        assertEquals(0, run.status(), run.err());
        JsonNode json = new ObjectMapper().readTree(dir.resolve("wide/model.json").toFile());
        assertEquals("6x10x1", json.get("image_shape").asText());
        // conv:2:3 on 6x10x1: 9 weights + 1 bias per filter; pool:2 of 4x8x2 is 2x4x2; the head 16 x 2 + 2.
        assertEquals(2 * 10 + 16 * 2 + 2, json.get("params").size());
    }

    @Test
    void benchDlWithoutTorchPrintsParatrainAlone() throws IOException {
        CliTest.Run r = CliTest.run("bench", "dl", "--models", "cnn", "--precision", "float32", "--workers", "1,2",
            "--batch-size", "32", "--steps", "2", "--rounds", "1", "--python", dir.resolve("no-python").toString(),
            "--out", dir.resolve("bench").toString());
        assertEquals(0, r.status(), r.err());
        List<String> csv = Files.readAllLines(dir.resolve("bench/bench-dl.csv"));
        assertEquals(3, csv.size(), csv.toString());
        assertTrue(csv.get(2).startsWith("cnn,float32,2,"), csv.toString());
        assertTrue(Files.exists(dir.resolve("bench/bench-dl.json")) && Files.exists(dir.resolve("bench/bench-dl.md")));
        assertTrue(r.out().contains("PyTorch: not available"), r.out());
        assertTrue(r.out().matches("(?s).*\\| cnn \\| float32 \\| 1 \\| [1-9][0-9]* \\| - \\| - \\| - \\| - \\|.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\| cnn \\| float32 \\| 2 \\| [1-9][0-9]* \\| - \\| - \\| - \\| - \\|.*"), r.out());
        CliTest.Run bad = CliTest.run("bench", "dl", "--models", "resnet");
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("--models must be mlp, cnn or both, got 'resnet'"), bad.err());
    }
}
