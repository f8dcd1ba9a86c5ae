package org.paratrain.comm.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts mpirun so that the kernel ends it when this process dies, however it dies (kill -9
 * included, which runs none of this JVM's clean-up): through util-linux's {@code setpriv
 * --pdeathsig KILL}, which sets Linux's parent-death signal and then becomes mpirun. util-linux
 * is essential on Debian and its kin; where {@code setpriv} is missing or refuses (not Linux, an
 * old one without {@code --pdeathsig}), mpirun starts as before and the ranks' own
 * {@link LauncherWatch} still ends the job.
 *
 * <p>The signal follows the thread that started the child, not the process: Linux sends it when
 * that thread ends, and again each time the child passes to another thread of the dying process.
 * So the process is started from a thread of its own that waits for it to end, not from the
 * caller's, which may be a pool's (a virtual thread's carrier) and end first.
 *
 * <p>SIGKILL, not SIGTERM: a JVM's threads end one after another, and mpirun got SIGTERM twice,
 * 0.2 s apart; Open MPI's mpirun takes a second SIGTERM as "stop now" and exits without its
 * clean-up, so SIGTERM kept nothing that SIGKILL loses (its session directory in /tmp and the
 * ranks' shared memory in /dev/shm were left either way), and SIGKILL cannot be caught, delayed
 * or hung in. mpirun's daemons on other hosts end when their connection to it closes; the ranks
 * end themselves (LauncherWatch).
 */
final class ParentDeathSignal {
    private static final long START_SECONDS = 60;
    private static volatile List<String> prefix;

    private ParentDeathSignal() { }

    /**
     * Starts {@code pb}'s command so that it gets SIGKILL when this process dies.
     *
     * @param pb the command and how to start it
     * @return the started process
     * @throws IOException if it cannot be started
     */
    static Process start(ProcessBuilder pb) throws IOException {
        List<String> cmd = new ArrayList<>(prefix());
        cmd.addAll(pb.command());
        ProcessBuilder wrapped = pb.command(cmd);
        CompletableFuture<Process> started = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("paratrain-mpirun-parent").start(() -> {
            Process p;
            try {
                p = wrapped.start();
            } catch (IOException | RuntimeException e) {
                started.completeExceptionally(e);
                return;
            }
            started.complete(p);
            // Stays as long as the child: its end would send the child the signal.
            while (p.isAlive()) {
                try {
                    p.waitFor();
                } catch (InterruptedException e) {
                    // Nothing interrupts this thread on purpose; keep waiting.
                }
            }
        });
        try {
            return started.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("it did not start within " + START_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting it");
        }
    }

    /** {@return setpriv and its option, or nothing where it is missing or does not work here; found once} */
    static List<String> prefix() {
        List<String> p = prefix;
        if (p == null) {
            p = find();
            prefix = p;
        }
        return p;
    }

    private static List<String> find() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(java.io.File.pathSeparator)) {
            Path setpriv = Path.of(dir.isEmpty() ? "." : dir, "setpriv");
            if (Files.isExecutable(setpriv)) {
                List<String> p = List.of(setpriv.toString(), "--pdeathsig", "KILL");
                return works(p) ? p : List.of();
            }
        }
        return List.of();
    }

    /** Whether {@code prefix true} succeeds: setpriv knows the option and the kernel takes it. */
    private static boolean works(List<String> prefix) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add("true");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
