package org.paratrain.experiment;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * How a result was made, written next to it: code version, JVM, operating system, host,
 * cores, start time and the command line. A result without it cannot be trusted later.
 *
 * @param version   paratrain's version (and git commit when known)
 * @param java      JVM vendor and version
 * @param os        operating system and architecture
 * @param host      host name
 * @param cores     available processors
 * @param startTime when the run started (ISO-8601, UTC)
 * @param command   the command line's arguments
 */
public record Provenance(String version, String java, String os, String host, int cores,
                         String startTime, List<String> command) {

    /**
     * {@return a description of this process now: version and commit, JVM, OS, host, cores, time}
     * @param command the command line's arguments, as the user gave them
     */
    public static Provenance capture(List<String> command) {
        return new Provenance(codeVersion(), System.getProperty("java.vm.vendor") + " " + Runtime.version(),
            System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"),
            hostName(), Runtime.getRuntime().availableProcessors(), Instant.now().toString(), List.copyOf(command));
    }

    /**
     * {@return paratrain's version from the jar manifest ("dev" outside a jar), with the git commit
     * of the source tree (or {@code PARATRAIN_COMMIT}) if found}
     */
    public static String codeVersion() {
        String v = Provenance.class.getPackage().getImplementationVersion();
        String base = v == null ? "dev" : v;
        String commit = gitCommit();
        return commit == null ? base : base + " (" + commit + ")";
    }

    private static String gitCommit() {
        String fromEnv = System.getenv("PARATRAIN_COMMIT");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.strip();
        }
        try {
            Path head = Path.of(".git", "HEAD");
            if (!Files.isRegularFile(head)) {
                return null;
            }
            String ref = Files.readString(head).strip();
            if (!ref.startsWith("ref: ")) {
                return ref.substring(0, Math.min(12, ref.length()));
            }
            Path refFile = Path.of(".git").resolve(ref.substring(5));
            return Files.isRegularFile(refFile) ? Files.readString(refFile).strip().substring(0, 12) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** {@return the provenance as the JSON object result.json, model.json and checkpoints hold} */
    public ObjectNode toJson() {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("paratrain_version", version);
        n.put("java", java);
        n.put("os", os);
        n.put("host", host);
        n.put("cores", cores);
        n.put("start_time", startTime);
        n.put("kernels", org.paratrain.model.Kernels.name());
        n.putPOJO("command", command);
        return n;
    }
}
