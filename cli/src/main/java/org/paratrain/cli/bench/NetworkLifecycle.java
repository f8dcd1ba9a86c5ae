package org.paratrain.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The emulated hosts' lifetime for one link of {@code bench network}: made before the link's
 * measurements and removed after them, whether they end well, fail, or the JVM is stopped.
 * Apart from {@link NetworkHosts}, which names the hosts and runs the script once, and from
 * the command, which says what to measure while the hosts are up.
 */
final class NetworkLifecycle {
    private NetworkLifecycle() { }

    /** The measurements run while the hosts are up. */
    @FunctionalInterface
    interface Measurements {
        void run() throws IOException;
    }

    /**
     * Makes the hosts of {@code env}'s link with the script {@code netns}, runs {@code measurements},
     * and removes the hosts. An error that ends the measurements is the one thrown, a failure to
     * remove the hosts suppressed in it; a JVM stopped meanwhile removes the hosts and deletes
     * {@code work}, the bench's work directory, in a shutdown hook.
     */
    static void whileUp(Path netns, Map<String, String> env, Path work, Measurements measurements)
        throws IOException {
        // An interrupted bench (Ctrl-C, a kill) removes its hosts and files too: no finally runs then.
        Thread removal = new Thread(() -> {
            try {
                NetworkHosts.shell(netns, env, List.of("down"), "remove the hosts");
            } catch (RuntimeException e) {
                System.err.println("paratrain bench network: " + e.getMessage());
            }
            org.paratrain.io.AtomicFiles.deleteQuietly(work);
        });
        Runtime.getRuntime().addShutdownHook(removal);
        RuntimeException failure = null;
        try {
            NetworkHosts.shell(netns, env, List.of("up"), "make the hosts");
            measurements.run();
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(removal);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is ending: the hook removes the hosts.
            }
            try {
                NetworkHosts.shell(netns, env, List.of("down"), "remove the hosts");
            } catch (RuntimeException e) {
                if (failure == null) {
                    throw e;
                }
                failure.addSuppressed(e);     // the error that ended the run is the one to tell
            }
        }
    }
}
