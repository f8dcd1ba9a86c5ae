package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import org.paratrain.comm.BackendException;

/**
 * Waiting for MPI without holding a core for long: polls a nonblocking test
 * ({@code MPI_Iprobe}, {@code MPI_Test}) for up to 1 millisecond, then sleeps between polls for
 * 1/32 of the time waited so far (at least 50 microseconds, at most 1 millisecond). A blocking
 * {@code MPI_Recv} would instead poll inside MPI at full speed for as long as the wait lasts (a
 * stopped peer kept its partners at 50-80% of a core each, forever); a rank that waits long
 * now wakes about a thousand times a second and sleeps in between.
 *
 * <p>Why these numbers: a wait ends when the peer's message is seen, so a sleeping rank
 * answers late, and its peer then waits longer too. If the peer's polling phase is shorter
 * than the other's sleep, the peer falls asleep as well and the two stay in step at one sleep
 * per message: with 50 microseconds of polling and sleeps from 1 microsecond (which Linux's
 * timer slack makes about 60), an 8-byte ping-pong took 130 us instead of 0.3. Polling for
 * 1 ms, longer than any sleep, lets the first quick answer bring both back to polling.
 * Sleeping 1/32 of the wait makes a wait at most about 3% longer than it had to be.
 *
 * <p>Where the process has a core of its own (no more of the job's processes on this machine,
 * as the launcher tells, than cores it may run on) and holds one rank, it polls for 20 ms
 * before it sleeps: nothing else of the job needs that core, and a sleep there costs more than
 * its length. MPI's own allreduce waits for the ranks in one gate ({@code MPI_Ibarrier}), the
 * whole arrival spread of a step, and across two emulated hosts of one core each at 1 Gbit/s
 * the MLP's step exchange by it took 9.1-9.3 ms (median) against 6.4-6.6 for paratrain's ring,
 * whose waits start afresh at each message; polling for 20 ms, 6.5-6.6, and the run's samples/s
 * went from 19,500-20,100 to 25,800-26,500 (the ring's: 26,400-26,700). A process of several
 * ranks (threads) polls so only in a meeting's step that every rank's own thread waits for
 * ({@link #ranksWait}), not for a bucket's exchange thread, whose siblings may compute. Sharing a
 * core with other processes of the job, a rank keeps the 1 ms: there a sleeping rank gives the
 * core to one that computes.
 *
 * <p>While polling it spins. It does not yield the core between polls, even with more ranks
 * than cores: Open MPI's progress already yields when nothing happened, once it knows the
 * machine is oversubscribed, and yielding a second time made 8 ranks on 2 cores 1.3 to 1.6
 * times slower per epoch than blocking calls; on a machine busy with other work, a yield
 * hands the core to that work for a whole time slice.
 *
 * <p>Owns the status, request and flag words the calls write into (native memory, reused):
 * one request for a receive or a collective, one for a send.
 */
final class Poller {
    private static final long POLL_NANOS = 1_000_000L;
    /** The polling phase where the process has a core of its own and holds one rank (see above). */
    private static final long OWN_CORE_POLL_NANOS = 20_000_000L;
    /**
     * Set on the thread that runs a meeting's step of a process of several ranks while every rank's
     * own thread waits in the meeting ({@link Meeting}): then, too, none of the process computes.
     */
    private static final ThreadLocal<Boolean> RANKS_WAIT = ThreadLocal.withInitial(() -> Boolean.FALSE);
    /** Whether the launcher told of no more of the job's processes on this machine than this one may use cores. */
    private static final boolean OWN_CORE = ThreadRanks.processesOnThisHost() > 0
        && ThreadRanks.processesOnThisHost() <= Runtime.getRuntime().availableProcessors();
    private static final long MIN_SLEEP_NANOS = 50_000L;
    private static final long MAX_SLEEP_NANOS = 1_000_000L;
    /**
     * A background thread's interval between polls ({@link org.paratrain.comm.BackgroundThreads}):
     * at 1 Gbit/s 25 kB pass in it, less than a TCP socket's send buffer holds, so the link does not
     * wait for the next poll; a wake-up costs a few microseconds, about 2% of the core it shares.
     */
    private static final long BACKGROUND_NANOS = 200_000L;

    final MemorySegment status;
    final MemorySegment request;
    final MemorySegment sendRequest;
    final MemorySegment flag;
    /** Of the wait under way (a poller serves one thread): when the clock was first read, and the phase. */
    private long start;
    private boolean polling;

    Poller(MpiAbi abi) {
        Arena arena = Arena.global();
        this.status = arena.allocate(abi.statusBytes(), 8);
        this.request = arena.allocate(8, 8);   // MPI_Request: a pointer (Open MPI) or an int (MPICH)
        this.sendRequest = arena.allocate(8, 8);
        this.flag = arena.allocate(JAVA_INT);
    }

    /**
     * Tells the calling thread's waits whether every rank of the process waits for them (a
     * meeting's step run while each rank's own thread is in the meeting): with a core of its own,
     * the process then polls as a process of one rank does.
     */
    static void ranksWait(boolean all) {
        RANKS_WAIT.set(all);
    }

    /** {@return what {@link #ranksWait} last told the calling thread} */
    static boolean ranksWait() {
        return RANKS_WAIT.get();
    }

    /** Returns once a message from {@code source} with {@code tag} has arrived; its envelope is in {@link #status}. */
    void probe(int source, int tag) {
        polling = true;
        for (int polls = 1; ; polls++) {
            int rc;
            try {
                rc = (int) MpiCalls.Iprobe.H.invokeExact(source, tag, flag, status);
            } catch (Throwable t) {
                throw new BackendException("MPI_Iprobe failed: " + t);
            }
            MpiCommunicator.check("MPI_Iprobe", rc);
            if (flag.get(JAVA_INT, 0) != 0) {
                return;
            }
            pause(polls);
        }
    }

    /**
     * Returns once the request in {@link #request} has completed ({@code MPI_Test}): 0, or the
     * error code of the operation (such as {@code MPI_ERR_TRUNCATE}).
     */
    int await() {
        return await(request);
    }

    /** As {@link #await()}, for the request in {@code slot}. */
    int await(MemorySegment slot) {
        polling = true;
        for (int polls = 1; ; polls++) {
            int rc;
            try {
                rc = (int) MpiCalls.Test.H.invokeExact(slot, flag, status);
            } catch (Throwable t) {
                throw new BackendException("MPI_Test failed: " + t);
            }
            if (rc != 0 || flag.get(JAVA_INT, 0) != 0) {
                return rc;
            }
            pause(polls);
        }
    }

    /** Returns once every rank has reached this point ({@code MPI_Ibarrier}, then {@link #await}). */
    void gate() {
        int rc;
        try {
            rc = (int) MpiCalls.Ibarrier.H.invokeExact(request);
        } catch (Throwable t) {
            throw new BackendException("MPI_Ibarrier failed: " + t);
        }
        MpiCommunicator.check("MPI_Ibarrier", rc);
        MpiCommunicator.check("MPI_Ibarrier", await());
    }

    /**
     * Between two polls: spin while the wait is young, then sleep. The clock is read every 64th
     * poll only while spinning (the first 64 polls, a few microseconds, are not counted).
     */
    private void pause(int polls) {
        if (polls > 64 && org.paratrain.comm.BackgroundThreads.current() && Thread.currentThread().isInterrupted()) {
            // Its rank gave up on it (a peer failed, the run was cancelled): parking would no longer wait.
            throw new BackendException("an exchange thread was interrupted while waiting for MPI");
        }
        if (polls > 64 && org.paratrain.comm.BackgroundThreads.besideComputation()) {
            LockSupport.parkNanos(BACKGROUND_NANOS);      // beside a computing thread: no spinning
            start = System.nanoTime();                    // once it stops computing: spin first, from then
            polling = true;
            return;
        }
        if (polling) {
            if ((polls & 63) == 0) {
                long now = System.nanoTime();
                if (polls == 64) {
                    start = now;
                }
                polling = now - start < (OWN_CORE && (ThreadRanks.perProcess() == 1 || RANKS_WAIT.get())
                    ? OWN_CORE_POLL_NANOS : POLL_NANOS);
            }
            Thread.onSpinWait();
            return;
        }
        long waited = System.nanoTime() - start;
        LockSupport.parkNanos(Math.clamp(waited / 32, MIN_SLEEP_NANOS, MAX_SLEEP_NANOS));
    }
}
