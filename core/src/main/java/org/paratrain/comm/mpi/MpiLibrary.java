package org.paratrain.comm.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.comm.BackendException;

/**
 * The MPI shared library of this process, loaded once, and downcall handles into it.
 *
 * <p>The library is opened with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)} before the FFM
 * lookup: Open MPI loads its transports as plug-ins that expect libmpi's symbols in the
 * global namespace, which {@link SymbolLookup#libraryLookup} alone (RTLD_LOCAL) does not
 * give. Which library: {@code PARATRAIN_MPI_LIB} if set (a file name or path), else Open
 * MPI's {@code libmpi.so.40}, else MPICH's {@code libmpich.so.12} (MPICH's first when the
 * process was started by MPICH's hydra, as with {@code PARATRAIN_MPIRUN=mpiexec.mpich}: Open
 * MPI's library under hydra would make every rank a job of its own); the ABI follows from
 * whether the library defines Open MPI's {@code ompi_mpi_comm_world}.
 *
 * <p>Handles are made on first use of each function, since each costs milliseconds.
 */
final class MpiLibrary {
    private static final int RTLD_NOW = 2;
    private static final int RTLD_GLOBAL = 0x100;
    private static final List<String> CANDIDATES = List.of("libmpi.so.40", "libmpich.so.12", "libmpi.so.12",
        "libmpi.so");

    private final SymbolLookup lookup;
    private final MpiAbi abi;
    private final String file;

    private MpiLibrary(SymbolLookup lookup, MpiAbi abi, String file) {
        this.lookup = lookup;
        this.abi = abi;
        this.file = file;
    }

    /** Loads the library named by PARATRAIN_MPI_LIB or the first that is installed. */
    static MpiLibrary load() {
        keepJvmSignals();
        String named = System.getenv("PARATRAIN_MPI_LIB");
        List<String> tried = new ArrayList<>();
        boolean hydra = System.getenv("PMI_RANK") != null && System.getenv("OMPI_COMM_WORLD_SIZE") == null;
        List<String> candidates = hydra ? List.of("libmpich.so.12", "libmpi.so.12", "libmpi.so.40", "libmpi.so")
            : CANDIDATES;
        for (String candidate : named != null && !named.isBlank() ? List.of(named) : candidates) {
            tried.add(candidate);
            if (dlopenGlobal(candidate)) {
                SymbolLookup lib = SymbolLookup.libraryLookup(candidate, Arena.global());
                MpiAbi abi = lib.find("ompi_mpi_comm_world").isPresent() ? MpiAbi.openMpi(lib) : MpiAbi.mpich();
                return new MpiLibrary(lib, abi, candidate);
            }
        }
        throw new BackendException("no MPI library found (tried " + String.join(", ", tried) + "); install Open MPI "
            + "(apt-get install openmpi-bin libopenmpi-dev) or MPICH, or set PARATRAIN_MPI_LIB to the library");
    }

    /**
     * Keeps UCX (MPICH's transport here, and Open MPI's where built with it) from installing its
     * handlers for SIGSEGV and SIGBUS when the library loads: the JVM raises those on purpose
     * (a null check, a safepoint poll) and must handle them itself. With several ranks as
     * threads, safepoints are frequent enough that UCX caught one and ended the process
     * ("Caught signal 11 ... ReentrantLock.unlock"). Sets {@code UCX_ERROR_SIGNALS} to empty
     * unless the user set it.
     */
    private static void keepJvmSignals() {
        Linker linker = Linker.nativeLinker();
        MemorySegment setenv = linker.defaultLookup().find("setenv").orElse(null);
        if (setenv == null) {
            return;
        }
        MethodHandle h = linker.downcallHandle(setenv,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) h.invokeExact(arena.allocateFrom("UCX_ERROR_SIGNALS"), arena.allocateFrom(""), 0);
        } catch (Throwable t) {
            throw new BackendException("setenv failed: " + t);
        }
    }

    private static boolean dlopenGlobal(String name) {
        Linker linker = Linker.nativeLinker();
        MemorySegment dlopen = linker.defaultLookup().find("dlopen")
            .orElseThrow(() -> new BackendException("this C library has no dlopen; MPI needs Linux or macOS"));
        MethodHandle h = linker.downcallHandle(dlopen,
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = (MemorySegment) h.invokeExact(arena.allocateFrom(name), RTLD_NOW | RTLD_GLOBAL);
            return handle.address() != 0;
        } catch (Throwable t) {
            throw new BackendException("dlopen(" + name + ") failed: " + t);
        }
    }

    MpiAbi abi() {
        return abi;
    }

    String file() {
        return file;
    }

    /**
     * A downcall to {@code function}. In {@code args}, the marker {@link #HANDLE} stands for an
     * MPI handle argument, whose layout depends on the ABI; {@code handles} are bound to those
     * positions in order, so the returned handle takes only the remaining arguments.
     */
    MethodHandle function(String function, ValueLayout result, List<Object> args, boolean critical,
                          Object... handles) {
        MemorySegment symbol = lookup.find(function)
            .orElseThrow(() -> new BackendException(file + " has no function " + function));
        List<java.lang.foreign.MemoryLayout> layouts = new ArrayList<>();
        List<Integer> handlePositions = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i) == HANDLE) {
                layouts.add(abi.handleLayout());
                handlePositions.add(i);
            } else {
                layouts.add((java.lang.foreign.MemoryLayout) args.get(i));
            }
        }
        java.lang.foreign.MemoryLayout[] arr = layouts.toArray(java.lang.foreign.MemoryLayout[]::new);
        FunctionDescriptor fd = result == null ? FunctionDescriptor.ofVoid(arr) : FunctionDescriptor.of(result, arr);
        MethodHandle h = critical
            ? Linker.nativeLinker().downcallHandle(symbol, fd, Linker.Option.critical(true))
            : Linker.nativeLinker().downcallHandle(symbol, fd);
        for (int k = handlePositions.size() - 1; k >= 0; k--) {
            h = MethodHandles.insertArguments(h, handlePositions.get(k), handles[k]);
        }
        return h;
    }

    /** Marks a handle argument in {@link #function}'s argument list. */
    static final Object HANDLE = new Object();
}
