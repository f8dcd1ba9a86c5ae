package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.MessageTooLongException;

/**
 * A rank of an MPI job ({@code MPI_COMM_WORLD}), reached through the FFM API.
 *
 * <p>One per process: {@link #world()} calls {@code MPI_Init} on first use, and
 * {@link #close()} calls {@code MPI_Finalize}. Sends and receives are blocking
 * {@code MPI_Send}/{@code MPI_Recv}; Java arrays are passed to MPI without a copy
 * ({@code Linker.Option.critical}, allowed because these calls neither block the garbage
 * collector for long nor call back into Java). Errors come back as codes
 * ({@code MPI_ERRORS_RETURN}) and become exceptions. No MPI type leaves this package.
 */
public final class MpiCommunicator implements Communicator, AutoCloseable {
    private static MpiCommunicator world;

    private final MpiLibrary lib;
    private final MpiAbi abi;
    private final int rank;
    private final int size;
    private final MemorySegment status;
    private boolean finalized;

    /*
     * Each MPI function's downcall handle lives in its own holder class: made on first use
     * (a handle costs milliseconds to create), and a static final constant afterwards, which
     * the JIT compiles into a direct call.
     */
    private static final class Lib {
        static final MpiLibrary LIB = MpiLibrary.load();
        static final MpiAbi ABI = LIB.abi();
    }

    private static final class Send {
        static final MethodHandle H = Lib.LIB.function("MPI_Send", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, JAVA_INT, MpiLibrary.HANDLE), true, Lib.ABI.doubleType(), Lib.ABI.commWorld());
    }

    private static final class Recv {
        static final MethodHandle H = Lib.LIB.function("MPI_Recv", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, JAVA_INT, MpiLibrary.HANDLE, ADDRESS), true, Lib.ABI.doubleType(),
            Lib.ABI.commWorld());
    }

    private static final class SendRecv {
        static final MethodHandle H = Lib.LIB.function("MPI_Sendrecv", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT, JAVA_INT,
            MpiLibrary.HANDLE, ADDRESS), true, Lib.ABI.doubleType(), Lib.ABI.doubleType(), Lib.ABI.commWorld());
    }

    private static final class Barrier {
        static final MethodHandle H = Lib.LIB.function("MPI_Barrier", JAVA_INT, List.of(MpiLibrary.HANDLE), false,
            Lib.ABI.commWorld());
    }

    private static final class Wtime {
        static final MethodHandle H = Lib.LIB.function("MPI_Wtime", JAVA_DOUBLE, List.of(), false);
    }

    private static final class Allreduce {
        static final MethodHandle H = Lib.LIB.function("MPI_Allreduce", JAVA_INT, List.of(ADDRESS, ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE), true, Lib.ABI.doubleType(), Lib.ABI.sumOp(),
            Lib.ABI.commWorld());
    }

    private static final class AllreduceMax {
        static final MethodHandle H = Lib.LIB.function("MPI_Allreduce", JAVA_INT, List.of(ADDRESS, ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE), true, Lib.ABI.doubleType(), Lib.ABI.maxOp(),
            Lib.ABI.commWorld());
    }

    private static final class Bcast {
        static final MethodHandle H = Lib.LIB.function("MPI_Bcast", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, MpiLibrary.HANDLE), true, Lib.ABI.doubleType(), Lib.ABI.commWorld());
    }

    private MpiCommunicator(MpiLibrary lib) {
        this.lib = lib;
        this.abi = lib.abi();
        Arena arena = Arena.global();
        this.status = arena.allocate(abi.statusBytes(), 8);
        MemorySegment out = arena.allocate(JAVA_INT);
        call("MPI_Init", lib.function("MPI_Init", JAVA_INT, List.of(ADDRESS, ADDRESS), false),
            MemorySegment.NULL, MemorySegment.NULL);
        call("MPI_Comm_set_errhandler", lib.function("MPI_Comm_set_errhandler", JAVA_INT,
            List.of(MpiLibrary.HANDLE, MpiLibrary.HANDLE), false, abi.commWorld(), abi.errorsReturn()));
        call("MPI_Comm_rank", lib.function("MPI_Comm_rank", JAVA_INT, List.of(MpiLibrary.HANDLE, ADDRESS), false,
            abi.commWorld()), out);
        this.rank = out.get(JAVA_INT, 0);
        call("MPI_Comm_size", lib.function("MPI_Comm_size", JAVA_INT, List.of(MpiLibrary.HANDLE, ADDRESS), false,
            abi.commWorld()), out);
        this.size = out.get(JAVA_INT, 0);
    }

    /** This process's rank of MPI_COMM_WORLD, initialising MPI on first use. */
    public static synchronized MpiCommunicator world() {
        if (world == null) {
            world = new MpiCommunicator(Lib.LIB);
        }
        return world;
    }

    /** Calls MPI_Finalize if MPI was initialised in this process; otherwise does nothing. */
    public static synchronized void finalizeIfInitialized() {
        if (world != null) {
            world.close();
        }
    }

    /** Which MPI implementation and library file are in use. */
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

    @Override
    public void send(double[] buf, int offset, int length, int dest, int tag) {
        Communicator.checkArgs(this, buf, offset, length, dest, tag);
        int rc;
        try {
            rc = (int) Send.H.invokeExact(slice(buf, offset, length), length, dest, tag);
        } catch (Throwable t) {
            throw new MpiException("MPI_Send failed: " + t);
        }
        check("MPI_Send", rc);
    }

    @Override
    public int recv(double[] buf, int offset, int length, int source, int tag) {
        Communicator.checkArgs(this, buf, offset, length, source, tag);
        int rc;
        try {
            rc = (int) Recv.H.invokeExact(slice(buf, offset, length), length, source, tag, status);
        } catch (Throwable t) {
            throw new MpiException("MPI_Recv failed: " + t);
        }
        if (rc == abi.errTruncate()) {
            throw new MessageTooLongException(source, tag, -1, length);
        }
        check("MPI_Recv", rc);
        // The received size in bytes, read from the status (what MPI_Get_count reads, without a second call).
        return (int) (abi.receivedBytes(status) / Double.BYTES);
    }

    @Override
    public int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                        double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag) {
        Communicator.checkArgs(this, sendBuf, sendOffset, sendLength, dest, sendTag);
        Communicator.checkArgs(this, recvBuf, recvOffset, recvLength, source, recvTag);
        int rc;
        try {
            rc = (int) SendRecv.H.invokeExact(slice(sendBuf, sendOffset, sendLength), sendLength, dest, sendTag,
                slice(recvBuf, recvOffset, recvLength), recvLength, source, recvTag, status);
        } catch (Throwable t) {
            throw new MpiException("MPI_Sendrecv failed: " + t);
        }
        if (rc == abi.errTruncate()) {
            throw new MessageTooLongException(source, recvTag, -1, recvLength);
        }
        check("MPI_Sendrecv", rc);
        return (int) (abi.receivedBytes(status) / Double.BYTES);
    }

    @Override
    public void barrier() {
        int rc;
        try {
            rc = (int) Barrier.H.invokeExact();
        } catch (Throwable t) {
            throw new MpiException("MPI_Barrier failed: " + t);
        }
        check("MPI_Barrier", rc);
    }

    @Override
    public double wtime() {
        try {
            return (double) Wtime.H.invokeExact();
        } catch (Throwable t) {
            throw new MpiException("MPI_Wtime failed: " + t);
        }
    }

    @Override
    public String backend() {
        return "mpi";
    }

    /** MPI's own allreduce: {@code buf[offset, offset + length)} becomes the sum over all ranks. */
    public void allreduceSum(double[] buf, int offset, int length) {
        int rc;
        try {
            rc = (int) Allreduce.H.invokeExact(abi.inPlace(), slice(buf, offset, length), length);
        } catch (Throwable t) {
            throw new MpiException("MPI_Allreduce failed: " + t);
        }
        check("MPI_Allreduce", rc);
    }

    /** MPI's own allreduce with {@code MPI_MAX}: every element becomes its maximum over all ranks. */
    public void allreduceMax(double[] buf, int offset, int length) {
        int rc;
        try {
            rc = (int) AllreduceMax.H.invokeExact(abi.inPlace(), slice(buf, offset, length), length);
        } catch (Throwable t) {
            throw new MpiException("MPI_Allreduce failed: " + t);
        }
        check("MPI_Allreduce", rc);
    }

    /** MPI's own broadcast of {@code buf[offset, offset + length)} from {@code root}. */
    public void broadcast(double[] buf, int offset, int length, int root) {
        int rc;
        try {
            rc = (int) Bcast.H.invokeExact(slice(buf, offset, length), length, root);
        } catch (Throwable t) {
            throw new MpiException("MPI_Bcast failed: " + t);
        }
        check("MPI_Bcast", rc);
    }

    /** Ends every process of the job with {@code code} ({@code MPI_Abort}); does not return normally. */
    public void abort(int code) {
        call("MPI_Abort", lib.function("MPI_Abort", JAVA_INT, List.of(MpiLibrary.HANDLE, JAVA_INT), false,
            abi.commWorld()), code);
    }

    /** {@code MPI_Finalize}; later calls do nothing. */
    @Override
    public synchronized void close() {
        if (!finalized) {
            finalized = true;
            call("MPI_Finalize", lib.function("MPI_Finalize", JAVA_INT, List.of(), false));
        }
    }

    private static MemorySegment slice(double[] buf, int offset, int length) {
        return MemorySegment.ofArray(buf).asSlice(offset * 8L, length * 8L);
    }

    private static void call(String name, MethodHandle h, Object... args) {
        int rc;
        try {
            rc = (int) h.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new MpiException(name + " failed: " + t);
        }
        check(name, rc);
    }

    private static void check(String name, int rc) {
        if (rc != 0) {
            throw new MpiException(name + " returned error " + rc);
        }
    }
}
