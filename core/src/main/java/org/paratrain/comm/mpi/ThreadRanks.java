package org.paratrain.comm.mpi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.local.LocalCluster;

/**
 * Several ranks of an MPI job in one process, as threads ({@code --ranks-per-process K}): the
 * job's rank {@code r} is thread {@code r % K} of process {@code r / K}, so rank numbering,
 * sharding and output are those of one rank per process.
 *
 * <p>Why: a JVM per rank costs start-up and memory per rank, and with more ranks than cores
 * every message between two of them crosses MPI. Threads of one process reach each other
 * through shared memory (the local backend's channels), and a collective that knows the
 * process boundary ({@link org.paratrain.comm.ProcessGroup}, used by the hierarchical
 * allreduce) combines the process's vectors in memory and sends one vector per process.
 *
 * <p>MPI is called from one thread at a time ({@code MPI_THREAD_SERIALIZED}, checked here):
 * a message to another process goes through {@link FunneledCalls} under the process's lock;
 * a collective's inter-process step is made by the process's leader (local rank 0) while the
 * others wait in shared memory.
 */
public final class ThreadRanks {
    /** The most ranks a process holds: MPICH's tag space (2^28) must hold 32768 (K^2 + 1) tags. */
    public static final int MAX_PER_PROCESS = 64;
    private static volatile int perProcess = 1;

    final MpiCommunicator world;
    final int localSize;
    final ReentrantLock lock = new ReentrantLock();
    final Meeting meeting;

    private ThreadRanks(MpiCommunicator world, int localSize) {
        this.world = world;
        this.localSize = localSize;
        this.meeting = new Meeting(localSize, lock);
    }

    /**
     * Sets how many ranks each process of this job holds: every process must be told the same.
     *
     * @param k 1 (a rank a process) to {@value #MAX_PER_PROCESS}
     * @throws IllegalArgumentException naming {@code --ranks-per-process}, out of range
     */
    public static void perProcess(int k) {
        check(k);
        perProcess = k;
    }

    /** {@return how many ranks each process of this job holds} */
    public static int perProcess() {
        return perProcess;
    }

    /**
     * Checks a number of ranks per process.
     *
     * @param k the number
     * @throws IllegalArgumentException naming {@code --ranks-per-process}, if it is not in 1..{@value #MAX_PER_PROCESS}
     */
    public static void check(int k) {
        if (k < 1 || k > MAX_PER_PROCESS) {
            throw new IllegalArgumentException("--ranks-per-process must be 1 to " + MAX_PER_PROCESS + " or auto, got "
                + k);
        }
    }

    /** The job's processes on this machine, as the launcher tells them (Open MPI, MPICH), else all of them. */
    private static int processesOnThisHost(MpiCommunicator world) {
        int told = processesOnThisHost();
        return told > 0 ? told : world.size();
    }

    /** {@return the job's processes on this machine as the launcher tells them (Open MPI, MPICH), or 0 if it does not} */
    static int processesOnThisHost() {
        for (String name : new String[] {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
            String v = System.getenv(name);
            if (v != null && v.matches("[1-9][0-9]*")) {
                return Integer.parseInt(v);
            }
        }
        return 0;
    }

    /** {@return the number of ranks of this job: processes times ranks per process} */
    public static int jobSize() {
        return MpiCommunicator.world().size() * perProcess;
    }

    /**
     * Runs {@code task} on every rank this process holds: on MPI's own communicator when it
     * holds one rank, on as many threads as {@link #perProcess()} says otherwise.
     *
     * @param <T>  what each rank returns
     * @param task the program of a rank
     * @return each of this process's ranks' results, by local rank (one for one rank a process)
     * @throws RankFailedException naming the job's rank that failed first in this process
     */
    public static <T> List<T> run(LocalCluster.RankTask<T> task) {
        MpiCommunicator world = MpiCommunicator.world();
        int k = perProcess;
        if (k == 1) {
            try {
                return java.util.Collections.singletonList(task.run(world));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new RankFailedException(world.rank(), e);
            }
        }
        if (world.threadLevel() < MpiCommunicator.THREAD_SERIALIZED) {
            throw new BackendException("--ranks-per-process " + k + " needs an MPI library with MPI_THREAD_SERIALIZED; "
                + world.implementation() + " granted level " + world.threadLevel());
        }
        ThreadRanks process = new ThreadRanks(world, k);
        world.ranksPerProcess(k);
        try {
            int cores = Math.max(1, Runtime.getRuntime().availableProcessors() / processesOnThisHost(world));
            // Longer than the watchdog's deadline: a wait between processes is its to report, with a better line.
            long deadline = world.timeoutMillis() + Math.min(world.timeoutMillis(), 10_000);
            Thread watch = process.meeting.watch(deadline, world.rank() * k);
            try {
                return LocalCluster.run(k, Duration.ofMillis(world.timeoutMillis()), cores,
                    local -> task.run(new ThreadRank(process, local)));
            } finally {
                watch.interrupt();
            }
        } catch (RankFailedException e) {
            throw new RankFailedException(world.rank() * k + e.rank(), e.getCause());
        }
    }
}
