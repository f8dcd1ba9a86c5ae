package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.JobLaunch;
import org.paratrain.comm.NativeCollectives;

/**
 * A rank of an MPI job ({@code MPI_COMM_WORLD}), reached through the FFM API.
 *
 * <p>One per process: {@link #world()} calls {@code MPI_Init} on first use, and
 * {@link #close()} calls {@code MPI_Finalize}. Errors come back as codes
 * ({@code MPI_ERRORS_RETURN}) and become exceptions. No MPI type leaves this package.
 *
 * <p>Every operation has a deadline ({@link #commTimeout}, kept by a {@link Watchdog}), and
 * a rank that waits long does not hold a core: {@link PolledCalls} says how each operation
 * waits, and why.
 */
public final class MpiCommunicator implements Communicator, AutoCloseable {
    /** {@code MPI_THREAD_SINGLE}, the same number in Open MPI and MPICH. */
    static final int THREAD_SINGLE = 0;
    /** {@code MPI_THREAD_SERIALIZED}, the same number in Open MPI and MPICH. */
    static final int THREAD_SERIALIZED = 2;
    /**
     * The system property that asks for {@code MPI_THREAD_SINGLE} (value {@code single}) instead
     * of {@code MPI_THREAD_SERIALIZED}: {@link MpiJob} sets it for processes that hold one rank,
     * on one machine.
     */
    static final String THREADS_PROPERTY = "paratrain.mpi.threads";
    private static MpiCommunicator world;

    private final MpiLibrary lib;
    private final MpiAbi abi;
    private final int rank;
    private final int size;
    private final PolledCalls calls;
    private final Watchdog watchdog;
    private final RankRecord record;
    /** What {@code MPI_Init_thread} granted: 0 single, 1 funneled, 2 serialized, 3 multiple. */
    private final int threadLevel;
    /** Made once: the native allreduce asks for it on every call. */
    private final Optional<NativeCollectives> natives;
    private boolean finalized;

    private MpiCommunicator(MpiLibrary lib) {
        LauncherWatch.start();      // before MPI_Init, which waits for every rank: a job whose launcher died ends
        this.lib = lib;
        this.abi = lib.abi();
        MemorySegment out = Arena.global().allocate(JAVA_INT);
        // SERIALIZED: ranks that are threads of one process (ThreadRanks) take turns at MPI. It has a
        // price: Open MPI 4.1 takes a mutex in its matching path at every level above SINGLE (FUNNELED
        // too), which a process of one rank does not need, since one thread makes all its MPI calls
        // (paratrain calls MPI from no other thread; Open MPI's Java bindings initialise SINGLE in a
        // JVM too). MPICH locks only for MULTIPLE. So MpiJob asks for SINGLE when each process holds
        // one rank and the job runs on one machine.
        int requested = "single".equals(System.getProperty(THREADS_PROPERTY)) ? THREAD_SINGLE : THREAD_SERIALIZED;
        call("MPI_Init_thread", lib.function("MPI_Init_thread", JAVA_INT, List.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS),
            false), MemorySegment.NULL, MemorySegment.NULL, requested, out);
        this.threadLevel = out.get(JAVA_INT, 0);
        call("MPI_Comm_set_errhandler", lib.function("MPI_Comm_set_errhandler", JAVA_INT,
            List.of(MpiLibrary.HANDLE, MpiLibrary.HANDLE), false, abi.commWorld(), abi.errorsReturn()));
        call("MPI_Comm_rank", lib.function("MPI_Comm_rank", JAVA_INT, List.of(MpiLibrary.HANDLE, ADDRESS), false,
            abi.commWorld()), out);
        this.rank = out.get(JAVA_INT, 0);
        call("MPI_Comm_size", lib.function("MPI_Comm_size", JAVA_INT, List.of(MpiLibrary.HANDLE, ADDRESS), false,
            abi.commWorld()), out);
        this.size = out.get(JAVA_INT, 0);
        Poller poller = new Poller(abi);
        this.calls = new PolledCalls(abi, poller);
        this.record = RankRecord.create(rank);
        this.watchdog = new Watchdog(rank, size, record, (long) (JobLaunch.DEFAULT_TIMEOUT_SECONDS * 1000));
        this.natives = Optional.of(new MpiCollectives(calls, new PolledBlockCalls(abi, poller, rank, size), watchdog));
    }

    /** {@return this process's rank of MPI_COMM_WORLD, initialising MPI on first use} */
    public static synchronized MpiCommunicator world() {
        if (world == null) {
            world = new MpiCommunicator(MpiCalls.Lib.LIB);
        }
        return world;
    }

    /** Calls MPI_Finalize if MPI was initialised in this process; otherwise does nothing. */
    public static synchronized void finalizeIfInitialized() {
        if (world != null) {
            world.close();
        }
    }

    /** {@return true where MPI granted {@code MPI_THREAD_SERIALIZED} or more} */
    @Override
    public boolean callsFromAnotherThread() {
        return threadLevel >= THREAD_SERIALIZED;
    }

    /** {@return the thread support {@code MPI_Init_thread} granted: at least {@value #THREAD_SERIALIZED} lets threads take turns} */
    int threadLevel() {
        return threadLevel;
    }

    /** Tells the watchdog how many of the job's ranks each process holds, for its messages. */
    void ranksPerProcess(int k) {
        watchdog.ranksPerProcess(k);
    }

    /** {@return the communication deadline in milliseconds} */
    long timeoutMillis() {
        return watchdog.timeoutMillis();
    }

    /** {@return which MPI implementation and library file are in use} */
    public String implementation() {
        return abi.name() + " (" + lib.file() + ")";
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * The deadline of every later operation: a rank that waits longer ends the job with a line
     * naming itself, the rank it waited for, the operation and the epoch.
     *
     * @param seconds in (0, {@value JobLaunch#MAX_TIMEOUT_SECONDS}]
     */
    public void commTimeout(double seconds) {
        JobLaunch.checkTimeout(seconds);
        watchdog.timeoutMillis(Math.max(1, Math.round(seconds * 1000)));
    }

    /** Remembers the epoch this rank is in, for the messages about a hang or a crash. */
    @Override
    public void epoch(int epoch) {
        watchdog.epoch(epoch);
    }

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        watchdog.begin(Op.SEND, dest, tag);
        try {
            calls.send(buf, offset, length, dest, tag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        watchdog.begin(Op.RECEIVE, source, tag);
        try {
            return calls.recv(buf, offset, length, source, tag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        watchdog.begin(Op.SEND_RECEIVE, source, recvTag);
        try {
            return calls.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
                source, recvTag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public void send(long[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        watchdog.begin(Op.SEND, dest, tag);
        try {
            calls.send(buf, offset, length, dest, tag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public int recv(long[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        watchdog.begin(Op.RECEIVE, source, tag);
        try {
            return calls.recv(buf, offset, length, source, tag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        watchdog.begin(Op.SEND_RECEIVE, source, recvTag);
        try {
            return calls.sendRecv(sendBuf, sendOffset, sendLength, dest, sendTag, recvBuf, recvOffset, recvLength,
                source, recvTag);
        } finally {
            watchdog.end();
        }
    }

    @Override
    public void barrier() {
        watchdog.begin(Op.BARRIER, -1, 0);
        try {
            calls.barrier();
        } finally {
            watchdog.end();
        }
    }

    /**
     * The JVM's monotonic clock: {@code MPI_Wtime} reads the same kind of clock, but through a
     * downcall, and the training loop reads it four times a step (a profile of the paper's run
     * at 2 ranks showed it among the hottest frames).
     */
    @Override
    public double wtime() {
        return System.nanoTime() * 1e-9;
    }

    @Override
    public String backend() {
        return "mpi";
    }

    /** {@return MPI's own collectives on this communicator's ranks ({@link MpiCollectives})} */
    @Override
    public Optional<NativeCollectives> nativeCollectives() {
        return natives;
    }

    /**
     * Ends every process of the job with {@code code} ({@code MPI_Abort}); does not return normally.
     *
     * @param code the exit status of every process
     */
    public void abort(int code) {
        if (record != null) {
            record.state(RankRecord.EXPLAINED);   // the caller has printed why
        }
        call("MPI_Abort", lib.function("MPI_Abort", JAVA_INT, List.of(MpiLibrary.HANDLE, JAVA_INT), false,
            abi.commWorld()), code);
    }

    /** {@code MPI_Finalize}; later calls do nothing. */
    @Override
    public synchronized void close() {
        if (!finalized) {
            finalized = true;
            watchdog.begin(Op.FINALIZE, -1, 0);
            try {
                call("MPI_Finalize", lib.function("MPI_Finalize", JAVA_INT, List.of(), false));
            } finally {
                watchdog.end();
            }
            if (record != null) {
                record.state(RankRecord.FINALIZED);
            }
        }
    }

    private static void call(String name, MethodHandle h, Object... args) {
        int rc;
        try {
            rc = (int) h.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new BackendException(name + " failed: " + t);
        }
        check(name, rc);
    }

    static void check(String name, int rc) {
        if (rc != 0) {
            throw new BackendException(name + " returned error " + rc);
        }
    }
}
