package org.paratrain.comm.mpi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * The downcall handles of the MPI functions paratrain calls on its hot paths, with the
 * communicator, datatype and operation handles already bound.
 *
 * <p>Each lives in its own holder class: made on first use (a handle costs milliseconds to
 * create), and a static final constant afterwards, which the JIT compiles into a direct call.
 * All are {@code Linker.Option.critical}: no thread-state transition, and Java arrays passed
 * without a copy. That is only allowed for calls that return promptly, since the garbage
 * collector cannot run meanwhile; {@link MpiCommunicator} says which calls may block, and why
 * they do not block for long.
 */
final class MpiCalls {
    private MpiCalls() { }

    static final class Lib {
        static final MpiLibrary LIB = MpiLibrary.load();
        static final MpiAbi ABI = LIB.abi();
    }

    static final class Send {
        static final MethodHandle H = send(Lib.ABI.doubleType());
    }

    static final class Recv {
        static final MethodHandle H = recv(Lib.ABI.doubleType());
    }

    static final class SendRecv {
        static final MethodHandle H = sendRecv(Lib.ABI.doubleType());
    }

    /** {@code MPI_Iprobe(source, tag, comm, &flag, &status)}. */
    static final class Iprobe {
        static final MethodHandle H = Lib.LIB.function("MPI_Iprobe", JAVA_INT, List.of(JAVA_INT, JAVA_INT,
            MpiLibrary.HANDLE, ADDRESS, ADDRESS), true, Lib.ABI.commWorld());
    }

    /** {@code MPI_Irecv(buf, count, MPI_DOUBLE, source, tag, comm, &request)}. */
    static final class Irecv {
        static final MethodHandle H = nonblocking("MPI_Irecv", Lib.ABI.doubleType());
    }

    /** {@code MPI_Isend(buf, count, MPI_DOUBLE, dest, tag, comm, &request)}. */
    static final class Isend {
        static final MethodHandle H = nonblocking("MPI_Isend", Lib.ABI.doubleType());
    }

    /** As {@link Send}, for 64-bit words ({@code MPI_INT64_T}). */
    static final class SendWords {
        static final MethodHandle H = send(Lib.ABI.int64Type());
    }

    /** As {@link Recv}, for 64-bit words. */
    static final class RecvWords {
        static final MethodHandle H = recv(Lib.ABI.int64Type());
    }

    /** As {@link SendRecv}, for 64-bit words both ways. */
    static final class SendRecvWords {
        static final MethodHandle H = sendRecv(Lib.ABI.int64Type());
    }

    /** As {@link Irecv}, for 64-bit words. */
    static final class IrecvWords {
        static final MethodHandle H = nonblocking("MPI_Irecv", Lib.ABI.int64Type());
    }

    /** As {@link Isend}, for 64-bit words. */
    static final class IsendWords {
        static final MethodHandle H = nonblocking("MPI_Isend", Lib.ABI.int64Type());
    }

    /** {@code MPI_Test(&request, &flag, &status)}. */
    static final class Test {
        static final MethodHandle H = Lib.LIB.function("MPI_Test", JAVA_INT, List.of(ADDRESS, ADDRESS, ADDRESS),
            true);
    }

    /** {@code MPI_Error_class(code, &class)}: MPICH's error codes carry more than the class. */
    static final class ErrorClass {
        static final MethodHandle H = Lib.LIB.function("MPI_Error_class", JAVA_INT, List.of(JAVA_INT, ADDRESS), false);
    }

    static final class Ibarrier {
        static final MethodHandle H = Lib.LIB.function("MPI_Ibarrier", JAVA_INT, List.of(MpiLibrary.HANDLE, ADDRESS),
            true, Lib.ABI.commWorld());
    }

    static final class AllreduceSum {
        static final MethodHandle H = allreduce("MPI_Allreduce", Lib.ABI.doubleType(), Lib.ABI.sumOp(), false);
    }

    static final class AllreduceMax {
        static final MethodHandle H = allreduce("MPI_Allreduce", Lib.ABI.doubleType(), Lib.ABI.maxOp(), false);
    }

    static final class IallreduceSum {
        static final MethodHandle H = allreduce("MPI_Iallreduce", Lib.ABI.doubleType(), Lib.ABI.sumOp(), true);
    }

    static final class IallreduceMax {
        static final MethodHandle H = allreduce("MPI_Iallreduce", Lib.ABI.doubleType(), Lib.ABI.maxOp(), true);
    }

    /** {@code MPI_Allreduce} with {@code MPI_INT64_T} and {@code MPI_SUM}: exact, so any order gives the same words. */
    static final class AllreduceSumWords {
        static final MethodHandle H = allreduce("MPI_Allreduce", Lib.ABI.int64Type(), Lib.ABI.sumOp(), false);
    }

    static final class AllreduceMaxWords {
        static final MethodHandle H = allreduce("MPI_Allreduce", Lib.ABI.int64Type(), Lib.ABI.maxOp(), false);
    }

    static final class IallreduceSumWords {
        static final MethodHandle H = allreduce("MPI_Iallreduce", Lib.ABI.int64Type(), Lib.ABI.sumOp(), true);
    }

    static final class IallreduceMaxWords {
        static final MethodHandle H = allreduce("MPI_Iallreduce", Lib.ABI.int64Type(), Lib.ABI.maxOp(), true);
    }

    static final class Bcast {
        static final MethodHandle H = Lib.LIB.function("MPI_Bcast", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, MpiLibrary.HANDLE), true, Lib.ABI.doubleType(), Lib.ABI.commWorld());
    }

    static final class Ibcast {
        static final MethodHandle H = Lib.LIB.function("MPI_Ibcast", JAVA_INT, List.of(ADDRESS, JAVA_INT,
            MpiLibrary.HANDLE, JAVA_INT, MpiLibrary.HANDLE, ADDRESS), true, Lib.ABI.doubleType(), Lib.ABI.commWorld());
    }

    /** {@code MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, MPI_DOUBLE, MPI_SUM, comm)}. */
    static final class ReduceScatterSum {
        static final MethodHandle H = reduceScatter("MPI_Reduce_scatter", Lib.ABI.doubleType(), false);
    }

    static final class IreduceScatterSum {
        static final MethodHandle H = reduceScatter("MPI_Ireduce_scatter", Lib.ABI.doubleType(), true);
    }

    /** As {@link ReduceScatterSum} on {@code MPI_INT64_T}: exact, so any order gives the same words. */
    static final class ReduceScatterSumWords {
        static final MethodHandle H = reduceScatter("MPI_Reduce_scatter", Lib.ABI.int64Type(), false);
    }

    static final class IreduceScatterSumWords {
        static final MethodHandle H = reduceScatter("MPI_Ireduce_scatter", Lib.ABI.int64Type(), true);
    }

    /** {@code MPI_Allgatherv(sendbuf, sendcount, MPI_DOUBLE, recvbuf, recvcounts, displs, MPI_DOUBLE, comm)}. */
    static final class Allgatherv {
        static final MethodHandle H = allgatherv("MPI_Allgatherv", Lib.ABI.doubleType(), false);
    }

    static final class Iallgatherv {
        static final MethodHandle H = allgatherv("MPI_Iallgatherv", Lib.ABI.doubleType(), true);
    }

    /** As {@link Allgatherv} on {@code MPI_INT64_T}. */
    static final class AllgathervWords {
        static final MethodHandle H = allgatherv("MPI_Allgatherv", Lib.ABI.int64Type(), false);
    }

    static final class IallgathervWords {
        static final MethodHandle H = allgatherv("MPI_Iallgatherv", Lib.ABI.int64Type(), true);
    }

    /** {@code (sendbuf, recvbuf, recvcounts[, &request])} with {@code type}, {@code MPI_SUM} and the world bound. */
    private static MethodHandle reduceScatter(String name, Object type, boolean nonblocking) {
        List<Object> args = nonblocking
            ? List.of(ADDRESS, ADDRESS, ADDRESS, MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE, ADDRESS)
            : List.of(ADDRESS, ADDRESS, ADDRESS, MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE);
        return Lib.LIB.function(name, JAVA_INT, args, true, type, Lib.ABI.sumOp(), Lib.ABI.commWorld());
    }

    /**
     * {@code (sendbuf, sendcount, recvbuf, recvcounts, displs[, &request])} with {@code type} sent and
     * received and the world bound.
     */
    private static MethodHandle allgatherv(String name, Object type, boolean nonblocking) {
        List<Object> args = nonblocking
            ? List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, ADDRESS, ADDRESS, ADDRESS, MpiLibrary.HANDLE,
                MpiLibrary.HANDLE, ADDRESS)
            : List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, ADDRESS, ADDRESS, ADDRESS, MpiLibrary.HANDLE,
                MpiLibrary.HANDLE);
        return Lib.LIB.function(name, JAVA_INT, args, true, type, type, Lib.ABI.commWorld());
    }

    /** {@code (sendbuf, recvbuf, count[, &request])} with {@code type}, {@code op} and the world bound. */
    private static MethodHandle allreduce(String name, Object type, Object op, boolean nonblocking) {
        List<Object> args = nonblocking
            ? List.of(ADDRESS, ADDRESS, JAVA_INT, MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE, ADDRESS)
            : List.of(ADDRESS, ADDRESS, JAVA_INT, MpiLibrary.HANDLE, MpiLibrary.HANDLE, MpiLibrary.HANDLE);
        return Lib.LIB.function(name, JAVA_INT, args, true, type, op, Lib.ABI.commWorld());
    }

    /** {@code MPI_Send(buf, count, type, dest, tag, comm)} with {@code type} and the world bound. */
    private static MethodHandle send(Object type) {
        return Lib.LIB.function("MPI_Send", JAVA_INT, List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT, JAVA_INT,
            MpiLibrary.HANDLE), true, type, Lib.ABI.commWorld());
    }

    /** {@code MPI_Recv(buf, count, type, source, tag, comm, &status)}. */
    private static MethodHandle recv(Object type) {
        return Lib.LIB.function("MPI_Recv", JAVA_INT, List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT, JAVA_INT,
            MpiLibrary.HANDLE, ADDRESS), true, type, Lib.ABI.commWorld());
    }

    /** {@code MPI_Sendrecv} with {@code type} both ways. */
    private static MethodHandle sendRecv(Object type) {
        return Lib.LIB.function("MPI_Sendrecv", JAVA_INT, List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT,
            JAVA_INT, ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT, JAVA_INT, MpiLibrary.HANDLE, ADDRESS), true, type,
            type, Lib.ABI.commWorld());
    }

    /** {@code MPI_Isend} or {@code MPI_Irecv}: {@code (buf, count, type, peer, tag, comm, &request)}. */
    private static MethodHandle nonblocking(String name, Object type) {
        return Lib.LIB.function(name, JAVA_INT, List.of(ADDRESS, JAVA_INT, MpiLibrary.HANDLE, JAVA_INT, JAVA_INT,
            MpiLibrary.HANDLE, ADDRESS), true, type, Lib.ABI.commWorld());
    }
}
