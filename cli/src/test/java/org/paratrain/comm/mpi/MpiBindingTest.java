package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.cli.Main;
import org.paratrain.data.PaperFormat;
import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/**
 * The MPI binding itself, on Open MPI and through MPICH's ABI: the rank-side self-tests and the
 * fixed-point benchmark's checks under mpirun, and a run on MPICH; apart from
 * {@link MpiTrainingTest}, which checks training on MPI.
 */
class MpiBindingTest extends MpiJobFixture {
    @Test
    void nativeAllreduceAndBroadcastAgreeWithASequentialSum() throws Exception {
        Job job = mpirun(3, "bench", "mpi-selftest");
        assertEquals(0, job.status(), job.output());
        assertTrue(job.output().contains("mpi self-test passed on 3 ranks"), job.output());
    }

    /**
     * The fixed-point sums on MPI ranks, every way of each format timed (the one ring's first step
     * sends values, later ones words, through MPI's own send and receive): the benchmark checks
     * that every way gave the same bits on every rank, at 2 and 3 processes.
     */
    @Test
    void fixedSumsOnMpiRanksGiveTheSameBitsEveryWay() throws Exception {
        for (int np : new int[] {2, 3}) {
            Job job = mpirun(np, "bench", "mpi-fixed", "--values", "70001", "--rounds", "1");
            assertEquals(0, job.status(), job.output());
            assertTrue(job.output().contains("| fixed:1 guessed, in one ring |")
                && job.output().contains("at " + np + " MPI processes (ring"), job.output());
            assertTrue(job.output().contains("Every way of one format gave the same bits on every rank"), job.output());
        }
    }

    /** MPICH's ABI (int handles, its own status layout), where MPICH is installed beside Open MPI. */
    @Test
    void mpichGivesTheSameBits() throws Exception {
        Path mpiexec = Path.of("/usr/bin/mpiexec.mpich");
        boolean have = Files.isExecutable(mpiexec) && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
        org.junit.jupiter.api.Assumptions.assumeTrue(have, "MPICH is not installed");
        Path out = dir.resolve("mpich");
        List<String> cmd = new java.util.ArrayList<>(List.of(mpiexec.toString(), "-n", "3", "env",
            "PARATRAIN_MPI_LIB=libmpich.so.12", ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "train", "--backend", "mpi", "--x", dir.resolve("X.in").toString(), "--y", dir.resolve("y.in").toString(),
            "--out", out.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        TrainingResult local = Training.local(PaperFormat.read(dir.resolve("X.in"), dir.resolve("y.in")),
            TrainSpec.paper().withNodes(3));
        assertEquals(Double.doubleToRawLongBits(local.params()[0]),
            Double.doubleToRawLongBits(r.get("params").get(0).asDouble()));
        assertEquals(3, r.get("nodes").asInt());
    }

    /**
     * Master-worker and every allreduce (MPI's own too) with the fixed-point sum, on 1 to 4 Open
     * MPI processes: each run's parameters, final loss and every epoch's loss are checked on rank 0
     * against the local backend at the same node count.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void everyExchangeGivesTheLocalBitsOnOpenMpi(int p) throws Exception {
        Job job = mpirun(p, "bench", "mpi-selftest", "--train");
        assertEquals(0, job.status(), job.output());
        assertTrue(job.output().contains("mpi self-test passed on " + p + " ranks (Open MPI"), job.output());
    }

    /** As {@link #everyExchangeGivesTheLocalBitsOnOpenMpi}, on MPICH. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void everyExchangeGivesTheLocalBitsOnMpich(int p) throws Exception {
        Path mpiexec = Path.of("/usr/bin/mpiexec.mpich");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(mpiexec), "MPICH is not installed");
        Process proc = new ProcessBuilder(mpiexec.toString(), "-n", Integer.toString(p), "env",
            "PARATRAIN_MPI_LIB=libmpich.so.12", ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "bench", "mpi-selftest", "--train").redirectErrorStream(true).start();
        String output = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, proc.exitValue(), output);
        assertTrue(output.contains("mpi self-test passed on " + p + " ranks (MPICH"), output);
    }

    /** MPICH's ABI through every path of the communicator, small and large, and its error codes. */
    @Test
    void mpichPassesTheSelfTest() throws Exception {
        Path mpiexec = Path.of("/usr/bin/mpiexec.mpich");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(mpiexec), "MPICH is not installed");
        Process p = new ProcessBuilder(mpiexec.toString(), "-n", "3", "env", "PARATRAIN_MPI_LIB=libmpich.so.12",
            ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED", "-cp",
            System.getProperty("java.class.path"), Main.class.getName(), "bench", "mpi-selftest")
            .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("mpi self-test passed on 3 ranks (MPICH"), output);
    }
}
