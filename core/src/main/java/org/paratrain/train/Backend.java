package org.paratrain.train;

import java.util.List;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.JobFailedException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.comm.JobOutcome;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.mpi.MpiCommunicator;
import org.paratrain.comm.local.LocalCluster;
import org.paratrain.comm.mpi.LauncherWatch;
import org.paratrain.comm.mpi.MpiJob;
import org.paratrain.comm.mpi.ThreadRanks;

/**
 * The one seam between the layers above {@code comm} and the MPI backend's implementation
 * ({@code org.paratrain.comm.mpi}): nothing else outside {@code comm} names an MPI class,
 * and a test ({@code BackendSeamTest}) keeps it so.
 *
 * <p>Two backends run ranks. The local one (threads of this JVM) needs nothing here:
 * {@link Training#local} starts its ranks and ends them. An MPI job's ranks are processes, so
 * what the layers above need of it is here, as backend-neutral types ({@link Communicator},
 * {@link JobLaunch}, {@link BackendException}, {@link JobFailedException}):
 * <ul>
 *   <li>the job from outside: {@link #runMpiJob} starts one and waits for it;</li>
 *   <li>the job from inside: whether this process is a rank ({@link #insideMpiJob}), its rank
 *       before MPI is initialised ({@link #mpiRankFromEnvironment}), its communicator
 *       ({@link #mpiWorld}), and the operations on it that the {@link Communicator} interface
 *       leaves out because the local backend has no use for them: a deadline, an abort of
 *       every process, {@code MPI_Finalize}.</li>
 * </ul>
 * MPI's own collectives are not here: they are a capability of the communicator,
 * {@link Communicator#nativeCollectives()}.
 */
public final class Backend {
    /** The most ranks one MPI process holds as threads ({@code --ranks-per-process}). */
    public static final int MAX_RANKS_PER_PROCESS = ThreadRanks.MAX_PER_PROCESS;

    private Backend() { }

    /**
     * Checks a number of ranks per MPI process.
     *
     * @param k the number
     * @throws IllegalArgumentException naming {@code --ranks-per-process}, if it is not in 1..{@value #MAX_RANKS_PER_PROCESS}
     */
    public static void checkRanksPerProcess(int k) {
        ThreadRanks.check(k);
    }

    /**
     * {@return whether this process is a rank of an MPI job (started by {@code mpirun} or
     * {@code mpiexec}), told by the launcher's environment without initialising MPI}
     */
    public static boolean insideMpiJob() {
        return MpiJob.insideMpirun();
    }

    /**
     * On a rank of an MPI job, as early as possible: the job dies with its launcher. From now on
     * this process ends as soon as the process that launched the job (or its own parent, mpirun or
     * its daemon) is gone, and publishes no result once it is; a rank calls it before it reads its
     * data, which can take longer than the few seconds a dead launcher's job may outlive it.
     */
    public static void watchMpiLauncher() {
        LauncherWatch.start();
    }

    /**
     * {@return this process's rank from the launcher's environment, 0 outside an MPI job}
     * Does not initialise MPI: for deciding early which rank speaks for the job.
     */
    public static int mpiRankFromEnvironment() {
        return MpiJob.rankFromEnvironment();
    }

    /**
     * {@return this process's rank of the MPI job ({@code MPI_COMM_WORLD}), initialising MPI on first use}
     * Its {@link Communicator#nativeCollectives()} are MPI's own.
     *
     * @throws BackendException if the MPI library cannot be loaded or initialised
     */
    public static Communicator mpiWorld() {
        return MpiCommunicator.world();
    }

    /**
     * Sets the deadline of every later operation of this process's MPI rank: a rank that waits
     * longer ends the job with a line naming itself, the rank it waited for and the epoch.
     *
     * @param seconds in (0, {@value JobLaunch#MAX_TIMEOUT_SECONDS}]
     */
    public static void mpiCommTimeout(double seconds) {
        MpiCommunicator.world().commTimeout(seconds);
    }

    /**
     * Sets how many of the job's ranks each MPI process holds, as threads: every process of the
     * job must be told the same, before it trains.
     *
     * @param k 1 to {@value ThreadRanks#MAX_PER_PROCESS}
     */
    public static void mpiRanksPerProcess(int k) {
        ThreadRanks.perProcess(k);
    }

    /** {@return how many ranks each process of this MPI job holds ({@link #mpiRanksPerProcess})} */
    public static int mpiRanksPerProcess() {
        return ThreadRanks.perProcess();
    }

    /** {@return the number of ranks of this MPI job: its processes times the ranks each holds} */
    public static int mpiJobSize() {
        return ThreadRanks.jobSize();
    }

    /**
     * Runs {@code task} on each rank this MPI process holds: on MPI's own communicator for one
     * rank a process, on threads otherwise, whose communicators reach the other processes
     * through MPI and each other through shared memory.
     *
     * @param <T>  what each rank returns
     * @param task the program of a rank
     * @return this process's ranks' results, by local rank (rank {@code p * K + i} is element {@code i} of process {@code p})
     */
    public static <T> List<T> onMpiRanks(LocalCluster.RankTask<T> task) {
        return ThreadRanks.run(task);
    }

    /** {@return the MPI implementation in use and its library file, e.g. for a self-test's report} */
    public static String mpiImplementation() {
        return MpiCommunicator.world().implementation();
    }

    /**
     * Ends every process of this MPI job because this rank failed: prints one line naming
     * the rank and {@code cause}'s message, then calls {@code MPI_Abort} with status 1.
     *
     * @param cause what this rank threw
     */
    public static void abortMpiJob(Throwable cause) {
        MpiCommunicator world = MpiCommunicator.world();
        System.err.println(cause instanceof RankFailedException named ? "paratrain: " + named.getMessage()
            : "paratrain: rank " + world.rank() + " failed: " + cause.getMessage());
        System.err.flush();
        world.abort(1);
    }

    /** Calls {@code MPI_Finalize} if this process initialised MPI; otherwise does nothing. */
    public static void finalizeMpi() {
        MpiCommunicator.finalizeIfInitialized();
    }

    /**
     * Runs {@code mainClass args} on every rank of a new MPI job, with this JVM's class path,
     * and waits for it. A rank that dies without saying why is named in one line; a SIGINT or
     * SIGTERM to this process ends the launcher and every rank.
     *
     * @param launch    how many ranks, where, with which options
     * @param mainClass the program each rank runs
     * @param args      its arguments
     * @return how the job ended: the launcher's exit status (0 when every rank succeeded), and the
     *         rank that died or the launcher's reason for not starting the job
     * @throws BackendException if no launcher ({@code mpirun}) is installed
     */
    public static JobOutcome runMpiJob(JobLaunch launch, String mainClass, List<String> args) {
        return MpiJob.run(launch, mainClass, args);
    }

    /**
     * As {@link #runMpiJob}, but a failed job is an exception.
     *
     * @param launch    how many ranks, where, with which options
     * @param mainClass the program each rank runs
     * @param args      its arguments
     * @throws JobFailedException with the launcher's status, if the job failed (its ranks said why)
     * @throws BackendException with the launcher's reason, if it failed before starting any rank
     */
    public static void runMpiJobOrFail(JobLaunch launch, String mainClass, List<String> args) {
        JobOutcome end = runMpiJob(launch, mainClass, args);
        if (end.kind() == JobOutcome.Kind.LAUNCH_FAILED) {
            throw new BackendException(end.message());
        }
        if (!end.succeeded()) {
            throw new JobFailedException(end.status());
        }
    }

    /**
     * {@return the full command line that {@link #runMpiJob} would start: the launcher, its
     * options, the JVM and its options, the program}
     * For a caller that captures the job's output itself.
     *
     * @param launch    how many ranks, where, with which options
     * @param mainClass the program each rank runs
     * @param args      its arguments
     */
    public static List<String> mpiJobCommand(JobLaunch launch, String mainClass, List<String> args) {
        return MpiJob.command(launch, mainClass, args);
    }

    /**
     * {@return the launcher ({@code mpirun}) and its options for {@code launch}, without a
     * program}: for running a program other than a JVM (a C reference) as the ranks.
     *
     * @param launch how many ranks, where, with which options
     */
    public static List<String> mpirunPrefix(JobLaunch launch) {
        return MpiJob.mpirunPrefix(launch);
    }

    /**
     * Makes the ranks' ahead-of-time start-up cache, once per build, when paratrain runs from
     * its jar (a no-op otherwise); failing to make it only costs start-up time.
     *
     * @param mainClass the program the ranks will run
     * @param args      its arguments for a short run that loads the classes a real one uses
     */
    public static void prepareMpiStartupCache(String mainClass, List<String> args) {
        MpiJob.prepareStartupCache(mainClass, args);
    }
}
