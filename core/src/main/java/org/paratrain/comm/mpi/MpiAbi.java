package org.paratrain.comm.mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import org.paratrain.comm.BackendException;

/**
 * What differs between MPI implementations at the binary level: how handles are passed
 * and a few constants. MPI fixes the API, not the ABI, so each implementation needs its
 * own small record.
 *
 * <ul>
 *   <li>Open MPI ({@code libmpi.so.40}): a handle is a pointer to a global object, e.g.
 *       {@code MPI_COMM_WORLD} is the address of {@code ompi_mpi_comm_world};
 *       {@code MPI_IN_PLACE} is {@code (void*)1}; {@code MPI_Status} is 24 bytes.</li>
 *   <li>MPICH ({@code libmpich.so.12}): a handle is an {@code int} constant, e.g.
 *       {@code MPI_COMM_WORLD} is {@code 0x44000000}; {@code MPI_IN_PLACE} is
 *       {@code (void*)-1}; {@code MPI_Status} is 20 bytes.</li>
 * </ul>
 *
 * @param name         implementation name, for messages
 * @param handleLayout how a handle is passed: a pointer or an int
 * @param commWorld    {@code MPI_COMM_WORLD}
 * @param doubleType   {@code MPI_DOUBLE}
 * @param int64Type    {@code MPI_INT64_T}: Java's {@code long} whatever C's {@code long} is (Open MPI's
 *                     {@code ompi_mpi_int64_t}, MPICH's {@code 0x4c00083a}, from its {@code mpi.h})
 * @param sumOp        {@code MPI_SUM}
 * @param maxOp        {@code MPI_MAX}
 * @param errorsReturn {@code MPI_ERRORS_RETURN}, so that errors come back as codes
 * @param inPlace      {@code MPI_IN_PLACE}
 * @param statusBytes  {@code sizeof(MPI_Status)}
 * @param errTruncate  the {@code MPI_ERR_TRUNCATE} error class
 * @param countOffset  where in {@code MPI_Status} the received size in bytes is kept: Open MPI's
 *                     {@code size_t _ucount} at 16, MPICH's {@code int count_lo} at 0
 */
record MpiAbi(String name, ValueLayout handleLayout, Object commWorld, Object doubleType, Object int64Type, Object sumOp,
              Object maxOp, Object errorsReturn, MemorySegment inPlace, int statusBytes, int errTruncate, int countOffset) {

    /** The size in bytes of the message a receive just filled {@code status} for. */
    long receivedBytes(MemorySegment status) {
        return countOffset == 16 ? status.get(ValueLayout.JAVA_LONG, 16)
            : Integer.toUnsignedLong(status.get(ValueLayout.JAVA_INT, countOffset));
    }

    /** Open MPI's ABI, with handle addresses taken from the loaded library. */
    static MpiAbi openMpi(SymbolLookup lib) {
        return new MpiAbi("Open MPI", ValueLayout.ADDRESS, symbol(lib, "ompi_mpi_comm_world"),
            symbol(lib, "ompi_mpi_double"), symbol(lib, "ompi_mpi_int64_t"), symbol(lib, "ompi_mpi_op_sum"),
            symbol(lib, "ompi_mpi_op_max"), symbol(lib, "ompi_mpi_errors_return"),
            MemorySegment.ofAddress(1), 24, 15, 16);
    }

    /** MPICH's ABI (and that of its derivatives that keep it, such as Intel MPI). */
    static MpiAbi mpich() {
        return new MpiAbi("MPICH", ValueLayout.JAVA_INT, 0x44000000, 0x4c00080b, 0x4c00083a, 0x58000003, 0x58000001,
            0x54000001, MemorySegment.ofAddress(-1L), 20, 14, 0);
    }

    private static MemorySegment symbol(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new BackendException("the MPI library has no symbol " + name
            + "; is it Open MPI?"));
    }
}
