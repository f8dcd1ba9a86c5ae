package org.paratrain.cli.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The two emulated hosts of {@code bench network}: network namespaces that
 * {@code scripts/multihost-netns.sh} makes under names of the bench's own ({@code ptbench0},
 * {@code ptbench1}, apart from a user's), their link's rate, and the script's runs, whose failure
 * ends the bench with the line that says why.
 */
final class NetworkHosts {
    // Names, subnet and directory apart from the script's defaults, so that a user's hosts are left alone.
    /** The hosts' name prefix. */
    static final String NAME = "ptbench";
    /** The hosts' subnet: host h is {@code SUBNET.(h+1)}. */
    static final String SUBNET = "10.78.0";
    /** Where the script keeps the hosts' hostfile and agent. */
    static final Path DIR = Path.of("/run/paratrain-bench-netns");

    private NetworkHosts() { }

    /** The environment that names the bench's hosts and sets the link's rate for the script. */
    static Map<String, String> environment(String link) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PARATRAIN_NETNS_HOSTS", "2");
        env.put("PARATRAIN_NETNS_NAME", NAME);
        env.put("PARATRAIN_NETNS_SUBNET", SUBNET);
        env.put("PARATRAIN_NETNS_DIR", DIR.toString());
        env.put("PARATRAIN_NETNS_RATE", link.equals("unshaped") ? "" : link);
        return env;
    }

    /** Runs the namespace script with {@code args}; a failure ends the bench naming what it was for. */
    static void shell(Path netns, Map<String, String> env, List<String> args, String what) {
        List<String> cmd = new ArrayList<>(List.of("bash", netns.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        try {
            // The script's output is read in memory, not through a log file: a JVM stopped while
            // the hosts are removed (a killed bench's own removal races its shutdown hook's) would
            // leave that file behind, as no finally runs then.
            Process p = pb.start();
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> {
                try (var in = p.getInputStream()) {
                    in.transferTo(output);
                } catch (IOException ignored) {
                    // The process ended or was destroyed: what was read is what there is.
                }
            }, "netns-output");
            reader.setDaemon(true);
            reader.start();
            try {
                if (!p.waitFor(30, TimeUnit.MINUTES)) {
                    throw new org.paratrain.comm.BackendException("bench network: could not " + what
                        + ": no end after 30 minutes");
                }
            } catch (InterruptedException | RuntimeException e) {
                // Neither the script nor what it started (hosts half made, a training job) outlives the wait.
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw e;
            }
            if (p.exitValue() != 0) {
                reader.join(10_000);   // the output to the end, unless a process the script left holds the pipe
                throw new org.paratrain.comm.BackendException("bench network: could not " + what + ": "
                    + why(output.toString(StandardCharsets.UTF_8), p.exitValue()));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.paratrain.comm.BackendException("bench network: interrupted");
        }
    }

    /** {@return the line of a failed script's output that says why: the first not a stack frame, or the last} */
    private static String why(String output, int status) {
        List<String> lines = output.lines().map(String::strip).filter(l -> !l.isBlank() && !l.startsWith("at "))
            .toList();
        return lines.stream().filter(l -> l.contains("Exception: ") || l.startsWith("paratrain")
            || l.startsWith("multihost-netns")).findFirst()
            .orElse(lines.isEmpty() ? "exit status " + status : lines.get(lines.size() - 1))
            .replaceFirst("^Exception in thread \"[^\"]*\" ([a-zA-Z0-9_.$]+: )?", "");
    }

    /** {@return this JVM's class path, absolute: what a worker started in a host runs with} */
    static String classPath() {
        List<String> parts = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            parts.add(Path.of(p).toAbsolutePath().toString());
        }
        return String.join(java.io.File.pathSeparator, parts);
    }

    /**
     * {@return the namespace script: {@code given} (--script), else the one beside this build
     * (cli/target/x.jar), else the one in the current directory}
     * @throws IllegalArgumentException naming --script when there is none
     */
    static Path script(Path given) {
        if (given != null) {
            if (!Files.isRegularFile(given)) {
                throw new IllegalArgumentException("--script " + given + ": no such file");
            }
            return given;
        }
        try {
            Path jar = Path.of(NetworkHosts.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path d = jar.getParent(); d != null; d = d.getParent()) {
                Path s = d.resolve("scripts/multihost-netns.sh");
                if (Files.isRegularFile(s)) {
                    return s;
                }
            }
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // fall through to the current directory
        }
        Path s = Path.of("scripts/multihost-netns.sh");
        if (!Files.isRegularFile(s)) {
            throw new IllegalArgumentException("--script: scripts/multihost-netns.sh is not beside this build or in the "
                + "current directory; give its path");
        }
        return s;
    }
}
