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
            Priority.raise();
            task.run();
        }, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * A background thread waits mostly, computes little, and must answer its transport at once:
     * where it shares a core with the rank's computing thread, the scheduler otherwise lets it
     * wait for its turn (milliseconds), the transport's socket buffers fill, and the link stands
     * still. So on Linux it asks for a higher priority ({@code setpriority} of its own thread id,
     * nice -10; a process may only lower a nice value as root) and keeps its normal one if refused.
     */
    private static final class Priority {
        private static final java.lang.invoke.MethodHandle GETTID = org.paratrain.io.CFunctions.find("gettid",
            java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT));
        private static final java.lang.invoke.MethodHandle SETPRIORITY = org.paratrain.io.CFunctions.find(
            "setpriority", java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT,
                java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT,
                java.lang.foreign.ValueLayout.JAVA_INT));
        /** {@code PRIO_PROCESS}: with a thread id, Linux sets that thread's nice value. */
        private static final int PRIO_PROCESS = 0;
        private static final int NICE = -10;

        static void raise() {
            if (GETTID == null || SETPRIORITY == null) {
                return;
            }
            try {
                int tid = (int) GETTID.invokeExact();
                int rc = (int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, NICE);
                // rc -1: not allowed (not root); the thread keeps its priority.
            } catch (Throwable e) {
                // Keeps its priority.
            }
        }
    }

    /** {@return whether the calling thread was made by {@link #of}} */
    public static boolean current() {
        return BACKGROUND.get();
    }
}
