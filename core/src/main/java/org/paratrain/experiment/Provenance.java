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
            Path[] dirs = gitDirs();
            if (dirs == null) {
                return null;
            }
            String ref = Files.readString(dirs[0].resolve("HEAD")).strip();
            Path git = dirs[1];
            if (!ref.startsWith("ref: ")) {
                return ref.substring(0, Math.min(12, ref.length()));
            }
            String name = ref.substring(5);
            Path loose = git.resolve(name);
            if (Files.isRegularFile(loose)) {
                return Files.readString(loose).strip().substring(0, 12);
            }
            Path packed = git.resolve("packed-refs");      // a fresh clone or a gc keeps refs here
            if (Files.isRegularFile(packed)) {
                for (String line : Files.readAllLines(packed)) {
                    if (line.endsWith(" " + name) && line.length() > 12) {
                        return line.substring(0, 12);
                    }
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The git directory of the checkout this code was built in: found from where the classes are
     * (core/target/classes, cli/target/paratrain.jar, up to the checkout's root), never from the
     * working directory, which may be another repository: the directory of its HEAD and that of its
     * refs (the same but in a worktree, whose {@code .git} file is followed).
     */
    private static Path[] gitDirs() throws IOException {
        java.security.CodeSource source = Provenance.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        Path at;
        try {
            at = Path.of(source.getLocation().toURI()).toAbsolutePath();
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            return null;
        }
        for (int up = 0; up < 5 && at != null; up++, at = at.getParent()) {
            Path git = at.resolve(".git");
            if (Files.isDirectory(git) && Files.isRegularFile(git.resolve("HEAD"))) {
                return new Path[] {git, git};
            }
            if (Files.isRegularFile(git)) {
                String line = Files.readString(git).strip();
                if (line.startsWith("gitdir: ")) {
                    Path dir = at.resolve(line.substring(8).strip());
                    Path common = dir.resolve("commondir");
                    return new Path[] {dir, Files.isRegularFile(common)
                        ? dir.resolve(Files.readString(common).strip()).normalize() : dir};
                }
            }
        }
        return null;
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
