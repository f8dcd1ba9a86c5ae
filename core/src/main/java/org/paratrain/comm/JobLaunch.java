package org.paratrain.comm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How to start a job whose ranks are separate processes (an MPI job under {@code mpirun}):
 * how many, on which hosts, with which extra launcher and JVM options, and how long a rank
 * may wait for another. Validated when made, so a bad value is refused before anything starts.
 *
 * @param processes   number of processes (ranks), at least 1
 * @param hostfile    the launcher's hostfile, or null for this machine only
 * @param mpirunArgs  extra arguments for the launcher, passed as they are
 * @param jvmArgs     extra JVM options for every rank
 * @param commTimeout seconds a rank may wait for another before it ends the job
 *                    ({@code --comm-timeout}), for programs that take it as an argument
 * @param ranksPerProcess ranks each process runs as threads ({@code --ranks-per-process}), 1 or
 *                    more: the job has {@code processes * ranksPerProcess} ranks
 */
public record JobLaunch(int processes, Path hostfile, List<String> mpirunArgs, List<String> jvmArgs,
                        double commTimeout, int ranksPerProcess) {
    /** The default of {@code --comm-timeout}, on either backend. */
    public static final double DEFAULT_TIMEOUT_SECONDS = 300;
    /** The longest {@code --comm-timeout} accepted (about 11.6 days), on either backend. */
    public static final double MAX_TIMEOUT_SECONDS = 1e6;

    /** Validates, and copies the lists. */
    public JobLaunch {
        if (processes < 1) {
            throw new IllegalArgumentException("--nodes must be at least 1, got " + processes);
        }
        checkTimeout(commTimeout);
        if (ranksPerProcess < 1) {
            throw new IllegalArgumentException("--ranks-per-process must be at least 1, got " + ranksPerProcess);
        }
        if (hostfile != null && !Files.isReadable(hostfile)) {
            throw new IllegalArgumentException("--hostfile " + hostfile + " does not exist or cannot be read");
        }
        mpirunArgs = List.copyOf(mpirunArgs);
        jvmArgs = List.copyOf(jvmArgs);
    }

    /**
     * One rank a process.
     *
     * @param processes   number of processes (ranks), at least 1
     * @param hostfile    the launcher's hostfile, or null for this machine only
     * @param mpirunArgs  extra arguments for the launcher
     * @param jvmArgs     extra JVM options for every rank
     * @param commTimeout seconds a rank may wait for another
     */
    public JobLaunch(int processes, Path hostfile, List<String> mpirunArgs, List<String> jvmArgs, double commTimeout) {
        this(processes, hostfile, mpirunArgs, jvmArgs, commTimeout, 1);
    }

    /**
     * With the default deadline, {@value #DEFAULT_TIMEOUT_SECONDS} seconds.
     *
     * @param processes  number of processes (ranks), at least 1
     * @param hostfile   the launcher's hostfile, or null for this machine only
     * @param mpirunArgs extra arguments for the launcher
     * @param jvmArgs    extra JVM options for every rank
     */
    public JobLaunch(int processes, Path hostfile, List<String> mpirunArgs, List<String> jvmArgs) {
        this(processes, hostfile, mpirunArgs, jvmArgs, DEFAULT_TIMEOUT_SECONDS);
    }

    /**
     * {@return this launch with {@code n} processes, everything else kept}
     * @param n number of processes, at least 1
     */
    public JobLaunch withProcesses(int n) {
        return new JobLaunch(n, hostfile, mpirunArgs, jvmArgs, commTimeout, ranksPerProcess);
    }

    /**
     * {@return this launch for a job of {@code ranks} ranks: {@code gcd(ranks, ranksPerProcess)}
     * ranks a process, so that every process holds as many; everything else kept}
     * For a sweep over node counts, where {@link #ranksPerProcess} is the most a process holds.
     *
     * @param ranks the job's ranks, at least 1
     */
    public JobLaunch forRanks(int ranks) {
        int k = java.math.BigInteger.valueOf(ranks).gcd(java.math.BigInteger.valueOf(ranksPerProcess)).intValue();
        return new JobLaunch(ranks / k, hostfile, mpirunArgs, jvmArgs, commTimeout, k);
    }

    /**
     * Checks a communication deadline.
     *
     * @param seconds the deadline
     * @throws IllegalArgumentException naming {@code --comm-timeout}, if it is not in
     *                                  (0, {@value #MAX_TIMEOUT_SECONDS}]
     */
    public static void checkTimeout(double seconds) {
        if (!(seconds > 0) || seconds > MAX_TIMEOUT_SECONDS) {
            throw new IllegalArgumentException("--comm-timeout must be in (0, " + (long) MAX_TIMEOUT_SECONDS
                + "] seconds, got " + seconds);
        }
    }
}
