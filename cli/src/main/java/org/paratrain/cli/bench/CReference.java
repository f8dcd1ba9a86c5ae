package org.paratrain.cli.bench;

import static org.paratrain.io.Executables.onPath;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.train.Backend;

/**
 * The C reference programs that benchmarks measure paratrain against, built from the copies
 * of their sources inside the jar (resources/c): with mpicc and run under mpirun, or, without
 * MPI, with gcc and run directly.
 */
final class CReference {
    private CReference() { }

    /** True when mpicc and mpirun are installed, so the references can be built and run. */
    static boolean available() {
        return onPath("mpicc") && (onPath("mpirun") || onPath("mpiexec"));
    }

    /** True when gcc is installed, so the references without MPI can be built. */
    static boolean gccAvailable() {
        return onPath("gcc");
    }

    /** Compiles {@code name}.c with {@code mpicc -O2} into a temporary directory; returns the program. */
    static Path build(String name) {
        return build(name, List.of("mpicc", "-O2"), "apt-get install libopenmpi-dev");
    }

    /** Compiles {@code name}.c, a program without MPI, with {@code gcc -O3 -march=native}; returns the program. */
    static Path buildNative(String name) {
        return build(name, List.of("gcc", "-O3", "-march=native"), "apt-get install gcc");
    }

    private static Path build(String name, List<String> compiler, String install) {
        try {
            Path dir = Files.createTempDirectory("paratrain-c");
            Path src = dir.resolve(name + ".c");
            try (InputStream in = CReference.class.getResourceAsStream("/c/" + name + ".c")) {
                Files.copy(in, src);
            }
            Path exe = dir.resolve(name);
            List<String> cmd = new ArrayList<>(compiler);
            cmd.addAll(List.of("-o", exe.toString(), src.toString()));
            String out = output(cmd);
            if (!Files.isExecutable(exe)) {
                throw new BackendException(compiler.get(0) + " failed: " + out.strip());
            }
            // File.deleteOnExit deleted the files but not their directory (not yet empty when its turn came).
            org.paratrain.io.ExitCleanup.deleteOnExit(dir);
            return exe;
        } catch (IOException e) {
            throw new BackendException("cannot build the C reference " + name + " (is " + compiler.get(0)
                + " installed? " + install + "): " + e.getMessage());
        }
    }

    /** Runs {@code exe args} under mpirun as {@code launch} says; returns its output, or throws on failure. */
    static String mpirun(JobLaunch launch, Path exe, List<String> args) {
        List<String> cmd = new ArrayList<>(Backend.mpirunPrefix(launch));
        cmd.add(exe.toString());
        cmd.addAll(args);
        return output(cmd);
    }

    /** Runs {@code cmd}; returns what it printed (stdout and stderr), or throws if it fails. */
    static String output(List<String> cmd) {
        Captured c = capture(new ProcessBuilder(cmd).redirectErrorStream(true), null, cmd.get(0));
        if (c.status() != 0) {
            throw new BackendException(String.join(" ", cmd) + " failed: " + c.text().strip());
        }
        return c.text();
    }

    /**
     * What a process printed (its output and error streams as {@code pb} merges them) and its
     * exit status.
     *
     * @param status the exit status
     * @param text   everything it printed
     */
    record Captured(int status, String text) { }

    /**
     * Runs {@code pb} to its end, for at most {@code limit} (null: no bound; {@code what} names
     * the process when it outlives it), reading its output as it comes. On every path the process is ended and no longer stopped at this JVM's exit;
     * while it runs, a cancel ends it too.
     *
     * @throws BackendException if it cannot start, outlives the limit, or the wait is interrupted
     */
    static Captured capture(ProcessBuilder pb, java.time.Duration limit, String what) {
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new BackendException("cannot run " + pb.command().get(0) + ": " + e.getMessage());
        }
        Runnable unregister = org.paratrain.io.ExitCleanup.stopOnExit(p);   // a cancel ends the benchmark's job
        try {
            java.util.concurrent.CompletableFuture<String> text = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes());
                } catch (IOException e) {
                    return "";
                }
            });
            if (limit == null) {
                p.waitFor();
            } else if (!p.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                throw new BackendException(what + " ran longer than " + limit.toMinutes() + " minutes");
            }
            return new Captured(p.exitValue(), text.join());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted");
        } finally {
            p.destroyForcibly();
            unregister.run();
        }
    }
}
