package org.paratrain.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.paratrain.comm.JobLaunch;
import org.paratrain.train.Backend;
import picocli.CommandLine.Option;

/** Where ranks run, and how an MPI job is started. */
final class BackendOptions {
    @Option(names = "--backend", defaultValue = "local",
        description = "Where ranks run: local (threads of this JVM, default) or mpi (MPI processes, started "
            + "with mpirun unless this command already runs under mpirun).")
    String backend;

    @Option(names = "--hostfile", description = "With --backend mpi: mpirun's hostfile, to run on several machines.")
    Path hostfile;

    @Option(names = "--mpirun-args", description = "With --backend mpi: extra arguments for mpirun, e.g. "
        + "\"--mca btl_vader_single_copy_mechanism none\".")
    String mpirunArgs;

    @Option(names = "--comm-timeout", paramLabel = "SECONDS", defaultValue = "300",
        description = "How long a rank waits for another (a message, a barrier, an allreduce) before it ends the "
            + "job with a line naming the rank that stopped answering and the epoch; on both backends "
            + "(default ${DEFAULT-VALUE}).")
    double commTimeout;

    /** True for the MPI backend; checks the name and the deadline. */
    boolean isMpi() {
        JobLaunch.checkTimeout(commTimeout);
        return switch (backend) {
            case "local" -> false;
            case "mpi" -> true;
            default -> throw new IllegalArgumentException("--backend must be local or mpi, got '" + backend + "'");
        };
    }

    /** How to start a job of {@code processes} ranks with these options (making the ranks' start-up cache first). */
    JobLaunch launchSpec(int processes) {
        Backend.prepareMpiStartupCache(Main.class.getName(), List.of("bench", "mpi-selftest", "--train"));
        List<String> extra = mpirunArgs == null || mpirunArgs.isBlank() ? List.of()
            : Arrays.asList(mpirunArgs.strip().split("\\s+"));
        String opts = System.getenv("PARATRAIN_JAVA_OPTS");
        List<String> jvm = opts == null || opts.isBlank() ? List.of() : Arrays.asList(opts.strip().split("\\s+"));
        return new JobLaunch(processes, hostfile, extra, jvm, commTimeout);
    }

    /** On a rank of an MPI job: applies {@code --comm-timeout} to this process's communicator. */
    void configureRank() {
        Backend.mpiCommTimeout(commTimeout);
    }

    /** Runs this command on {@code processes} MPI ranks and returns mpirun's exit status. */
    int launchStatus(int processes, List<String> args) {
        return Backend.runMpiJob(launchSpec(processes), Main.class.getName(), args);
    }
}
