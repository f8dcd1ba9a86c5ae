package org.paratrain.comm.mpi;

import static org.paratrain.io.Executables.onPath;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;
import org.paratrain.comm.JobLaunch;
import org.paratrain.data.PaperFormat;
import org.paratrain.cli.experiment.PaperSetup;

/**
 * What {@link MpiTrainingTest} and {@link MpiBindingTest} share: the paper's data in a directory
 * of the class's own and paratrain's main run under mpirun; one fixture, so that each test is one
 * topic and neither sets up the other.
 *
 * <p>The MPI backend end to end: real mpirun, real processes. Skipped where mpirun is missing,
 * unless PARATRAIN_REQUIRE_MPI is set (as CI does), in which case a missing MPI fails.
 */
abstract class MpiJobFixture {
    @TempDir
    static Path dir;

    @BeforeAll
    static void needMpi() throws IOException {
        boolean have = Files.isExecutable(Path.of("/usr/bin/mpirun")) || onPath("mpirun");
        if (!have && System.getenv("PARATRAIN_REQUIRE_MPI") != null) {
            fail("PARATRAIN_REQUIRE_MPI is set but mpirun is not installed");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(have, "mpirun is not installed");
        PaperFormat.write(PaperSetup.data(), dir);
    }

    record Job(int status, String output, double seconds) { }

    /** Runs paratrain's main under mpirun with {@code np} processes, capturing all output. */
    static Job mpirun(int np, String... args) throws Exception {
        List<String> cmd = MpiJob.command(new JobLaunch(np, null, List.of(), List.of()), Main.class.getName(),
            List.of(args));
        Path log = Files.createTempFile(dir, "mpirun", ".log");
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("mpirun did not finish within 120 s: " + Files.readString(log));
        }
        return new Job(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8), (System.nanoTime() - start) / 1e9);
    }

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
