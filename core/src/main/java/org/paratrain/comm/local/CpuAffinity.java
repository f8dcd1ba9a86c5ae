package org.paratrain.comm.local;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.paratrain.io.CFunctions;

/**
 * Binds the calling thread to one CPU (Linux {@code sched_setaffinity}, through the FFM API),
 * as {@code mpirun --bind-to core} binds MPI processes, or moves it off CPUs once.
 *
 * <p>Off unless {@code -Dparatrain.bind=true}. It was on by default: when every rank has a
 * core, ranks poll for messages, and a poll only works if the peer runs at the same time;
 * unbound, the kernel once kept both ranks of a 2-rank run on one core (one run in four took
 * 8 times longer). Measured again with the waits then (poll 50 us, yielding, then park), on
 * 20,000 x 10, 3,000 epochs, 2 ranks: bound 169-198 us an epoch, unbound 137-157 over ten
 * runs with no outlier (1 rank: 130-141); over 20,000 epochs the same (72-75 and 70-72). A
 * bound rank cannot leave a core the JIT's compiler threads or another process take, so its
 * peer waits a whole time slice at each exchange: with another process busy on one core,
 * 2 bound ranks took 6.7-7.2 ms an epoch and 2 unbound ranks 0.28-0.29 ms (1 rank: 0.16-0.18).
 * Where the call is not available (not Linux, no C library found) binding does nothing.
 *
 * <p>Unbound, a rank that starts on the CPU of another rank moves off it once
 * ({@link #moveOff}), without staying bound: the kernel's own balancing is kept, and only its
 * first placement, which put both ranks of a 2-rank run on one core in some runs, is undone.
 */
final class CpuAffinity {
    private static final int SET_BYTES = 128;      // cpu_set_t: 1024 CPUs
    /** Words of a CPU set as this class reads and writes it (1,024 CPUs). */
    static final int SET_WORDS = SET_BYTES / Long.BYTES;
    private static final MethodHandle GET;
    private static final MethodHandle SET;
    private static final MethodHandle GETCPU;

    static {
        FunctionDescriptor affinity = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        MethodHandle get = CFunctions.find("sched_getaffinity", affinity);
        MethodHandle set = CFunctions.find("sched_setaffinity", affinity);
        GET = get != null && set != null ? get : null;
        SET = get != null && set != null ? set : null;
        GETCPU = CFunctions.find("sched_getcpu", FunctionDescriptor.of(ValueLayout.JAVA_INT),
            Linker.Option.critical(false));
    }

    /** The CPU the calling thread runs on now, or -1 if unknown (not Linux, no C library found). */
    static int cpu() {
        if (GETCPU == null) {
            return -1;
        }
        try {
            return (int) GETCPU.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    private CpuAffinity() { }

    /** The CPUs the calling thread may run on, as a bit set; null if unknown. */
    static long[] current() {
        if (GET == null) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            if ((int) GET.invokeExact(0, (long) SET_BYTES, mask) != 0) {
                return null;
            }
            return mask.toArray(ValueLayout.JAVA_LONG);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Restricts the calling thread to the CPUs in {@code cpus} when binding is on; returns whether it did. */
    static boolean set(long[] cpus) {
        return cpus != null && binding() && setMask(cpus);
    }

    /** Whether ranks are bound to CPUs ({@code -Dparatrain.bind=true}). */
    static boolean binding() {
        return "true".equals(System.getProperty("paratrain.bind"));
    }

    /**
     * Moves the calling thread, once, to one of its allowed CPUs outside {@code taken}, and
     * leaves it free to go anywhere it could before: it narrows its own set to the CPUs not in
     * {@code taken} (the kernel moves it at once), notes where it runs, and restores the set.
     * The kernel leaves a thread where it is until it has reason to move it, so the move holds.
     *
     * @param taken CPUs to leave, as a bit set
     * @return the CPU the thread ran on once moved, or -1 if it did not move (no CPU allowed
     *         outside {@code taken}, or the calls are not available)
     */
    static int moveOff(long[] taken) {
        long[] allowed = current();
        long[] rest = allowed == null ? null : without(allowed, taken);
        if (rest == null || !setMask(rest)) {
            return -1;
        }
        int now = cpu();
        setMask(allowed);
        return now;
    }

    /** {@return {@code allowed} without the CPUs of {@code taken}, or null if none are left} */
    static long[] without(long[] allowed, long[] taken) {
        long[] rest = allowed.clone();
        boolean any = false;
        for (int i = 0; i < rest.length; i++) {
            rest[i] &= i < taken.length ? ~taken[i] : -1L;
            any |= rest[i] != 0;
        }
        return any ? rest : null;
    }

    private static boolean setMask(long[] cpus) {
        if (SET == null) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            MemorySegment.copy(cpus, 0, mask, ValueLayout.JAVA_LONG, 0, Math.min(cpus.length, SET_WORDS));
            return (int) SET.invokeExact(0, (long) SET_BYTES, mask) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The {@code k}-th allowed CPU (cyclically) of {@code allowed}, as a one-CPU set; null if none. */
    static long[] nth(long[] allowed, int k) {
        if (allowed == null) {
            return null;
        }
        int count = 0;
        for (long w : allowed) {
            count += Long.bitCount(w);
        }
        if (count == 0) {
            return null;
        }
        int target = k % count;
        for (int word = 0; word < allowed.length; word++) {
            long w = allowed[word];
            while (w != 0) {
                int bit = Long.numberOfTrailingZeros(w);
                if (target-- == 0) {
                    long[] one = new long[allowed.length];
                    one[word] = 1L << bit;
                    return one;
                }
                w &= w - 1;
            }
        }
        return null;
    }
}
