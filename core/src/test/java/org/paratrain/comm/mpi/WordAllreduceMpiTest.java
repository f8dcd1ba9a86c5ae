package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.paratrain.comm.JobLaunch;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.local.LocalCluster;

/**
 * MPI's own allreduce of 64-bit words ({@code MPI_INT64_T}, {@code MPI_SUM} and {@code MPI_MAX})
 * gives the words of the local backend, at 2 and 3 ranks, under Open MPI and under MPICH; so do
 * paratrain's algorithms over MPI's point-to-point words, and the fixed-point sums through
 * both. Real mpirun, real processes; skipped where the launcher is missing, unless
 * PARATRAIN_REQUIRE_MPI is set.
 */
class WordAllreduceMpiTest {
    static final List<String> ALGORITHMS = List.of("native", "star", "tree", "recursive-doubling", "ring",
        "rabenseifner");

    /** The lines every algorithm must print: the cases run with the ring on the local backend. */
    static List<String> local(int p) {
        return LocalCluster.run(p, comm -> WordAllreduceRank.cases(comm, "ring")).get(0);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void openMpiGivesTheLocalWords(int p) throws Exception {
        boolean have = Files.isExecutable(Path.of("/usr/bin/mpirun"));
        requireOrSkip(have, "mpirun is not installed");
        List<String> cmd = MpiJob.command(new JobLaunch(p, null, List.of(), List.of()),
            WordAllreduceRank.class.getName(), ALGORITHMS);
        check(p, run(cmd), "Open MPI");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void mpichGivesTheLocalWords(int p) throws Exception {
        Path mpiexec = Path.of("/usr/bin/mpiexec.mpich");
        requireOrSkip(Files.isExecutable(mpiexec) && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")),
            "MPICH is not installed");
        check(p, run(mpichCommand(p, WordAllreduceRank.class.getName(), ALGORITHMS)), "MPICH");
    }

    /** {@return MPICH's launcher running {@code mainClass} with {@code args} on p processes of this JVM} */
    static List<String> mpichCommand(int p, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/mpiexec.mpich", "-n", Integer.toString(p), "env",
            "PARATRAIN_MPI_LIB=libmpich.so.12", ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            mainClass));
        cmd.addAll(args);
        return cmd;
    }

    /** Skips a test where {@code have} is false, unless PARATRAIN_REQUIRE_MPI is set, which fails it. */
    static void requireOrSkip(boolean have, String why) {
        if (!have && System.getenv("PARATRAIN_REQUIRE_MPI") != null) {
            fail("PARATRAIN_REQUIRE_MPI is set but " + why);
        }
        Assumptions.assumeTrue(have, why);
    }

    private static void check(int p, String output, String implementation) {
        assertTrue(output.contains("done on " + p + " ranks (" + implementation), output);
        List<String> want = local(p);
        List<String> got = output.lines().filter(l -> l.startsWith("sum ") || l.startsWith("max ")
            || l.startsWith("fixed:")).toList();
        assertEquals(want.size() * ALGORITHMS.size(), got.size(), output);
        for (int a = 0; a < ALGORITHMS.size(); a++) {
            assertEquals(want, got.subList(a * want.size(), (a + 1) * want.size()),
                ALGORITHMS.get(a) + " on " + implementation + " at " + p + " ranks");
        }
    }

    /** {@return the output of the job {@code cmd}, which must end within 120 s with status 0} */
    static String run(List<String> cmd) throws Exception {
        Path log = Files.createTempFile("words", ".log");
        try {
            Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!proc.waitFor(120, TimeUnit.SECONDS)) {
                proc.descendants().forEach(ProcessHandle::destroyForcibly);
                proc.destroyForcibly();
                fail("the job did not finish within 120 s: " + Files.readString(log));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, proc.exitValue(), output);
            return output;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
