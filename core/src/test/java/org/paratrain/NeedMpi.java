package org.paratrain;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The precondition of every test that starts mpirun: Open MPI installed. Skipped without it,
 * except where {@code PARATRAIN_REQUIRE_MPI} is set (CI installs it, so a skip would hide a
 * failure there).
 */
public final class NeedMpi {
    private NeedMpi() { }

    /** Skips the test (or fails it, under {@code PARATRAIN_REQUIRE_MPI}) where mpirun is missing. */
    public static void mpirun() {
        boolean have = Files.isExecutable(Path.of("/usr/bin/mpirun"));
        if (!have && System.getenv("PARATRAIN_REQUIRE_MPI") != null) {
            fail("PARATRAIN_REQUIRE_MPI is set but mpirun is not installed");
        }
        Assumptions.assumeTrue(have, "mpirun is not installed");
    }
}
