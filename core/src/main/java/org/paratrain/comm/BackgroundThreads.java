package org.paratrain.comm;

/**
 * Threads that communicate beside a rank's computing thread, such as the exchange thread that
 * sends a gradient's buckets during the backward pass. A backend's waits on such a thread should
 * not spin: the rank's own thread is computing, often on the same core (one core a host), and
 * every microsecond spent polling is taken from it. The MPI backend polls such a wait at a
 * steady, short interval instead ({@code comm.mpi.Poller}), often enough that the transport keeps
 * the link busy.
 */
public final class BackgroundThreads {
    private static final ThreadLocal<Boolean> BACKGROUND = ThreadLocal.withInitial(() -> false);

    private BackgroundThreads() { }

    /**
     * {@return a daemon thread, not started, that is marked as communicating in the background}
     * @param task what it runs
     * @param name its name
     */
    public static Thread of(Runnable task, String name) {
        Thread t = new Thread(() -> {
            BACKGROUND.set(true);
            task.run();
        }, name);
        t.setDaemon(true);
        return t;
    }

    /** {@return whether the calling thread was made by {@link #of}} */
    public static boolean current() {
        return BACKGROUND.get();
    }
}
