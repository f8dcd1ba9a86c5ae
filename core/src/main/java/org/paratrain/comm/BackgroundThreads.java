package org.paratrain.comm;

import java.util.function.BooleanSupplier;

/**
 * Threads that communicate beside a rank's computing thread, such as the exchange thread that
 * sends a gradient's buckets during the backward pass. A backend's waits on such a thread should
 * not spin: the rank's own thread is computing, often on the same core (one core a host), and
 * every microsecond spent polling is taken from it. The MPI backend polls such a wait at a
 * steady, short interval instead ({@code comm.mpi.Poller}), often enough that the transport keeps
 * the link busy. Once the rank's thread stops computing and waits for this one (the step's last
 * bucket), nothing is taken from it any more, and the waits poll as a rank's own do: a 200
 * microsecond interval there cost each message of the step's tail up to that much again. Ranks
 * that share an MPI process ({@code comm.mpi.FunneledCalls}) keep the interval to the end: a
 * sibling rank may still be computing on the same core.
 */
public final class BackgroundThreads {
    private static final ThreadLocal<BooleanSupplier> BACKGROUND = new ThreadLocal<>();

    private BackgroundThreads() { }

    /**
     * {@return a daemon thread, not started, that is marked as communicating in the background,
     * always beside a computing thread}
     * @param task what it runs
     * @param name its name
     */
    public static Thread of(Runnable task, String name) {
        return of(task, name, () -> true);
    }

    /**
     * {@return a daemon thread, not started, that is marked as communicating in the background}
     * @param task     what it runs
     * @param name     its name
     * @param besideComputation whether the rank's own thread computes now (read at each wait's
     *                 poll, from this thread: make what it reads volatile)
     */
    public static Thread of(Runnable task, String name, BooleanSupplier besideComputation) {
        java.util.Objects.requireNonNull(besideComputation, "besideComputation");
        Thread t = new Thread(() -> {
            BACKGROUND.set(besideComputation);
            task.run();
        }, name);
        t.setDaemon(true);
        return t;
    }

    /** {@return whether the calling thread was made by {@link #of}: no blocking call inside MPI on it} */
    public static boolean current() {
        return BACKGROUND.get() != null;
    }

    /** {@return whether the calling thread was made by {@link #of} and its rank's thread computes now: no spinning} */
    public static boolean besideComputation() {
        BooleanSupplier s = BACKGROUND.get();
        return s != null && s.getAsBoolean();
    }
}
