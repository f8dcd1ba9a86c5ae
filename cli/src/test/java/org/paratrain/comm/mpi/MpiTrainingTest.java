package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.cli.Main;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.cli.experiment.PaperSetup;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/**
 * Training on the MPI backend end to end, under a real mpirun: the bits of the local backend with
 * each exchange, sum, rebalancing and the sharded optimizer, sweeps, auto, and a failing rank;
 * apart from {@link MpiBindingTest}, which checks the MPI binding itself.
 */
class MpiTrainingTest extends MpiJobFixture {
    /** MPI at p processes gives the bits of the local backend (and so of 1 rank). */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void sameBitsAsTheLocalBackend(int p) throws Exception {
        Path out = dir.resolve("run" + p);
        Job job = mpirun(p, "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", Integer.toString(p), "--log-every", "100", "--out",
            out.toString());
        assertEquals(0, job.status(), job.output());
        assertEquals(1, count(job.output(), "final loss"), "only rank 0 reports:\n" + job.output());
        assertEquals(1, count(job.output(), "epoch 300/300  loss"), "rank 0 logs its epochs:\n" + job.output());
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        Dataset data = PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in"));
        TrainingResult local = Training.local(data, TrainSpec.paper().withNodes(p));
        assertEquals(Double.doubleToRawLongBits(local.params()[0]),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
        assertEquals(Double.doubleToRawLongBits(local.finalLoss()),
            Double.doubleToRawLongBits(r.get("final_loss").asDouble()));
        assertEquals("mpi", r.get("backend").asText());
        assertEquals(p, r.get("nodes").asInt());
        assertEquals("each rank its own blocks", r.get("data").get("read").asText(), "ranks read only their shards");
        assertEquals(500, r.get("data").get("samples").asInt());
    }

    /**
     * {@code --rebalance} on MPI processes: rank 1, made 8 times slower (it computes its blocks 8
     * times, as a slower node would take longer), ends with fewer than half the blocks of rank 0,
     * the split moved, and the result has the bits of one local rank; with master-worker and with
     * MPI's own allreduce of the fixed-point sum. 20,000 x 10 samples: enough work a step that a
     * rank's time is its blocks', not the step's fixed costs.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"master-worker, blocks", "native, fixed:2"})
    void aSlowRankOnMpiGivesUpBlocksAndTheBitsStay(String algorithm, String sum) throws Exception {
        Path in = dir.resolve("wide");
        Dataset data = new org.paratrain.data.MakeRegression(20_000, 10, 10, 0.0, 0.0, false)
            .generate(new org.paratrain.data.NumpyRandomState(3)).data();
        PaperFormat.write(data, in);
        Path out = dir.resolve("rebalance-" + algorithm);
        Job job = mpirun(2, "train", "--backend", "mpi", "--x", in.resolve("X.in").toString(), "--y",
            in.resolve("y.in").toString(), "--nodes", "2", "--allreduce", algorithm, "--sum", sum, "--epochs", "400",
            "--lr", "1e-5", "--rebalance", "20", "--inject-failure", "1:1:slow=8", "--out", out.toString());
        assertEquals(0, job.status(), job.output());
        assertTrue(job.output().contains("the split moved"), job.output());
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        TrainingResult one = Training.local(data, TrainSpec.paper().withEpochs(400).withLearningRate(1e-5)
            .withExchange(org.paratrain.train.spec.ExchangeSpec.parse(algorithm.equals("native") ? "star" : algorithm,
                org.paratrain.train.spec.ExchangeSpec.Sum.parse(sum))));
        for (int i = 0; i < 10; i++) {
            assertEquals(Double.doubleToRawLongBits(one.params()[i]),
                Double.doubleToRawLongBits(r.get("params").get(i).asDouble()));
        }
        assertEquals(Double.doubleToRawLongBits(one.finalLoss()),
            Double.doubleToRawLongBits(r.get("final_loss").asDouble()));
        JsonNode blocks = r.get("blocks_per_rank");
        assertEquals(254, blocks.get(0).asInt() + blocks.get(1).asInt());
        assertTrue(blocks.get(1).asInt() * 2 < blocks.get(0).asInt(), blocks.toString());
        assertTrue(r.get("split_moves").asInt() >= 1);
        assertEquals(20, r.at("/config/rebalance_steps").asInt());
    }

    /**
     * The sharded optimizer on MPI processes (words reduce-scattered, parameters allgathered) keeps
     * the bits, with the ring's halves, recursive halving and doubling, and MPI's own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ring", "rabenseifner", "native"})
    void aShardedOptimizerOnMpiGivesTheBitsOfOneLocalRank(String algorithm) throws Exception {
        Path out = dir.resolve("sharded-" + algorithm);
        Job job = mpirun(3, "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", "3", "--allreduce", algorithm, "--shard-optimizer",
            "--optimizer", "adam", "--lr", "0.05", "--out", out.toString());
        assertEquals(0, job.status(), job.output());
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        TrainingResult one = Training.local(PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")),
            TrainSpec.paper().withLearningRate(0.05).withMethod(org.paratrain.train.spec.OptimizerSpec.Method.ADAM)
                .withExchange(org.paratrain.train.spec.ExchangeSpec.parse("ring")));
        assertEquals(Double.doubleToRawLongBits(one.params()[0]),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
        assertEquals(Double.doubleToRawLongBits(one.finalLoss()),
            Double.doubleToRawLongBits(r.get("final_loss").asDouble()));
        assertTrue(r.at("/config/shard_optimizer").asBoolean());
        assertEquals(algorithm, r.get("algorithm").asText());
    }

    /**
     * MPI's own allreduce and paratrain's, on MPI processes, with the block table and with the
     * fixed-point sums, give the bits of one local rank with the same sum.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"native, blocks", "rabenseifner, blocks", "native, fixed:2",
        "native, fixed:1", "ring, fixed:2", "native, fixed:half", "ring, fixed:half"})
    void allreduceAlgorithmsOnMpiGiveTheBitsOfOneRank(String algorithm, String sum) throws Exception {
        Path out = dir.resolve("ar-" + algorithm + "-" + sum.replace(':', '-'));
        Job job = mpirun(4, "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", "4", "--allreduce", algorithm, "--sum", sum, "--out",
            out.toString());
        assertEquals(0, job.status(), job.output());
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        org.paratrain.train.spec.ExchangeSpec.Sum s = org.paratrain.train.spec.ExchangeSpec.Sum.parse(sum);
        TrainSpec local = TrainSpec.paper().withExchange(org.paratrain.train.spec.ExchangeSpec.parse(
            s == org.paratrain.train.spec.ExchangeSpec.Sum.BLOCKS ? "master-worker" : "star", s));
        TrainingResult one = Training.local(PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")), local);
        assertEquals(Double.doubleToRawLongBits(one.params()[0]),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
        assertEquals(Double.doubleToRawLongBits(one.finalLoss()),
            Double.doubleToRawLongBits(r.get("final_loss").asDouble()));
        assertEquals(sum, r.at("/config/sum").asText());
        assertEquals(algorithm, r.get("algorithm").asText());
    }

    /**
     * A sweep on MPI ({@code paper --backend mpi}) hands the exchange and the sum to every rank
     * through the job file: the table and run.json record them, and each node count's weight is
     * the bits of one local rank with that sum.
     */
    @Test
    void aSweepOnMpiRunsTheSumAskedFor() throws Exception {
        Path out = dir.resolve("paper-mpi");
        java.io.StringWriter err = new java.io.StringWriter();
        int status = Main.execute(new java.io.PrintWriter(new java.io.StringWriter(), true),
            new java.io.PrintWriter(err, true), "paper", "--backend", "mpi", "--nodes", "1,3", "--repeats", "1",
            "--warmup", "0", "--epochs", "30", "--allreduce", "native", "--sum", "fixed:2", "--no-break-even",
            "--quiet", "--out", out.toString());
        assertEquals(0, status, err.toString());
        ObjectMapper json = new ObjectMapper();
        JsonNode table = json.readTree(out.resolve("table1.json").toFile());
        assertEquals("fixed:2", table.get("sum").asText());
        assertEquals("native", table.get("exchange").asText());
        assertEquals("fixed:2", json.readTree(out.resolve("run.json").toFile()).at("/sweep/training/sum").asText());
        String notes = Files.readString(out.resolve("table1.md"));
        assertTrue(notes.contains("No prediction is made for this backend") && !notes.contains("model error compares"),
            "the notes speak only of the columns the table fills: " + notes);
        TrainingResult one = Training.local(PaperSetup.data(), TrainSpec.paper().withEpochs(30).withExchange(
            org.paratrain.train.spec.ExchangeSpec.parse("star", org.paratrain.train.spec.ExchangeSpec.Sum.FIXED_2)));
        for (JsonNode row : table.get("rows")) {
            assertEquals(Double.doubleToRawLongBits(one.params()[0]),
                Double.doubleToRawLongBits(row.get("weight_mean").asDouble()), row.toString());
        }
    }

    /**
     * {@code --allreduce auto} on MPI is decided by the ranks on their own links, under the
     * user's own mpirun (each rank reading its shard) and under paratrain's launcher with two
     * ranks a process (mini-batches): rank 0 alone says what it measured, every candidate is
     * named, the run takes the one it chose, and the result is the bits of one local rank with
     * the same sum; every rank's compute and exchange seconds reach result.json.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"own mpirun", "launcher", "one process"})
    void autoMeasuresTheJobsLinksAndKeepsTheBits(String how) throws Exception {
        Path out = dir.resolve("auto-" + how.replace(' ', '-'));
        List<String> args = new java.util.ArrayList<>(List.of("train", "--backend", "mpi", "--x",
            dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(), "--nodes", "4", "--allreduce",
            "auto", "--sum", "fixed:half", "--epochs", "20", "--out", out.toString()));
        String output;
        if (!how.equals("own mpirun")) {
            args.addAll(List.of("--batch-size", "100", "--ranks-per-process", how.equals("launcher") ? "2" : "4"));
            // As a user starts it: the ranks' lines reach the launcher's own output.
            List<String> cmd = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
            cmd.addAll(args);
            Path log = Files.createTempFile(dir, "launcher", ".log");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                fail("the launcher did not finish within 120 s: " + Files.readString(log));
            }
            output = Files.readString(log);
            assertEquals(0, p.exitValue(), output);
        } else {
            Job job = mpirun(4, args.toArray(String[]::new));
            output = job.output();
            assertEquals(0, job.status(), output);
        }
        assertEquals(1, count(output, "auto: "), "rank 0 alone says what it chose:\n" + output);
        String line = output.lines().filter(l -> l.startsWith("auto: ")).findFirst().orElseThrow();
        for (String name : List.of("star", "tree", "recursive-doubling", "ring", "rabenseifner", "native")) {
            assertTrue(line.contains(" " + name + " "), name + " is measured: " + line);
        }
        // Master-worker is priced on the link's fit; in one process there is no link, and it is left out.
        assertEquals(!how.equals("one process"), line.contains(" master-worker "), line);
        assertTrue(line.contains(switch (how) {
            case "launcher" -> "across 2 processes";
            case "one process" -> "across 1 process;".replace(";", "");
            default -> "across 4 processes";
        }), line);
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        String chosen = line.substring("auto: ".length(), line.indexOf(','));
        assertEquals(chosen, r.get("algorithm").asText());
        assertEquals(chosen, r.at("/config/exchange").asText(), r.get("config").toString());
        // The reference: one local rank, the same options otherwise.
        Path ref = dir.resolve("auto-ref-" + how.replace(' ', '-'));
        List<String> one = new java.util.ArrayList<>(List.of("train", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", "1", "--allreduce", "star", "--sum", "fixed:half", "--epochs",
            "20", "--out", ref.toString()));
        if (!how.equals("own mpirun")) {
            one.addAll(List.of("--batch-size", "100"));
        }
        java.io.StringWriter e = new java.io.StringWriter();
        assertEquals(0, Main.execute(new java.io.PrintWriter(new java.io.StringWriter(), true),
            new java.io.PrintWriter(e, true), one.toArray(String[]::new)), e.toString());
        JsonNode expected = new ObjectMapper().readTree(ref.resolve("result.json").toFile());
        assertEquals(Double.doubleToRawLongBits(expected.get("params").get(0).asDouble()),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
        assertEquals(Double.doubleToRawLongBits(expected.get("final_loss").asDouble()),
            Double.doubleToRawLongBits(r.get("final_loss").asDouble()));
        assertEquals(4, r.get("comm_seconds_per_rank").size());
        assertEquals(4, r.get("compute_seconds_per_rank").size());
    }

    /** More ranks than blocks: three of eight ranks own nothing and hold a placeholder shard. */
    @Test
    void ranksWithoutBlocksStillTakePart() throws Exception {
        Path out = dir.resolve("empty-ranks");
        Job job = mpirun(8, "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", "8", "--block-size", "100", "--out", out.toString());
        assertEquals(0, job.status(), job.output());
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        TrainingResult local = Training.local(PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")),
            TrainSpec.paper().withBlockSize(100).withNodes(8));
        assertEquals(Double.doubleToRawLongBits(local.params()[0]),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
    }

    @Test
    void aFailingRankEndsTheJobWithItsMessageWithinSeconds() throws Exception {
        Job job = mpirun(4, "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y",
            dir.resolve("y.in").toString(), "--nodes", "4", "--epochs", "100000", "--inject-failure", "2:5");
        assertNotEquals(0, job.status(), job.output());
        assertTrue(job.output().contains("rank 2 failed: epoch 5: failure injected on purpose"), job.output());
        assertTrue(job.seconds() < 60, "took " + job.seconds() + " s");
    }
}
