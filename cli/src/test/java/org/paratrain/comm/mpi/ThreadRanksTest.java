package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.cli.Main;
import org.paratrain.comm.JobLaunch;

/**
 * Ranks as threads of MPI processes ({@code --ranks-per-process}): real mpirun, real
 * processes, each holding several ranks. The reference for the bits is the same command on the
 * local backend (whose bits are those of one rank, tested elsewhere): parameters and every
 * epoch's losses must be identical. Skipped where mpirun is missing, unless
 * PARATRAIN_REQUIRE_MPI is set.
 */
class ThreadRanksTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void data() {
        org.paratrain.NeedMpi.mpirun();
        cli("generate", "regression", "--samples", "1500", "--features", "6", "--informative", "6", "--noise", "2",
            "--out", dir.resolve("reg").toString());
        cli("generate", "classification", "--samples", "1200", "--features", "8", "--informative", "5",
            "--classes", "3", "--out", dir.resolve("cls").toString());
        cli("generate", "classification", "--samples", "1000", "--features", "5", "--out",
            dir.resolve("bin").toString());
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(0, status, String.join(" ", args) + "\n" + out + err);
        return out.toString();
    }

    /** Runs paratrain's main under Open MPI's mpirun: {@code processes} processes of {@code k} ranks. */
    private static String mpirun(int processes, int k, List<String> args) throws Exception {
        List<String> cmd = MpiJob.command(new JobLaunch(processes, null, List.of(), List.of(), 120, k),
            Main.class.getName(), args);
        return run(cmd);
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("mpirun did not finish within 120 s");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    private static List<String> mpich(int processes, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/mpiexec.mpich", "-n", Integer.toString(processes), "env",
            "PARATRAIN_MPI_LIB=libmpich.so.12", ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        return cmd;
    }

    private static boolean haveMpich() {
        return Files.isExecutable(Path.of("/usr/bin/mpiexec.mpich"))
            && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
    }

    /** Messages within and between processes, small and large, and every allreduce flat and in two levels. */
    @Test
    void selfTestPassesOnOpenMpi() throws Exception {
        String out = mpirun(2, 3, List.of("bench", "mpi-selftest", "--ranks-per-process", "3", "--train"));
        assertTrue(out.contains("mpi self-test passed on 6 ranks (2 processes of 3, Open MPI"), out);
    }

    /** The same on MPICH, whose transport would otherwise take the JVM's own signals. */
    @Test
    void selfTestPassesOnMpich() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(haveMpich(), "MPICH is not installed");
        String out = run(mpich(2, List.of("bench", "mpi-selftest", "--ranks-per-process", "4", "--train")));
        assertTrue(out.contains("mpi self-test passed on 8 ranks (2 processes of 4, MPICH"), out);
    }

    /**
     * Two ranks of a process on one carrier (two processes of two ranks): at the
     * run's end the rank that runs on goes into its final-loss pass over its share of the whole
     * data, and its sibling, woken, waits for the core until that pass ends. That wait is not
     * training. The reference is each rank's own compute and exchange seconds, which span its
     * steps: the run's time must be every rank's (the clock stops when the last exchange ended),
     * not the waiting rank's alone, as it was before.
     */
    @Test
    void theRunsTimeHoldsNoSiblingsFinalPass() throws Exception {
        Path fashion = Path.of("/usr/share/datasets/fashion-mnist");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(fashion), "dataset-fashion-mnist is not installed");
        Path out = dir.resolve("clock");
        // One carrier a process whatever the machine's cores (on 2 cores the launcher's own choice), so that the
        // ranks of a process take turns on it: the case this test is about.
        run(MpiJob.command(new JobLaunch(2, null, List.of(), List.of("-Djdk.virtualThreadScheduler.parallelism=1"), 120,
            2), Main.class.getName(), List.of("train", "--backend", "mpi", "--ranks-per-process", "2", "--nodes", "4",
            "--format", "idx",
            "--data", fashion.resolve("train-images-idx3-ubyte.gz").toString(), "--labels",
            fashion.resolve("train-labels-idx1-ubyte.gz").toString(), "--model", "mlp", "--layers", "256",
            "--optimizer", "adam", "--lr", "0.001", "--batch-size", "256", "--block-size", "64", "--loss-reduction",
            "mean", "--epochs", "1", "--out", out.toString())));
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        double train = r.get("train_seconds").asDouble();
        String figures = "train " + train + " s, ranks' compute " + r.get("compute_seconds_per_rank") + ", exchange "
            + r.get("comm_seconds_per_rank");
        // Every rank's steps span the same stretch of the clock, and so does the run: before, rank 0's time and its
        // exchange held its sibling's final pass (about 0.2 s here, 10%), and the other ranks' steps did not.
        for (int q = 0; q < 4; q++) {
            double own = r.get("compute_seconds_per_rank").get(q).asDouble() + r.get("comm_seconds_per_rank").get(q)
                .asDouble();
            assertEquals(train, own, 0.04 * train, "rank " + q + "'s steps span the run: " + figures);
        }
    }

    /**
     * Same bits as the local backend: every algorithm between processes, the sums, the
     * sharded optimizer, full batch and mini-batch, the linear, logistic, softmax and MLP models.
     */
    @ParameterizedTest(name = "{0} x {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "2 | 2 | reg | --allreduce ring",
        "2 | 4 | reg | --allreduce native --sum fixed:2",
        "2 | 2 | reg | --allreduce master-worker",
        "2 | 2 | reg | --allreduce rabenseifner --sum fixed:1 --batch-size 64",
        "3 | 2 | reg | --allreduce ring --shard-optimizer --optimizer adam --lr 0.05",
        "2 | 4 | reg | --allreduce tree --batch-size 100 --optimizer momentum --momentum 0.9 --lr 0.01",
        "2 | 2 | bin | --model logistic --allreduce recursive-doubling --batch-size 0 --no-standardize",
        "2 | 4 | cls | --model softmax --classes 3 --allreduce star --batch-size 50",
        "2 | 4 | cls | --model softmax --classes 3 --allreduce ring --batch-size 0 --no-standardize",
        "3 | 2 | bin | --model logistic --allreduce master-worker --batch-size 0 --no-standardize",
        "2 | 2 | cls | --model mlp --layers 16 --classes 3 --optimizer adam --lr 0.01 --allreduce native --batch-size 64",
    })
    void sameBitsAsTheLocalBackend(int processes, int k, String data, String options) throws Exception {
        List<String> common = new ArrayList<>(List.of("train", "--x", dir.resolve(data + "/X.in").toString(), "--y",
            dir.resolve(data + "/y.in").toString(), "--epochs", "12", "--nodes", Integer.toString(processes * k)));
        if (data.equals("reg")) {
            common.addAll(List.of("--standardize", "--loss-reduction", "mean"));
            if (!options.contains("--lr")) {
                common.addAll(List.of("--lr", "0.05"));
            }
        }
        common.addAll(List.of(options.strip().split("\\s+")));
        String name = (processes + "x" + k + options).replaceAll("[^A-Za-z0-9]+", "-");
        Path mpiOut = dir.resolve("mpi-" + name);
        Path localOut = dir.resolve("local-" + name);
        List<String> onMpi = new ArrayList<>(common);
        onMpi.addAll(List.of("--backend", "mpi", "--ranks-per-process", Integer.toString(k), "--out",
            mpiOut.toString()));
        mpirun(processes, k, onMpi);
        // MPI's own allreduce is not on the local backend; with a fixed-point sum any algorithm gives the same bits.
        List<String> onLocal = new ArrayList<>(common.stream().map(a -> a.equals("native") ? "star" : a).toList());
        onLocal.addAll(List.of("--out", localOut.toString()));
        cli(onLocal.toArray(String[]::new));
        JsonNode m = new ObjectMapper().readTree(mpiOut.resolve("result.json").toFile());
        JsonNode l = new ObjectMapper().readTree(localOut.resolve("result.json").toFile());
        assertEquals(l.get("params"), m.get("params"), "parameters");
        assertEquals(l.get("final_loss"), m.get("final_loss"), "final loss");
        assertEquals(lossColumns(localOut), lossColumns(mpiOut), "every epoch's losses");
        assertEquals(l.get("train_accuracy"), m.get("train_accuracy"), "training accuracy");
        if (!data.equals("reg") && !options.contains("--batch-size")) {   // full batch, paper format, classes known
            assertEquals("each process its ranks' blocks", m.at("/data/read").asText(), "each process read its shard");
        }
        assertEquals("mpi", m.get("backend").asText());
        assertEquals(processes * k, m.get("nodes").asInt());
    }

    /** A rank that is a thread fails: the job ends, and the line names the job's rank, not its process. */
    @Test
    void aFailingThreadedRankIsNamedByItsJobRank() throws Exception {
        List<String> cmd = MpiJob.command(new JobLaunch(2, null, List.of(), List.of(), 120, 2), Main.class.getName(),
            List.of("train", "--backend", "mpi", "--ranks-per-process", "2", "--nodes", "4", "--x",
                dir.resolve("reg/X.in").toString(), "--y", dir.resolve("reg/y.in").toString(), "--standardize",
                "--loss-reduction", "mean", "--lr", "0.05", "--epochs", "100000", "--allreduce", "ring",
                "--inject-failure", "3:5"));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        double took = (System.nanoTime() - t0) / 1e9;
        assertTrue(p.exitValue() != 0, out);
        assertTrue(out.contains("paratrain: rank 3 failed: epoch 5: failure injected on purpose"), out);
        assertTrue(took < 30, "took " + took + " s");
    }

    /** Every column of history.csv whose name says loss, row by row, as text (the bits, as written). */
    private static List<String> lossColumns(Path run) throws IOException {
        List<String> lines = Files.readAllLines(run.resolve("history.csv"));
        String[] head = lines.get(0).split(",");
        List<String> out = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < head.length; i++) {
                if (head[i].contains("loss")) {
                    b.append(cells[i]).append(' ');
                }
            }
            out.add(b.toString());
        }
        return out;
    }
}
