package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.comm.JobLaunch;

/**
 * MPI's own reduce-scatter and allgather ({@code MPI_Reduce_scatter}, {@code MPI_Allgatherv},
 * on doubles and on {@code MPI_INT64_T} words), and paratrain's ring and recursive halving and
 * doubling over MPI's point-to-point, at 2, 3 and 4 processes under Open MPI and under MPICH:
 * every case of {@link BlockCollectivesRank} right on every rank, on the small (native buffer,
 * nonblocking) and the large (blocking, in the Java array) paths. Real launchers, real
 * processes; skipped where one is missing, unless PARATRAIN_REQUIRE_MPI is set.
 */
class BlockCollectivesMpiTest {
    static final List<String> HALVES = List.of("native", "ring", "rabenseifner");

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void openMpi(int p) throws Exception {
        WordAllreduceMpiTest.requireOrSkip(Files.isExecutable(Path.of("/usr/bin/mpirun")), "mpirun is not installed");
        List<String> cmd = MpiJob.command(new JobLaunch(p, null, List.of(), List.of()),
            BlockCollectivesRank.class.getName(), HALVES);
        String output = WordAllreduceMpiTest.run(cmd);
        check(p, output, "Open MPI");
        // A job of one rank a process asks for MPI_THREAD_SINGLE, which spares Open MPI's matching locks.
        assertTrue(output.contains(") at thread level " + MpiCommunicator.THREAD_SINGLE), output);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void mpich(int p) throws Exception {
        WordAllreduceMpiTest.requireOrSkip(Files.isExecutable(Path.of("/usr/bin/mpiexec.mpich"))
            && Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")), "MPICH is not installed");
        String output = WordAllreduceMpiTest.run(WordAllreduceMpiTest.mpichCommand(p, BlockCollectivesRank.class.getName(),
            HALVES));
        check(p, output, "MPICH");
        // Started without MpiJob (as under a user's own mpiexec): the level that lets threads take turns.
        assertTrue(output.contains(") at thread level " + MpiCommunicator.THREAD_SERIALIZED), output);
    }

    private static void check(int p, String output, String implementation) {
        assertTrue(output.contains("done on " + p + " ranks (" + implementation), output);
        List<String> cases = output.lines().filter(l -> l.startsWith("ok ") || l.startsWith("bad ")).toList();
        assertEquals(HALVES.size() * (2 * 7 * 2 + 6), cases.size(), output);
        assertEquals(List.of(), cases.stream().filter(l -> l.startsWith("bad ")).toList(), implementation);
    }
}
