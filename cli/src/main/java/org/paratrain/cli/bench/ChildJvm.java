package org.paratrain.cli.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.cli.Main;
import org.paratrain.comm.BackendException;

/**
 * This program started again in a JVM of its own, for a benchmark that must measure a fresh
 * JVM or needs another process beside it: the same executable, class path and the options
 * every copy may share.
 */
final class ChildJvm {
    private ChildJvm() { }

    /** {@return the command that runs this program with {@code args}} */
    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (passedOn(a)) {
                cmd.add(a);
            }
        }
        List<String> path = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            path.add(Path.of(p).toAbsolutePath().toString());
        }
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, path));
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Whether a child gets this JVM option: the heap, the collector and other {@code -XX} settings,
     * native access, modules and paratrain's own properties; not agents, recordings, debuggers,
     * log files or management ports, which every child would open at once.
     */
    static boolean passedOn(String option) {
        if (option.startsWith("-XX:")) {
            return !option.startsWith("-XX:StartFlightRecording") && !option.startsWith("-XX:FlightRecorderOptions");
        }
        // The launcher's start-up cache (-XX:AOTCache) goes on with its messages turned off, as there.
        return option.startsWith("-Xmx") || option.startsWith("-Xms") || option.startsWith("-Xss")
            || option.equals("-Xlog:aot=off") || option.equals("-Xlog:cds=off")
            || option.startsWith("--enable-native-access") || option.startsWith("--add-")
            || option.startsWith("-Dparatrain.");
    }

    /**
     * A builder for {@code cmd}, its output and errors together, without the options that the
     * environment would add a second time ({@code JDK_JAVA_OPTIONS}) or that name files and
     * ports every child would share ({@code JAVA_TOOL_OPTIONS}).
     */
    static ProcessBuilder builder(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return pb;
    }

    /**
     * Runs this program with {@code args} to its end, for at most {@code limit}; returns what it
     * printed.
     *
     * @throws BackendException naming {@code what} with the child's own last line (its one-line
     *     error) if it fails, or if it outlives the limit
     */
    static String output(String what, java.time.Duration limit, String... args) {
        return outputOf(what, limit, command(args));
    }

    /**
     * Runs {@code cmd} (a JVM of this program, perhaps under mpirun) as {@link #output} does.
     *
     * @throws BackendException naming {@code what} with the child's last line, if it fails or
     *     outlives the limit
     */
    static String outputOf(String what, java.time.Duration limit, List<String> cmd) {
        CReference.Captured c = CReference.capture(builder(cmd), limit, what);
        if (c.status() != 0) {
            String last = c.text().strip().lines().reduce((a, b) -> b).orElse("no output");
            throw new BackendException(what + " failed (exit " + c.status() + "): " + last);
        }
        return c.text();
    }
}
