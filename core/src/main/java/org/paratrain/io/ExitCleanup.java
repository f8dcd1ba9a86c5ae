package org.paratrain.io;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this process must undo when it is ended by SIGINT or SIGTERM (a Ctrl-C, {@code timeout},
 * Slurm's scancel): child processes to stop, then staging directories and temporary files to
 * delete. A signal runs the JVM's shutdown hooks but not the {@code finally} blocks of the
 * thread that made those things, so they are registered here while they exist.
 *
 * <p>Process-wide by nature (there is one set of shutdown hooks, as with
 * {@link java.io.File#deleteOnExit}); one hook runs the stops first, so that no child writes
 * into a directory after it was deleted, then the deletes.
 *
 * <p>Publishing results ({@link #publish}) and the exit exclude each other: an exit waits for
 * renames under way to finish, and no publishing starts once the exit has begun, so a
 * cancelled run leaves its output directory either as it was or complete.
 *
 * <p>A process whose results belong to another (an MPI rank, whose job dies with the process
 * that launched it) may also {@linkplain #guardPublishing guard} every rename that makes a
 * result visible, so that none happens once that process is gone.
 */
public final class ExitCleanup {
    private static final Set<Runnable> STOPS = ConcurrentHashMap.newKeySet();
    private static final Set<Path> PATHS = ConcurrentHashMap.newKeySet();
    private static final ReentrantLock PUBLISH = new ReentrantLock();
    private static final Set<java.util.function.BooleanSupplier> GUARDS = ConcurrentHashMap.newKeySet();
    private static volatile boolean exiting;

    static {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::run, "paratrain-exit-cleanup"));
        } catch (IllegalStateException e) {
            // Already shutting down: nothing registered from now on will be cleaned, as before.
        }
    }

    private ExitCleanup() { }

    /**
     * Runs {@code stop} if the process exits while it is registered.
     *
     * @param stop what to run at exit
     * @return what unregisters it, once {@code stop} is no longer needed
     */
    public static Runnable onExit(Runnable stop) {
        STOPS.add(stop);
        return () -> STOPS.remove(stop);
    }

    /**
     * Ends {@code child} and every process below it if this process exits while it runs
     * (SIGTERM, then SIGKILL after a second).
     *
     * @param child a process this one started
     * @return what unregisters it, once the child has ended
     */
    public static Runnable stopOnExit(Process child) {
        return onExit(() -> {
            java.util.List<ProcessHandle> tree = child.descendants().toList();
            child.destroy();
            tree.forEach(ProcessHandle::destroy);
            long end = System.nanoTime() + 1_000_000_000L;
            while ((child.isAlive() || tree.stream().anyMatch(ProcessHandle::isAlive)) && System.nanoTime() < end) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
            }
            child.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
        });
    }

    /**
     * Deletes {@code path} (a file or a directory tree) if the process exits before {@link #forget}.
     *
     * @param path a temporary file or directory, or one being written
     */
    public static void deleteOnExit(Path path) {
        PATHS.add(path.toAbsolutePath());
    }

    /**
     * {@code path} was deleted or kept on purpose; the exit leaves it alone.
     *
     * @param path as given to {@link #deleteOnExit}
     */
    public static void forget(Path path) {
        PATHS.remove(path.toAbsolutePath());
    }

    /** {@return true once the process has begun to exit} */
    public static boolean exiting() {
        return exiting;
    }

    /** A step that makes results visible (renames into an output directory). */
    @FunctionalInterface
    public interface Publish {
        /**
         * Does the renames.
         *
         * @throws java.io.IOException if a rename fails
         */
        void run() throws java.io.IOException;
    }

    /**
     * Asks {@code mayPublish} right before every rename that makes a result visible (each
     * {@link AtomicFiles} write, before its temporary file is made and again before the rename,
     * and each {@link #publish} step); a no refuses the rename as an exit does. For a condition
     * outside this process that no lock can hold, such as whether the process the results are
     * for still lives.
     *
     * @param mayPublish the check; it must be quick, it runs on the writing thread
     * @return what unregisters it
     */
    public static Runnable guardPublishing(java.util.function.BooleanSupplier mayPublish) {
        GUARDS.add(mayPublish);
        return () -> GUARDS.remove(mayPublish);
    }

    /**
     * Asks every guard of {@link #guardPublishing}: the last moment before a rename.
     *
     * @throws java.util.concurrent.CancellationException if one refuses
     */
    static void checkGuards() {
        for (java.util.function.BooleanSupplier g : GUARDS) {
            if (!g.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException("cancelled: the results are no longer wanted");
            }
        }
    }

    /**
     * Runs {@code step} unless the process is exiting; an exit that begins meanwhile waits for it.
     *
     * @param step the renames that make results visible
     * @throws java.io.IOException if the step fails
     * @throws java.util.concurrent.CancellationException if the process is exiting
     */
    public static void publish(Publish step) throws java.io.IOException {
        PUBLISH.lock();
        try {
            if (exiting) {
                throw new java.util.concurrent.CancellationException("cancelled");
            }
            checkGuards();
            step.run();
        } finally {
            PUBLISH.unlock();
        }
    }

    private static void run() {
        PUBLISH.lock();
        try {
            exiting = true;
        } finally {
            PUBLISH.unlock();
        }
        for (Runnable stop : STOPS) {
            try {
                stop.run();
            } catch (RuntimeException e) {
                // One stop failing must not keep the others or the deletes from running.
            }
        }
        for (Path p : PATHS) {
            AtomicFiles.deleteQuietly(p);
        }
    }
}
